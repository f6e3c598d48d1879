/**
 * Unquoted tokens for the tolerant reader: numbers (a leading `+`, a point
 * with no digit beside it, none that is not finite), literals (JSON's, the
 * Python and upper-case ones, `undefined`, one cut off at the end), Python
 * string prefixes, a name followed by `(` (a call, read by containers.ts),
 * and bare words kept as strings where a value is expected. What is not a
 * value — a bare variable name as a call argument, a word where a key or
 * the top-level value should be — stops the read with its offset.
 */
import type { Rung } from './fixes.js';
import { ContainerReader } from './containers.js';
import { Ctx, isDigit, isIdentPart, isIdentStart } from './cursor.js';

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

export abstract class WordReader extends ContainerReader {
  /**
   * A number written with thousands separators inside a value (`-2,000.00`,
   * `1,234,567`): groups of exactly three digits after a lead of one to three.
   * In an object's field it is taken when the structure goes on after it (the
   * next key, a closer, the end); in a list only when it cannot be two JSON
   * numbers (a fraction follows, or a group starts with 0): `[1,234]` stays two.
   */
  private thousands(intFrom: number, intEnd: number, ctx: Ctx): { value: number; end: number } | null {
    const s = this.s;
    const lead = intEnd - intFrom;
    if (s[intEnd] !== ',' || lead < 1 || lead > 3 || (lead > 1 && s[intFrom] === '0')) return null;
    if (ctx !== Ctx.Value && ctx !== Ctx.Item) return null;
    let k = intEnd;
    let zeroGroup = false;
    while (s[k] === ',' && isDigit(s[k + 1]) && isDigit(s[k + 2]) && isDigit(s[k + 3]) && !isDigit(s[k + 4])) {
      if (s[k + 1] === '0') zeroGroup = true;
      k += 4;
    }
    if (k === intEnd) return null;
    let fraction = false;
    if (s[k] === '.' && isDigit(s[k + 1])) { fraction = true; k++; while (isDigit(s[k])) k++; }
    if (isIdentPart(s[k] ?? ' ') || s[k] === '.') return null;
    if (ctx === Ctx.Item && !fraction && !zeroGroup) return null;
    if (ctx === Ctx.Value) {
      const after = this.tokenAt(k);
      const c = s[after];
      const goesOn = c === undefined || c === '}' || c === ']' || c === '\n' || (c === ',' && (this.keyAhead(after + 1) || this.closerAhead(after + 1)));
      if (!goesOn) return null;
    }
    return { value: Number(s.slice(intFrom, k).replace(/,/g, '')), end: k };
  }

  protected number(ctx: Ctx): unknown {
    const s = this.s;
    const from = this.i;
    let j = from;
    let plus = false;
    if (s[j] === '-' || s[j] === '+') { plus = s[j] === '+'; j++; }
    const intFrom = j;
    while (isDigit(s[j])) j++;
    const intDigits = j - intFrom;
    const grouped = this.thousands(intFrom, j, ctx);
    if (grouped !== null) {
      this.i = grouped.end;
      this.fix('syntax', 'read a number written with thousands separators');
      return s[from] === '-' ? -grouped.value : grouped.value;
    }
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

  protected word(ctx: Ctx): unknown {
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
  protected bare(ctx: Ctx, from: number): string {
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
}
