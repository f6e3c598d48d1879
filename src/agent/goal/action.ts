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
 *
 * The head holds every name of what is acted on: the object's own head and
 * the place it lies in ("everything in the archive", "space on my iPhone":
 * the archive, the iPhone), so a tool is the one that does this only when
 * it knows both. An object that points elsewhere ("throw away the rest",
 * "delete them") takes its name from the rest of the part ("only keep the
 * latest 7 archived logs, throw away the rest": the logs). The verb may
 * lead any clause of the part, not only the first ("keep the 3 newest,
 * delete the rest"). Words inside a quotation never ask for a change.
 */
import { stem } from '../../memory/terms.js';
import { phraseKey, type Lexicon } from './lexicon.js';
import { isContentWord, tokens } from './normalise.js';
import { maskQuotes } from './quotes.js';

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
// where the thing acted on lies: "in the archive", "on my iphone", "from /var/log"
const PLACE = new Set(['in', 'inside', 'within', 'from', 'on', 'under']);
// an object that names nothing itself but points at what the part names elsewhere
const POINTER = new Set(['rest', 'others', 'remainder', 'them', 'it', 'those', 'these', 'ones', 'else', 'older', 'old']);

/** The stems naming a path's last part ("/srv/logs/archive" → archiv). */
function pathHead(p: string): string[] {
  const last = p.split('/').filter((seg) => seg.length > 0).pop() ?? '';
  return tokens(last).filter((w) => !/^\d+$/.test(w)).map(stem);
}

/** The last content word of some words, as a stem (or nothing), a path's name when the words hold one. */
function nounHead(text: string, lexicon: Lexicon): string[] {
  const path = PATH.exec(text);
  if (path) return pathHead(path[0]);
  const np = tokens(text).filter((w) => isContentWord(w, lexicon) && !PREP.has(w) && !POINTER.has(w));
  return np.length ? [stem(np[np.length - 1]!)] : [];
}

/** The place an object lies in ("all but the 3 newest files in the log archive" → archiv), or nothing. */
function placeHead(rest: string, lexicon: Lexicon): string[] {
  const words = rest.split(/\s+/);
  // "hang on to the five most recent" holds on to something, it names no place
  const at = words.findIndex((w, i) => i > 0 && PLACE.has(w.toLowerCase()) && !/^(?:hang|hold|keep|carry)$/i.test(words[i - 1]!) && !PREP.has((words[i + 1] ?? 'to').toLowerCase()));
  if (at < 0) return [];
  const after = words.slice(at + 1);
  const stop = after.findIndex((w, i) => i > 0 && (PREP.has(w.toLowerCase()) || /^(?:but|except|keep(?:ing)?|leav(?:e|ing)|by|so|then)$/i.test(w)));
  return nounHead((stop > 0 ? after.slice(0, stop) : after).join(' '), lexicon);
}
/** The request to act in one part of a goal, or null when the part asks a question: the verb leads the part or one of its clauses. */
export function actionIn(part: string, lexicon: Lexicon): ActRequest | null {
  // a quotation is what a program said: its words are masked, so they neither lead nor name anything
  const own = maskQuotes(part, ' ');
  const clauses = own.split(/\s*[,;]\s*/);
  for (let i = 0; i < clauses.length; i++) {
    const a = actionInClause(clauses[i]!, lexicon);
    if (!a) continue;
    if (a.head.length === 0) {
      // "throw away the rest": what the other clauses name ("the latest 7 archived logs")
      const others = clauses.filter((_, j) => j !== i).map((c) => placeHead(` ${c}`, lexicon).concat(nounHead(c.replace(/^.*?\b\d+\b/, ''), lexicon)));
      a.head = [...new Set(others.flat())];
    }
    return a;
  }
  return null;
}

function actionInClause(clause: string, lexicon: Lexicon): ActRequest | null {
  const body = clause.replace(POLITE, '').trim();
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
  let head: string[];
  if (path) {
    head = pathHead(path[0]);
  } else {
    const words = object.split(/\s+/);
    const cutAt = words.findIndex((w, i) => i > 0 && PREP.has(w.toLowerCase()));
    head = nounHead((cutAt > 0 ? words.slice(0, cutAt) : words).join(' '), lexicon);
  }
  // the place it lies in names it too ("the old logs in the archive": logs, archive)
  for (const h of placeHead(rest, lexicon)) if (!head.includes(h)) head.push(h);
  return { act, verb: particle ? `${verb} ${particle.replace(/[,.!?:]+$/, '')}` : verb, object, head };
}
