/**
 * The tolerant reader: one pass over text a small model wrote, reading one
 * value that starts at a given offset — JSON as the model meant it — and
 * naming every liberty it took (the fixes).
 *
 * Why our own: a JSON repair library guesses silently and reads one way
 * only. Small models write JSON with single quotes, Python literals, bare
 * keys, bare words as values, quotes left unescaped, comments, missing or
 * extra commas, brackets closed in the wrong order, output cut off mid-value,
 * and Python call syntax (`f(a=1, b='x')`) for tool calls. This reader takes
 * all of that in one scan, records each fix with a rung whose cost is priced
 * in fixes.ts, and fails — with the offset — where a guess would be a
 * fabrication: a closer that matches nothing open, a `key: value` inside a
 * list, a bare variable name as a call argument, nesting deeper than
 * MAX_DEPTH (no stack overflow however hostile the text).
 *
 * It does not locate values in prose (candidates.ts does), know schemas, or
 * interpret calls (calls.ts does): a call is returned as a `PyCall`.
 *
 * The reader is one class in layers, lowest first, each file one part of
 * the grammar: cursor.ts (the shared state and look-aheads), strings.ts,
 * containers.ts (objects, lists, calls), words.ts (numbers, literals, bare
 * words); this file is the entry and the dispatch on a value's first
 * character.
 */
import type { Fix } from './fixes.js';
import { Ctx, Stop, isDigit, isIdentStart, isQuote } from './cursor.js';
import { WordReader } from './words.js';

export { MAX_DEPTH } from './cursor.js';
export { PyCall } from './containers.js';
export { dedent } from './strings.js';

export type ReadOk = { ok: true; value: unknown; end: number; fixes: Fix[] };
export type ReadFail = { ok: false; error: string; at: number };

const CLOSE_OF: Record<string, string> = { '{': '}', '[': ']', '(': ')' };

/** Read one value starting at `start` (leading white space and comments allowed). */
export function readValueAt(text: string, start = 0): ReadOk | ReadFail {
  const r = new Reader(text, start);
  try {
    const value = r.value(Ctx.Top);
    return { ok: true, value, end: r.i, fixes: [...r.fixes.values()] };
  } catch (err) {
    if (err instanceof Stop) return { ok: false, error: err.error, at: err.at };
    if (err instanceof RangeError) return { ok: false, error: 'the text nests too deeply to read', at: r.i };
    throw err;
  }
}

class Reader extends WordReader {
  override value(ctx: Ctx): unknown {
    this.skip();
    const s = this.s;
    const c = s[this.i];
    if (c === undefined) {
      if (ctx === Ctx.Top) this.stop('no value: the text ends');
      this.fix('truncate', 'filled a value cut off at the end with null');
      return null;
    }
    if (c === '{') return this.object();
    if (c === '[') return this.array(']');
    if (c === '(' && ctx !== Ctx.Top) { this.fix('syntax', 'read a tuple as an array'); return this.array(')'); }
    if (isQuote(c)) return this.string(ctx, false);
    if (isDigit(c) || ((c === '-' || c === '+' || c === '.') && (isDigit(s[this.i + 1]) || (s[this.i + 1] === '.' && isDigit(s[this.i + 2]))))) return this.number(ctx);
    if (isIdentStart(c)) return this.word(ctx);
    if (ctx === Ctx.Value && (c === ',' || c === '}')) {
      this.fix('syntax', 'filled a missing value with null');
      return null;
    }
    if (ctx === Ctx.Value || ctx === Ctx.Item) {
      if (c !== ',' && c !== ':' && !(c in CLOSE_OF) && c !== '}' && c !== ']' && c !== ')') return this.bare(ctx, this.i);
    }
    return this.stop(`unexpected "${c}" where a value should start`);
  }
}
