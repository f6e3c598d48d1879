/**
 * Rung 0b, locate JSON inside prose or markdown fences.
 *
 * Candidates, in order: the contents of each ``` fence (an unclosed fence runs
 * to the end), then each top-level bracketed span of the text. A span is
 * scanned as a whole: when its outer object never closes, the candidate is
 * the truncated remainder (for the syntax rung to close) — an inner, balanced
 * fragment of a broken outer object is never offered on its own. The rung
 * also says whether the text around the spans is prose or only separators and
 * comments; in the latter case the text is a JSON sequence, which the syntax
 * rung reads whole. It parses nothing itself.
 */

export interface Located {
  /** fenced contents first, then bracketed spans; deduplicated */
  candidates: { text: string; fenced: boolean }[];
  /** true when words stand outside the candidates (prose), false for bare JSON with comments/separators */
  prose: boolean;
}

const FENCE = /```[^\n`]*\n?([\s\S]*?)(?:```|$)/g;
const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;
const WORDISH = /[\p{L}\p{N}]/u;

/** Find the JSON candidates in `text`. */
export function locate(text: string): Located {
  const candidates: { text: string; fenced: boolean }[] = [];
  const seen = new Set<string>();
  const add = (t: string, fenced: boolean): void => {
    const trimmed = t.trim();
    if (trimmed !== '' && !seen.has(trimmed)) { seen.add(trimmed); candidates.push({ text: trimmed, fenced }); }
  };
  let outside = text;
  if (text.includes('```')) {
    for (const m of text.matchAll(FENCE)) add(m[1] ?? '', true);
    outside = text.replace(FENCE, ' ');
  }
  const spans = bracketSpans(text);
  for (const [from, to] of spans) add(text.slice(from, to), false);
  let rest = '';
  let cursor = 0;
  for (const [from, to] of bracketSpans(outside)) { rest += outside.slice(cursor, from) + ' '; cursor = to; }
  rest += outside.slice(cursor);
  const prose = WORDISH.test(rest.replace(COMMENTS, ' '));
  return { candidates, prose };
}

/** Top-level [from, to) spans that open with { or [; an unclosed span runs to the end and ends the scan. */
export function bracketSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch !== '{' && ch !== '[') { i++; continue; }
    const end = closeOf(text, i);
    spans.push([i, end]);
    i = end;
  }
  return spans;
}

/** Index just past the bracket that closes the one at `start`, or text.length when it never closes. */
function closeOf(text: string, start: number): number {
  let depth = 0;
  let quote: string | null = null;
  let prev = '';
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') { i++; continue; }
      if (ch === quote || (quote === '\n' && ch === '\n')) quote = null;
      continue;
    }
    if (ch === '"') quote = '"';
    else if (ch === "'" && /[{[,:]/.test(prev)) quote = "'";
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
    if (!/\s/.test(ch)) prev = ch;
  }
  return text.length;
}
