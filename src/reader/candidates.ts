/**
 * Where the values are in a text: markdown fences (several, or one that
 * never closes), then every place in the text where a value can start — an
 * opening brace or bracket, or a name directly followed by `(` (a Python
 * call) — each read by the tolerant reader (scan.ts), in text order.
 *
 * A value that reads is taken whole and the scan goes on after it, so an
 * inner fragment of a value is never offered on its own; a start that fails
 * to read is skipped up to the point where it failed, so a broken list does
 * not turn into the one call inside it. The module also says whether words
 * stand outside the values (prose) and keeps the text just before each value
 * (a tool name written before its arguments is read by calls.ts). It knows
 * nothing of schemas.
 */
import { readValueAt } from './scan.js';
import { parseStrict } from './strict.js';
import type { Fix } from './fixes.js';

export interface Found {
  value: unknown;
  /** offsets in the whole text */
  from: number;
  to: number;
  fixes: Fix[];
  /** inside a markdown fence */
  fenced: boolean;
  /** index of the region (fence or the text outside fences) it came from */
  region: number;
  /** the text between the previous value of its region (or the region's start) and this one */
  before: string;
}

export interface Located {
  values: Found[];
  /** words stand outside the values (prose), as opposed to only separators, fences and comments */
  prose: boolean;
  /** the text has a markdown fence */
  fenced: boolean;
}

/** At most this many values are read from one text (a hostile text cannot make the ladder quadratic). */
export const MAX_VALUES = 16;

const SCALAR_START = /^(?:["'\u201c\u2018]|[-+]?\.?\d|(?:true|false|null|True|False|None)(?![\w]))/;
/** A markdown fence and its body; one that never closes runs to the end of the text. */
export const FENCE = /```[^\n`]*\n?([\s\S]*?)(?:```|$)/g;
const WORDISH = /[\p{L}\p{N}]/u;
const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/** Every value in `text`, fenced ones first. */
export function locate(text: string): Located {
  const values: Found[] = [];
  let outside = text;
  let regions = 0;
  let fenced = text.includes('```');
  if (fenced) {
    // a fence inside one value that is the whole text (a code block as a string value) is no fence
    const lead = text.search(/\S/);
    if (text[lead] === '{' || text[lead] === '[') {
      const whole = readValueAt(text, lead);
      const fences = [...text.matchAll(FENCE)];
      const jsonFence = fences.some((m) => parseStrict((m[1] ?? '').trim()) !== undefined);
      // a block that stands as a field's value (after the key's colon) is that value, whatever its body
      const inValuePlace = fences.every((m) => /:\s*$/.test(text.slice(0, m.index)));
      if (whole.ok && text.slice(whole.end).trim() === '' && (!jsonFence || inValuePlace)) fenced = false;
    }
  }
  if (fenced) {
    const pieces: string[] = [];
    const spans: [number, number][] = [];
    let cursor = 0;
    const fences = new RegExp(FENCE.source, 'g');
    for (let m = fences.exec(text); m; m = fences.exec(text)) {
      const body = m[1] ?? '';
      const bodyAt = m.index + m[0].indexOf(body, m[0].indexOf('```') + 3);
      let end = m.index + m[0].length;
      const whole = values.length < MAX_VALUES ? codeBlockInside(text, bodyAt, body) : null;
      if (whole) {
        values.push({ ...whole.found, region: regions++, before: text.slice(cursor, whole.found.from) });
        end = whole.end;
        fences.lastIndex = end;
      } else {
        scanRegion(text, bodyAt, bodyAt + body.length, true, regions++, values);
      }
      if (end === m.index) fences.lastIndex++;
      pieces.push(text.slice(cursor, m.index));
      spans.push([m.index, end]);
      cursor = end;
    }
    pieces.push(text.slice(cursor));
    outside = pieces.join(' ');
    if (outside.trim() !== '') scanOutside(text, spans, regions++, values);
  } else {
    scanRegion(text, 0, text.length, false, regions++, values);
  }
  let rest = outside;
  if (!fenced) {
    let cut = '';
    let at = 0;
    for (const v of values) { cut += text.slice(at, v.from) + ' '; at = v.to; }
    rest = cut + text.slice(at);
  }
  return { values, prose: WORDISH.test(rest.replace(COMMENTS, ' ')), fenced };
}

/** Values outside every fence: the text with the fences blanked out, offsets kept. */
function scanOutside(text: string, spans: readonly [number, number][], region: number, into: Found[]): void {
  let blanked = '';
  let at = 0;
  for (const [from, to] of spans) { blanked += text.slice(at, from) + ' '.repeat(to - from); at = to; }
  blanked += text.slice(at);
  scanRegion(blanked, 0, blanked.length, false, region, into, text);
}

/**
 * A fenced answer whose value holds a code block of its own
 * (```` ```json\n{"code": ```sql … ```}\n``` ````): the inner opener cut the
 * fence's body short after a key's colon. The value read from the body's
 * start across the inner block, when the outer fence closes right after it.
 */
function codeBlockInside(text: string, bodyAt: number, body: string): { found: Omit<Found, 'region' | 'before'>; end: number } | null {
  if (!/[:,[]\s*$/.test(body)) return null;
  const start = bodyAt + body.search(/\S/);
  if (text[start] !== '{' && text[start] !== '[') return null;
  const r = readValueAt(text, start);
  if (!r.ok) return null;
  const close = /^\s*```/.exec(text.slice(r.end));
  if (!close) return null;
  return { found: { value: r.value, from: start, to: r.end, fixes: r.fixes, fenced: true }, end: r.end + close[0].length };
}

/** Read the values of text[from, to) in order. */
function scanRegion(text: string, from: number, to: number, fenced: boolean, region: number, into: Found[], original = text): void {
  const body = text.slice(from, to);
  let i = 0;
  let last = 0;
  const lead = body.search(/\S/);
  if (lead >= 0 && SCALAR_START.test(body.slice(lead, lead + 6))) {
    // the text opens with a scalar: read it and any scalars that follow it, separated by commas or lines
    let at = lead;
    while (into.length < MAX_VALUES) {
      const r = readValueAt(body, at);
      if (!r.ok) break;
      into.push({ value: r.value, from: from + at, to: from + r.end, fixes: r.fixes, fenced, region, before: original.slice(from + last, from + at) });
      i = last = r.end;
      const next = /^[ \t]*(?:,|\r?\n)\s*/.exec(body.slice(r.end));
      if (!next || !SCALAR_START.test(body.slice(r.end + next[0].length, r.end + next[0].length + 6))) break;
      at = r.end + next[0].length;
    }
  }
  while (i < body.length && into.length < MAX_VALUES) {
    const start = nextStart(body, i);
    if (start < 0) break;
    const r = readValueAt(body, start);
    if (r.ok) {
      into.push({ value: r.value, from: from + start, to: from + r.end, fixes: r.fixes, fenced, region, before: original.slice(from + last, from + start) });
      i = Math.max(r.end, start + 1);
      last = i;
    } else {
      i = Math.max(start + 1, r.at + 1);
    }
  }
}

/** The next offset at or after `i` where a value can start: `{`, `[`, or a (dotted) name right before `(`. */
function nextStart(s: string, origin: number): number {
  for (let i = origin; i < s.length; i++) {
    const c = s[i]!;
    if (c === '{' || c === '[') return i;
    if (c === '(' && i > 0 && isNamePart(s[i - 1]!)) {
      let j = i - 1;
      while (j >= 0 && (isNamePart(s[j]!) || s[j] === '.')) j--;
      const start = j + 1;
      if (start >= origin && start < i && /[A-Za-z_]/.test(s[start]!) && !s.slice(start, i).endsWith('.')) return start;
    }
  }
  return -1;
}

function isNamePart(c: string): boolean {
  return /[A-Za-z0-9_]/.test(c);
}
