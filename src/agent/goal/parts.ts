/**
 * Splitting a goal into the questions it holds: "Why is the disk full and
 * is the CPU hot?" is two parts, "rundown please: disk, ram, temp" three,
 * and each is planned and answered on its own.
 *
 * Cuts are made at sentence ends (?, !, ;, a full stop before a space, a
 * new line), at ", and", "and", "also", "plus", "as well as", "or" before a new question, commas, and
 * after a colon that opens a list (the words before such a colon only
 * introduce the list and are not a question of their own). Paths and
 * file names never split: a dot or slash inside a word is not a boundary.
 *
 * A fragment that asks nothing of its own is joined back to its neighbour:
 * the caller says which fragments carry a topic (`carries`), so "what's
 * going on", "why" or "keep the 5 newest" stay with the question before
 * them, and a goal never gains a part made only of filler. A fragment that
 * asks more of the same question ("the disk is full, which filesystem is
 * it?") stays with it too, when the caller says so (`continues`): a
 * question word and its object are never a part of their own.
 *
 * Quoted text (quotes.ts) never splits: "Under-voltage detected!" or
 * "Out of memory: Killed process 812" is one piece of evidence.
 */
import { maskQuotes } from './quotes.js';

const SENTENCE = /(?:[?!;]+|\.(?=\s|$))\s*|\n+/;
// "or" splits only before a new question ("is the disk full or is it the ram"), never between the
// answers one question offers ("is it mono or stereo")
const OR_CLAUSE = String.raw`or\s+(?=(?:is|are|was|were|does|do|did|has|have|can|could|will|would|should|what|whats|what's|why|how|which|who|where|when|maybe)\b)`;
const JOIN = new RegExp(String.raw`\s*,\s*(?:and\s+|also\s+|plus\s+|&\s+|then\s+|${OR_CLAUSE})?|\s+(?:and\s+also|and\s+then|and|also|plus|as\s+well\s+as|&)\s+|\s+${OR_CLAUSE}`, 'i');
const LEAD = /^(?:and|also|plus|then|or|&|but|oh|btw|ps)\b[\s,]*/i;

/** A fragment of the goal: its text and where it starts in the goal. */
export interface Fragment {
  text: string;
  at: number;
}

function cut(text: string, at: number, re: RegExp): Fragment[] {
  const out: Fragment[] = [];
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
  let last = 0;
  for (const m of text.matchAll(g)) {
    if (m[0].length === 0) continue;
    out.push({ text: text.slice(last, m.index), at: at + last });
    last = m.index! + m[0].length;
  }
  out.push({ text: text.slice(last), at: at + last });
  return out;
}

function tidy(f: Fragment): Fragment | null {
  const lead = LEAD.exec(f.text.trimStart());
  const start = f.text.length - f.text.trimStart().length + (lead ? lead[0].length : 0);
  const text = f.text.slice(start).trim().replace(/[,:.\s]+$/, '');
  return text.length ? { text, at: f.at + start } : null;
}

/**
 * The parts of a goal, in order. `carries(text)` says whether a fragment asks something of its
 * own (a topic the tools, playbooks or lexicon know, a word they do not, or a request to act);
 * a fragment that does not is joined to the part before it (or after it, when it comes first).
 */
export function splitParts(goal: string, carries: (text: string) => boolean, continues: (part: string, text: string) => boolean = () => false): Fragment[] {
  const masked = maskQuotes(goal, 'q');
  const found: Fragment[] = [];
  for (const sentence of cut(masked, 0, SENTENCE)) {
    // "rundown please: disk, ram, temp" — the words before a colon that opens a list are its title
    const colon = /:\s+/.exec(sentence.text);
    let body = [sentence];
    if (colon) {
      const after = sentence.text.slice(colon.index + colon[0].length);
      const items = cut(after, sentence.at + colon.index + colon[0].length, JOIN).map(tidy).filter((x): x is Fragment => x !== null);
      if (items.length >= 2) body = items;
    }
    for (const b of body) for (const f of cut(b.text, b.at, JOIN)) {
      const t = tidy(f);
      if (t) found.push(t);
    }
  }
  // the cuts were made with quotations masked; the pieces are the goal's own text
  const pieces = found.map((f) => ({ text: goal.slice(f.at, f.at + f.text.length), at: f.at }));
  const parts: Fragment[] = [];
  let pending: Fragment | null = null;
  // two pieces joined are the goal's own words from the first to the end of the second
  const join = (a: Fragment, b: Fragment): Fragment => ({ text: goal.slice(a.at, b.at + b.text.length), at: a.at });
  for (const p of pieces) {
    const prev = parts[parts.length - 1];
    if (prev && !pending && continues(prev.text, p.text)) {
      parts[parts.length - 1] = join(prev, p);
    } else if (carries(p.text)) {
      parts.push(pending ? join(pending, p) : p);
      pending = null;
    } else if (prev) {
      parts[parts.length - 1] = join(prev, p);
    } else {
      pending = pending ? join(pending, p) : p;
    }
  }
  if (pending) parts.push(pending);
  return parts.length ? parts : [{ text: goal.trim(), at: 0 }];
}
