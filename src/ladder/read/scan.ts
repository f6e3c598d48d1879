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
 */
import type { Fix, Rung } from '../fixes.js';

/** A Python-style call read from the text: `name(positional..., key=value...)`. */
export class PyCall {
  constructor(
    readonly name: string,
    readonly positional: unknown[],
    readonly keywords: [string, unknown][],
  ) {}
}

export type ReadOk = { ok: true; value: unknown; end: number; fixes: Fix[] };
export type ReadFail = { ok: false; error: string; at: number };

export const MAX_DEPTH = 200;

/** Where a value stands: it decides where a bare word ends and which quote closes a string. */
const enum Ctx { Top, Value, Item, Arg, Key }

class Stop {
  constructor(readonly error: string, readonly at: number) {}
}

const LITERALS: Record<string, { value: unknown; fix?: [Rung, string] }> = {
  true: { value: true }, false: { value: false }, null: { value: null },
  True: { value: true, fix: ['syntax', 'replaced Python literals'] },
  False: { value: false, fix: ['syntax', 'replaced Python literals'] },
  None: { value: null, fix: ['syntax', 'replaced Python literals'] },
  TRUE: { value: true, fix: ['syntax', 'read upper-case literals'] },
  FALSE: { value: false, fix: ['syntax', 'read upper-case literals'] },
  NULL: { value: null, fix: ['syntax', 'read upper-case literals'] },
  undefined: { value: null, fix: ['syntax', 'read undefined as null'] },
};
const CUT_LITERALS = ['true', 'false', 'null', 'True', 'False', 'None'];
const CLOSE_OF: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
const CURLY_CLOSE: Record<string, string> = { '\u201c': '\u201d', '\u2018': '\u2019' };
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

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

function isIdentStart(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 128) return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || c === '_' || c === '$';
  return /\p{L}/u.test(c);
}
function isIdentPart(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 128) return isIdentStart(c) || (code >= 48 && code <= 57);
  return /[\p{L}\p{N}]/u.test(c);
}
function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0' || c === '\ufeff';
}
function isQuote(c: string | undefined): boolean {
  return c === '"' || c === "'" || c === '`' || c === '\u201c' || c === '\u2018';
}

class Reader {
  i: number;
  readonly fixes = new Map<string, Fix>();
  /** the closers of the open containers, innermost last */
  private readonly open: string[] = [];

  constructor(readonly s: string, start: number) {
    this.i = start;
  }

  private fix(rung: Rung, text: string): void {
    if (!this.fixes.has(text)) this.fixes.set(text, { rung, text });
  }

  private stop(error: string, at = this.i): never {
    throw new Stop(error, at);
  }

  /** Skip white space and comments (`//`, `/* *\/`, and `#` to the end of the line). */
  private skip(): void {
    const s = this.s;
    for (;;) {
      while (this.i < s.length && isSpace(s[this.i])) this.i++;
      const c = s[this.i];
      if (c === '/' && s[this.i + 1] === '/') {
        const nl = s.indexOf('\n', this.i);
        this.i = nl < 0 ? s.length : nl;
        this.fix('syntax', 'removed comments');
      } else if (c === '/' && s[this.i + 1] === '*') {
        const end = s.indexOf('*/', this.i + 2);
        this.i = end < 0 ? s.length : end + 2;
        this.fix('syntax', 'removed comments');
      } else if (c === '#' && this.open.length > 0) {
        const nl = s.indexOf('\n', this.i);
        this.i = nl < 0 ? s.length : nl;
        this.fix('syntax', 'removed comments');
      } else return;
    }
  }

  private push(closer: string): void {
    if (this.open.length >= MAX_DEPTH) this.stop(`the value nests deeper than ${MAX_DEPTH} levels`);
    this.open.push(closer);
  }

  /** A closer that is not the innermost one: close through when an outer container expects it, else it is stray. */
  private closeThrough(c: string, what: string): boolean {
    if (this.open.slice(0, -1).includes(c)) {
      this.fix('bracket', 'closed a bracket left open');
      return false;
    }
    if (this.open.length === 1 && c !== ')') {
      this.fix('bracket', 'read a mismatched closing bracket as the closing one');
      this.i++;
      return true;
    }
    this.stop(`a stray "${c}" inside ${what}`);
  }

  value(ctx: Ctx): unknown {
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

  private object(): Record<string, unknown> {
    const s = this.s;
    const out: Record<string, unknown> = {};
    this.i++;
    this.push('}');
    let afterComma = false;
    let first = true;
    for (;;) {
      this.skip();
      const c = s[this.i];
      if (c === undefined) { this.fix('truncate', 'closed output cut off at the end'); break; }
      if (c === '}') {
        if (afterComma) this.fix('syntax', 'removed trailing comma');
        this.i++;
        break;
      }
      if (c === ']' || c === ')') { this.closeThrough(c, 'an object'); break; }
      if (c === ',') {
        if (first || afterComma) this.fix('syntax', 'removed an extra comma');
        this.i++;
        afterComma = true;
        continue;
      }
      if (this.ellipsis()) continue;
      if (!first && !afterComma) this.fix('syntax', 'inserted a missing comma');
      const quotedKey = isQuote(s[this.i]);
      const key = this.key();
      this.skip();
      if (s[this.i] === ':') this.i++;
      else if (quotedKey && (isQuote(s[this.i]) || isDigit(s[this.i]) || s[this.i] === '{' || s[this.i] === '[' || s[this.i] === '-')) this.fix('syntax', 'inserted a missing colon');
      else if (s[this.i] === '=' && s[this.i + 1] !== '=') { this.i++; this.fix('syntax', 'read "=" as ":"'); }
      else if (this.i >= s.length) { this.fix('truncate', 'filled a value cut off at the end with null'); setKey(out, key, null); break; }
      else this.stop(`expected ":" after the key ${JSON.stringify(key)}`);
      const v = this.value(Ctx.Value);
      if (Object.hasOwn(out, key)) this.fix('syntax', `kept the last of duplicate keys ${key}`);
      setKey(out, key, v);
      first = false;
      afterComma = false;
      this.skip();
      const n = s[this.i];
      if (n === ',') { this.i++; afterComma = true; continue; }
      if (n === undefined || n === '}' || n === ']' || n === ')') continue;
      if ((n === '{' || n === '[') && this.open.at(-2) === ']') { this.fix('bracket', 'closed an object left open'); break; }
      if (!(isQuote(n) || isIdentStart(n) || isDigit(n))) this.stop(`expected "," or "}" after the value of ${JSON.stringify(key)}`);
    }
    this.open.pop();
    return out;
  }

  private key(): string {
    const s = this.s;
    const c = s[this.i]!;
    if (isQuote(c)) {
      const k = this.string(Ctx.Key, false);
      return typeof k === 'string' ? k : String(k);
    }
    if (!isIdentStart(c) && !isDigit(c) && c !== '-') this.stop(`unexpected "${c}" where a key should start`);
    const from = this.i;
    while (this.i < s.length) {
      const d = s[this.i]!;
      if (d === ':' || d === ',' || d === '}' || d === '{' || d === '[' || d === ']' || d === '\n' || d === '"' || d === "'") break;
      if (d === '=' && s[this.i + 1] !== '=') break;
      this.i++;
    }
    const key = s.slice(from, this.i).trim();
    this.fix('syntax', 'quoted bare keys');
    return key;
  }

  private array(closer: string): unknown[] {
    const s = this.s;
    const out: unknown[] = [];
    this.i++;
    this.push(closer);
    let afterComma = false;
    let first = true;
    for (;;) {
      this.skip();
      const c = s[this.i];
      if (c === undefined) { this.fix('truncate', 'closed output cut off at the end'); break; }
      if (c === closer) {
        if (afterComma) this.fix('syntax', 'removed trailing comma');
        this.i++;
        break;
      }
      if (c === ']' || c === '}' || c === ')') { this.closeThrough(c, 'a list'); break; }
      if (c === ',') {
        if (first || afterComma) this.fix('syntax', 'removed an extra comma');
        this.i++;
        afterComma = true;
        continue;
      }
      if (this.ellipsis()) continue;
      if (!first && !afterComma) this.fix('syntax', 'inserted a missing comma');
      out.push(this.value(Ctx.Item));
      first = false;
      afterComma = false;
      this.skip();
      const n = s[this.i];
      if (n === ',') { this.i++; afterComma = true; continue; }
      if (n === ':' || (n === '=' && s[this.i + 1] !== '=')) this.stop('a "key: value" pair inside a list');
      if (n === undefined || n === ']' || n === '}' || n === ')') continue;
      if (!(isQuote(n) || isIdentStart(n) || isDigit(n) || n === '{' || n === '[' || n === '-')) this.stop(`expected "," or "${closer}" in a list`);
    }
    this.open.pop();
    return out;
  }

  /** An ellipsis standing for elements the model left out (`...`, `…`): skipped, named. */
  private ellipsis(): boolean {
    const s = this.s;
    const len = s.startsWith('...', this.i) ? 3 : s[this.i] === '\u2026' ? 1 : 0;
    if (len === 0) return false;
    const after = this.tokenAt(this.i + len);
    const c = s[after];
    if (c !== undefined && c !== ',' && c !== ']' && c !== '}') return false;
    this.i = after;
    this.fix('syntax', 'removed an ellipsis');
    return true;
  }

  /** `name(`…`)`: keyword and positional arguments; a bare variable name is not a value. */
  private call(name: string): PyCall {
    const s = this.s;
    const positional: unknown[] = [];
    const keywords: [string, unknown][] = [];
    this.i++;
    this.push(')');
    let afterComma = false;
    let first = true;
    for (;;) {
      this.skip();
      const c = s[this.i];
      if (c === undefined) { this.fix('truncate', 'closed output cut off at the end'); break; }
      if (c === ')') { this.i++; break; }
      if (c === ']' || c === '}') this.stop(`a stray "${c}" inside the call ${name}(…)`);
      if (c === ',') {
        if (first || afterComma) this.stop(`an empty argument in the call ${name}(…)`);
        this.i++;
        afterComma = true;
        continue;
      }
      if (!first && !afterComma) this.stop(`expected "," or ")" in the call ${name}(…)`);
      const kw = this.keywordAhead();
      if (kw !== null) {
        this.i = kw.valueAt;
        keywords.push([kw.name, this.value(Ctx.Arg)]);
      } else {
        if (keywords.length) this.stop(`a positional argument after a keyword argument in ${name}(…)`);
        positional.push(this.value(Ctx.Arg));
      }
      first = false;
      afterComma = false;
      this.skip();
      const n = s[this.i];
      if (n === ',') { this.i++; afterComma = true; continue; }
      if (n !== undefined && n !== ')') this.stop(`expected "," or ")" in the call ${name}(…)`);
    }
    this.open.pop();
    return new PyCall(name, positional, keywords);
  }

  /** `name =` (not `==`) at `at` (the cursor by default): a keyword argument. */
  private keywordAhead(at = this.i): { name: string; valueAt: number } | null {
    const s = this.s;
    if (!isIdentStart(s[at] ?? ' ')) return null;
    let j = at + 1;
    while (j < s.length && isIdentPart(s[j]!)) j++;
    const name = s.slice(at, j);
    while (s[j] === ' ' || s[j] === '\t') j++;
    if (s[j] !== '=' || s[j + 1] === '=') return null;
    return { name, valueAt: j + 1 };
  }

  private number(ctx: Ctx): unknown {
    const s = this.s;
    const from = this.i;
    let j = from;
    let plus = false;
    if (s[j] === '-' || s[j] === '+') { plus = s[j] === '+'; j++; }
    const intFrom = j;
    while (isDigit(s[j])) j++;
    const intDigits = j - intFrom;
    let frac = -1;
    if (s[j] === '.') { j++; const f = j; while (isDigit(s[j])) j++; frac = j - f; }
    if ((s[j] === 'e' || s[j] === 'E') && (isDigit(s[j + 1]) || ((s[j + 1] === '-' || s[j + 1] === '+') && isDigit(s[j + 2])))) {
      j += 2;
      while (isDigit(s[j])) j++;
    }
    const next = s[j];
    const wordGoesOn = next !== undefined && (isIdentPart(next) || next === '-' || next === ':' || next === '/' || (next === '.' && isDigit(s[j + 1])));
    const leadingZero = intDigits > 1 && s[intFrom] === '0';
    if ((wordGoesOn || leadingZero) && ctx !== Ctx.Key) {
      if (ctx === Ctx.Top && !leadingZero) return this.stop('a number runs into other characters');
      return this.bare(ctx === Ctx.Top ? Ctx.Item : ctx, from);
    }
    const n = Number(s.slice(plus ? from + 1 : from, j));
    if (!Number.isFinite(n)) this.stop('a number too large to be finite', from);
    if (plus) this.fix('syntax', 'removed unary + before a number');
    if (intDigits === 0 || frac === 0) this.fix('syntax', 'completed a number written without a digit before or after the point');
    this.i = j;
    return n;
  }

  private word(ctx: Ctx): unknown {
    const s = this.s;
    const from = this.i;
    let j = from;
    while (j < s.length && isIdentPart(s[j]!)) j++;
    while (s[j] === '.' && isIdentStart(s[j + 1] ?? ' ')) { j++; while (j < s.length && isIdentPart(s[j]!)) j++; }
    const name = s.slice(from, j);
    if (s[j] === '(' && ctx !== Ctx.Key) {
      this.i = j;
      this.fix('call', 'read Python call syntax');
      return this.call(name);
    }
    if (/^(?:[rRuUbBfF]|[rR][bB]|[bB][rR])$/.test(name) && (s[j] === '"' || s[j] === "'")) {
      this.i = j;
      this.fix('syntax', 'read a Python string prefix');
      return this.string(ctx, /[rR]/.test(name));
    }
    const lit = Object.hasOwn(LITERALS, name) ? LITERALS[name] : undefined;
    if (lit && this.endsToken(j)) {
      if (lit.fix) this.fix(lit.fix[0], lit.fix[1]);
      this.i = j;
      return lit.value;
    }
    if (j >= s.length && ctx !== Ctx.Top) {
      const cut = CUT_LITERALS.find((w) => w.startsWith(name) && w !== name);
      if (cut) {
        this.fix('truncate', `completed truncated literal ${name} -> ${cut.toLowerCase() === 'none' ? 'null' : cut.toLowerCase()}`);
        this.i = j;
        return LITERALS[cut]!.value;
      }
    }
    if (ctx === Ctx.Value || ctx === Ctx.Item) return this.bare(ctx, from);
    if (ctx === Ctx.Arg) return this.stop(`the bare name ${name} is a variable, not a value`, from);
    return this.stop(`a bare word "${name}" is not a value here`, from);
  }

  /** True when the token ending at `j` is followed by a separator, a closer or the end. */
  private endsToken(j: number): boolean {
    const s = this.s;
    while (s[j] === ' ' || s[j] === '\t') j++;
    const c = s[j];
    return c === undefined || c === ',' || c === '}' || c === ']' || c === ')' || c === '\n' || c === '\r' || c === ':' || c === '/' || c === '#';
  }

  /** An unquoted string value: it runs to the next separator, or in an object to the next key. */
  private bare(ctx: Ctx, from: number): string {
    const s = this.s;
    let j = from;
    let depth = 0;
    for (; j < s.length; j++) {
      const c = s[j]!;
      if (c === '(' || c === '[' || c === '{') { depth++; continue; }
      if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) break;
        depth--;
        continue;
      }
      if (depth > 0) continue;
      if (c === ',') {
        if (ctx !== Ctx.Value) break;
        if (this.keyAhead(j + 1) || this.closerAhead(j + 1)) break;
      } else if (c === '\n' && (ctx !== Ctx.Value || this.keyAhead(j + 1) || this.closerAhead(j + 1))) break;
    }
    let text = s.slice(from, j).trim();
    if (text === '') this.stop('an empty bare value', from);
    if (text.length > 1 && (text.endsWith('"') || text.endsWith("'")) && !text.slice(0, -1).includes(text.at(-1)!)) {
      text = text.slice(0, -1);
      this.fix('syntax', 'added a missing start quote');
    }
    this.i = from + s.slice(from, j).trimEnd().length;
    this.fix('bare', 'quoted bare string values');
    return text;
  }

  /** The offset of the next token at or after `j`: white space and comments skipped. */
  private tokenAt(j: number): number {
    const s = this.s;
    for (;;) {
      while (isSpace(s[j])) j++;
      if (s[j] === '/' && s[j + 1] === '/') { const nl = s.indexOf('\n', j); if (nl < 0) return s.length; j = nl; continue; }
      if (s[j] === '/' && s[j + 1] === '*') { const e = s.indexOf('*/', j + 2); if (e < 0) return s.length; j = e + 2; continue; }
      return j;
    }
  }

  /** True when the text at `j` is (white space, then) a key and a colon. */
  private keyAhead(j: number): boolean {
    const s = this.s;
    j = this.tokenAt(j);
    const c = s[j];
    if (c === undefined) return false;
    if (c === '"' || c === "'" || c === '`') {
      const end = s.indexOf(c, j + 1);
      if (end < 0) return false;
      const nl = s.indexOf('\n', j + 1);
      if (nl >= 0 && nl < end) return false;
      j = end + 1;
    } else if (isIdentStart(c)) {
      while (j < s.length && (isIdentPart(s[j]!) || s[j] === '-' || s[j] === '.')) j++;
    } else return false;
    while (s[j] === ' ' || s[j] === '\t') j++;
    return s[j] === ':' || (s[j] === '=' && s[j + 1] !== '=');
  }

  private closerAhead(j: number): boolean {
    const s = this.s;
    j = this.tokenAt(j);
    const c = s[j];
    return c === undefined || c === '}' || c === ']' || c === ')';
  }

  /** True when the text at `j` could start a value (used to decide where a string ends). */
  private valueAhead(j: number, ctx: Ctx): boolean {
    const s = this.s;
    j = this.tokenAt(j);
    const c = s[j];
    if (c === undefined || c === '}' || c === ']' || c === ')') return true;
    if (ctx === Ctx.Arg && this.keywordAhead(j) !== null) return true;
    if (isQuote(c) || isDigit(c) || c === '-' || c === '{' || c === '[') return true;
    for (const w of ['true', 'false', 'null', 'True', 'False', 'None']) if (s.startsWith(w, j) && !isIdentPart(s[j + w.length] ?? ' ')) return true;
    return false;
  }



  /** Does a quote at `j` close the string? Decided by what follows it. */
  private closes(j: number, ctx: Ctx): boolean {
    const s = this.s;
    let k = j + 1;
    while (s[k] === ' ' || s[k] === '\t') k++;
    const f = s[k];
    if (f === undefined || f === '\n' || f === '\r') return true;
    if (f === '}' || f === ']' || f === ')') return this.open.includes(f);
    if (ctx === Ctx.Top) return f === ',' || f === '+' || (f === '/' && (s[k + 1] === '/' || s[k + 1] === '*'));
    if (f === ':') return ctx === Ctx.Key || ctx === Ctx.Item;
    if (ctx === Ctx.Key) return !(k === j + 1 && isIdentPart(f));
    if (f === '/' && (s[k + 1] === '/' || s[k + 1] === '*')) return true;
    if (f === '#') return true;
    if (f === ',') {
      if (ctx === Ctx.Value) return this.keyAhead(k + 1) || this.closerAhead(k + 1);
      if (ctx === Ctx.Item) return true;
      return this.valueAhead(k + 1, ctx);
    }
    // a missing comma: the next key (in an object) or the next value (in a list) follows at once
    if (k > j + 1 || isQuote(f)) return ctx === Ctx.Value ? this.keyAhead(k) : this.valueAhead(k, ctx);
    return false;
  }

  /**
   * Where a string whose closing quote is missing really ends: at the first
   * delimiter in it after which the structure goes on (a closer that an open
   * container expects, a comma before the next key or value, a line break).
   * Returns the offset of that delimiter, or -1.
   */
  private missingQuoteEnd(from: number, to: number, ctx: Ctx): number {
    const s = this.s;
    for (let p = from; p < to; p++) {
      const c = s[p];
      if (c === '\n') return p;
      if ((c === '}' || c === ']' || c === ')') && this.open.includes(c)) return p;
      if (c === ',') {
        if (ctx === Ctx.Item || ctx === Ctx.Arg) return p;
        if (ctx === Ctx.Value && (this.keyAhead(p + 1) || this.closerAhead(p + 1))) return p;
      }
    }
    return -1;
  }

  private string(ctx: Ctx, raw: boolean): unknown {
    const s = this.s;
    const q = s[this.i]!;
    if ((q === '"' || q === "'" || q === '`') && s.startsWith(q + q + q, this.i)) return this.triple(q);
    const close = CURLY_CLOSE[q] ?? q;
    if (q === "'") this.fix('syntax', 'replaced single quotes');
    else if (q === '`') this.fix('syntax', 'read a backtick string');
    else if (q !== '"') this.fix('syntax', 'replaced curly quotes');
    let out = '';
    const start = this.i + 1;
    let j = start;
    let chunk = j;
    for (;;) {
      if (j >= s.length) {
        const cut = ctx === Ctx.Top || ctx === Ctx.Key || raw ? -1 : this.missingQuoteEnd(start, s.length, ctx);
        this.fix('truncate', 'closed an unterminated string');
        if (cut >= 0 && !out.includes('\\')) return this.endAt(start, cut);
        out += s.slice(chunk);
        this.i = s.length;
        return out;
      }
      const c = s[j]!;
      if (c === '\\' && q !== '`') {
        out += s.slice(chunk, j);
        const e = s[j + 1];
        if (raw) { out += '\\' + (e ?? ''); j += 2; }
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(j + 2, j + 6))) { out += String.fromCharCode(parseInt(s.slice(j + 2, j + 6), 16)); j += 6; }
        else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(j + 2, j + 4))) { out += String.fromCharCode(parseInt(s.slice(j + 2, j + 4), 16)); j += 4; }
        else if (e === undefined) { j += 1; }
        else { out += ESCAPES[e] ?? e; j += 2; }
        chunk = j;
        continue;
      }
      if (c === close || (close !== q && c === '"')) {
        if (this.closes(j, ctx)) {
          out += s.slice(chunk, j);
          this.i = j + 1;
          return this.concatenated(out, ctx);
        }
        if (ctx === Ctx.Value || ctx === Ctx.Item) {
          const body = s.slice(start, j);
          const nl = body.indexOf('\n');
          const comma = /,\s*$/.test(body) && (ctx === Ctx.Item ? this.valueAhead(j, ctx) : this.keyAhead(j));
          if (nl >= 0 || comma) {
            const cut = this.missingQuoteEnd(start, j, ctx);
            if (cut >= 0) { this.fix('truncate', 'closed a string whose end quote is missing'); return this.endAt(start, cut); }
          }
        }
        this.fix('quote', 'kept an unescaped quote inside a string');
      } else if (c === '\n' && q !== '`') {
        this.fix('syntax', 'escaped a control character in a string');
      }
      j++;
    }
  }

  /** `"a" + "b"`: the strings joined, named. */
  private concatenated(first: string, ctx: Ctx): string {
    const s = this.s;
    const plus = this.tokenAt(this.i);
    if (s[plus] !== '+') return first;
    const next = this.tokenAt(plus + 1);
    if (s[next] !== '"' && s[next] !== "'") return first;
    this.i = next;
    const rest = this.string(ctx, false);
    this.fix('syntax', 'joined concatenated strings');
    return first + String(rest);
  }

  /** End a string at `cut` (its closing quote was missing): the text up to it, trailing space trimmed; the cursor stays at the delimiter. */
  private endAt(start: number, cut: number): string {
    this.i = cut;
    return decodeSimple(this.s.slice(start, cut).trimEnd());
  }

  /** `"""…"""`, `'''…'''`, or a ``` block used as a value (language tag dropped, common indent removed). */
  private triple(q: string): string {
    const s = this.s;
    const from = this.i + 3;
    const end = s.indexOf(q + q + q, from);
    let body = end < 0 ? s.slice(from) : s.slice(from, end);
    this.i = end < 0 ? s.length : end + 3;
    if (end < 0) this.fix('truncate', 'closed an unterminated string');
    if (q === '`') {
      this.fix('syntax', 'read a code block as a string');
      const nl = body.indexOf('\n');
      if (nl >= 0 && /^[\w+#.-]*\s*$/.test(body.slice(0, nl))) body = body.slice(nl + 1);
      return dedent(body.replace(/\n[ \t]*$/, ''));
    }
    this.fix('syntax', 'read a triple-quoted string');
    return body.replace(/\\(["'\\nt])/g, (_, e: string) => ESCAPES[e] ?? e);
  }
}

/** The common escapes of a string body (used when a string is re-cut). */
function decodeSimple(body: string): string {
  return body.includes('\\') ? body.replace(/\\(.)/g, (_, e: string) => ESCAPES[e] ?? e) : body;
}

/** Remove the indent every non-blank line shares. */
export function dedent(text: string): string {
  const lines = text.split('\n');
  let common = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = /^[ \t]*/.exec(line)![0].length;
    if (indent < common) common = indent;
  }
  if (!Number.isFinite(common) || common === 0) return text;
  return lines.map((l) => l.slice(Math.min(common, /^[ \t]*/.exec(l)![0].length))).join('\n');
}

/** Set an own property, also for "__proto__". */
function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
