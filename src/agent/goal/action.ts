/**
 * Requests to act: "restart nginx", "can you prune the archive, keep 5",
 * "free up some ram" — a part that opens (after "please", "can you", "how
 * do I" …) with a verb the lexicon lists under `acts`.
 *
 * A question about a change that happened ("why did nginx restart", "did it
 * reboot") is not a request: the verb must lead the part. What the request
 * is about is read too: the object as the owner typed it (for the answer:
 * "I can't restart nginx"), the words of its head — the last content word
 * before a preposition, or the parts of a path — which a tool must know for
 * it to be the tool that does this (the journal is not the log archive), and
 * the words around it (`context`) for offering what can be checked instead.
 */
import { stem } from '../../memory/terms.js';
import { phraseKey, type Lexicon } from './lexicon.js';
import { isContentWord, tokens } from './normalise.js';

export interface ActRequest {
  /** the kind of change, as the lexicon names it (delete, restart, install …) */
  act: string;
  /** the verb as typed ("clean up", "vacuum") */
  verb: string;
  /** what it should act on, as typed, pronouns turned to the owner's side ("me" → "you") */
  object: string;
  /** the stems that name the object: its head word, or the words of the last part of a path it names */
  head: string[];
}

export const POLITE = /^(?:(?:please|pls|plz|kindly|sudo|hey|hi|ok|okay|so|also|and|then|now|just|quickly|u|you|pi|go\s+ahead\s+and|i\s+(?:want|need|would\s+like)\s+(?:you\s+)?to|i'?d\s+like\s+(?:you\s+)?to|(?:can|could|would|will)\s+(?:you|u)(?:\s+please)?|help\s+me|how\s+(?:do|can|should)\s+i|how\s+to|let'?s|lets|time\s+to|try\s+to)[\s,]+)+/i;
const END = /\s*(?:,|;|\bbut\b|\bexcept\b|\bkeep(?:ing)?\b|\bleav(?:e|ing)\b|\bso\b|\bbecause\b|\bby\b|\bfor\s+me\b|\bplease\b|\bpls\b|\bthanks\b|\bwhen\b|\bif\b|\bthen\b)/i;
const PREP = new Set(['to', 'from', 'in', 'inside', 'on', 'at', 'of', 'with', 'into', 'under', 'down', 'up', 'out', 'off', 'every', 'each', 'until', 'except', 'that', 'which', 'who', 'is', 'are', 'so']);
const PATH = /(?:~|\.{1,2})?\/?[A-Za-z0-9._@%+~-]+(?:\/[A-Za-z0-9._@%+~-]*)+|\/[A-Za-z0-9._@%+~-]+/;

/** The request to act in one part of a goal, or null when the part asks a question. */
export function actionIn(part: string, lexicon: Lexicon): ActRequest | null {
  const body = part.replace(POLITE, '').trim();
  const ws = body.split(/\s+/);
  let verb: string | null = null;
  let act: string | null = null;
  for (let n = Math.min(lexicon.longest, ws.length); n >= 1 && !act; n--) {
    const typed = ws.slice(0, n).join(' ').replace(/[,.!?:]+$/, '');
    // a lone word asks for a change only in the form the lexicon lists: "update" does, "updates?" asks about them
    if (n === 1 && !lexicon.actForms.has(typed.toLowerCase())) continue;
    const a = lexicon.acts.get(phraseKey(typed));
    if (a) { act = a; verb = ws.slice(0, n).join(' ').replace(/[,.!?:]+$/, ''); }
  }
  // a separable verb: "turn the fan on", "shut it down", "clean the archive up"
  let particle: string | null = null;
  if (!act && ws.length > 1) {
    for (let j = 1; j < Math.min(ws.length, 6) && !act; j++) {
      const p = ws[j]!.toLowerCase().replace(/[,.!?:]+$/, '');
      if (!['on', 'off', 'up', 'down', 'out'].includes(p)) continue;
      const a = lexicon.acts.get(phraseKey(`${ws[0]!} ${p}`));
      if (a) { act = a; verb = ws[0]!; particle = ws[j]!; }
    }
  }
  if (!act || !verb) return null;
  let rest = body.slice(verb.length).trim();
  if (particle) rest = rest.replace(new RegExp(`\\s*\\b${particle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`), '').trim();
  const end = END.exec(rest);
  const object = (end ? rest.slice(0, end.index) : rest).trim().replace(/[?.!]+$/, '')
    .replace(/\bme\b/gi, 'you').replace(/\bmy\b/gi, 'your').replace(/\bmine\b/gi, 'yours');
  const path = PATH.exec(object);
  let head: string[] = [];
  if (path) {
    const last = path[0].split('/').filter((seg) => seg.length > 0).pop() ?? '';
    head = tokens(last).filter((w) => !/^\d+$/.test(w)).map(stem);
  } else {
    const words = tokens(object);
    const content = (ws: string[]) => ws.filter((w) => isContentWord(w, lexicon) && !PREP.has(w));
    const cutAt = words.findIndex((w, i) => i > 0 && PREP.has(w));
    let np = content(cutAt > 0 ? words.slice(0, cutAt) : words);
    // "everything in the archive": a quantifier's object is what follows its preposition
    if (np.length === 0 && cutAt > 0) {
      const next = words.findIndex((w, i) => i > cutAt && PREP.has(w));
      np = content(words.slice(cutAt + 1, next > 0 ? next : undefined));
    }
    if (np.length) head = [stem(np[np.length - 1]!)];
  }
  return { act, verb: particle ? `${verb} ${particle.replace(/[,.!?:]+$/, '')}` : verb, object, head };
}
