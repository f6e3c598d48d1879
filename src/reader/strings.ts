/**
 * Quoted strings for the tolerant reader: double, single, backtick and
 * curly quotes, Python raw strings, escapes, triple quotes and ``` blocks
 * used as values, strings joined with `+`, and the hard part — deciding
 * whether a quote closes the string or is an unescaped quote inside it, and
 * where a string whose closing quote is missing really ends. Both are
 * decided by what follows the quote in the surrounding structure, which is
 * why this reads over the shared cursor (cursor.ts) rather than on its own.
 */
import { Ctx, Cursor, isDigit, isIdentPart, isQuote } from './cursor.js';

const CURLY_CLOSE: Record<string, string> = { '\u201c': '\u201d', '\u2018': '\u2019' };
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

export abstract class StringReader extends Cursor {
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
    // `"say "yes"", …`: of two quotes in a row the second closes when it can, the first is part of the text
    if (k === j + 1 && f === s[j] && this.closes(k, ctx)) return false;
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
      // a line break ends it when the structure goes on after it; output cut off after a line break keeps it
      if (c === '\n' && this.structureAfterBreak(p + 1, ctx)) return p;
      if ((c === '}' || c === ']' || c === ')') && this.open.includes(c)) return p;
      if (c === ',') {
        if (ctx === Ctx.Item || ctx === Ctx.Arg) return p;
        if (ctx === Ctx.Value && (this.keyAhead(p + 1) || this.closerAhead(p + 1))) return p;
      }
    }
    return -1;
  }

  /** After a line break inside a string that lacks its end quote: does the structure go on (a key, a closer, the next item)? */
  private structureAfterBreak(j: number, ctx: Ctx): boolean {
    const t = this.tokenAt(j);
    const c = this.s[t];
    if (c === undefined) return false;
    if (c === '}' || c === ']' || c === ')') return true;
    if (ctx === Ctx.Value) return this.keyAhead(t);
    return ctx !== Ctx.Item && ctx !== Ctx.Arg ? true : isQuote(c) || isDigit(c) || c === '{' || c === '[' || c === '-';
  }

  protected string(ctx: Ctx, raw: boolean): unknown {
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

  /** `"""…"""`, `'''…'''`, or a ``` block used as a value (language tag dropped, common indent removed, then trimmed). */
  private triple(q: string): string {
    const s = this.s;
    const from = this.i + 3;
    const end = s.indexOf(q + q + q, from);
    let body = end < 0 ? s.slice(from) : s.slice(from, end);
    this.i = end < 0 ? s.length : end + 3;
    if (end < 0) this.fix('truncate', 'closed an unterminated string');
    if (q === '`') {
      this.fix('block', 'read a code block as a string');
      const nl = body.indexOf('\n');
      if (nl >= 0 && /^[\w+#.-]*\s*$/.test(body.slice(0, nl))) body = body.slice(nl + 1);
      return dedent(body).trim();
    }
    this.fix('block', 'read a triple-quoted string');
    return dedent(body.replace(/\\(["'\\nt])/g, (_, e: string) => ESCAPES[e] ?? e)).trim();
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
