/**
 * Quoted text in a goal: what a program printed, copied by the owner
 * (`getting "No space left on device"`, `apt says 'E: Unable to locate
 * package htop'`). A quotation is evidence, not the owner's question: it
 * never splits a goal into parts (its own "!" or ":" end nothing), a verb
 * inside it never asks for a change ("install" in an apt error is not a
 * request to install), and a name the owner also types outside it is spelt
 * the owner's way. Its words still say what the trouble is about ("no space
 * left" is about the disk), so they stay in the part's text.
 *
 * Straight and curly double quotes and backticks always quote; a single
 * quote only when it opens after a space or a bracket and closes before one,
 * so the apostrophe of "what's" or "don't" quotes nothing.
 */

/** One quotation: where its text starts and ends in the goal (without the quote marks). */
export interface Quote {
  start: number;
  end: number;
}

const QUOTE = /"([^"\n]{1,400})"|\u201c([^\u201d\n]{1,400})\u201d|`([^`\n]{1,400})`|(?<=^|[\s([{=:,])'([^'\n]{1,400})'(?=$|[\s)\]}.,;:!?])|(?<=^|[\s([{=:,])\u2018([^\u2019\n]{1,400})\u2019(?=$|[\s)\]}.,;:!?])/g;

/** The quotations of a text, in order. */
export function quotesIn(text: string): Quote[] {
  const out: Quote[] = [];
  for (const m of text.matchAll(QUOTE)) {
    const inner = m.slice(1).find((g) => g !== undefined)!;
    const start = m.index! + 1;
    out.push({ start, end: start + inner.length });
  }
  return out;
}

/** The text with every quotation's inside replaced by `fill` (same length, so offsets stay). */
export function maskQuotes(text: string, fill = '\u0000'): string {
  let out = text;
  for (const q of quotesIn(text)) out = out.slice(0, q.start) + fill.repeat(q.end - q.start) + out.slice(q.end);
  return out;
}

/** The owner's own words: the text with each quotation (marks included) replaced by a space. */
export function withoutQuotes(text: string): string {
  let out = '';
  let at = 0;
  for (const q of quotesIn(text)) {
    out += `${text.slice(at, q.start - 1)} `;
    at = q.end + 1;
  }
  return (out + text.slice(at)).replace(/\s{2,}/g, ' ').trim();
}
