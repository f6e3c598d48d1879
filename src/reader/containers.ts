/**
 * Containers for the tolerant reader: objects (bare or quoted keys, `=` for
 * `:`, missing or extra commas, duplicate keys), lists and tuples, and
 * Python calls `name(positional..., key=value...)` returned as a `PyCall`.
 * They share one shape — open, read elements, close — and with it the
 * bracket repairs: a closer that an outer container expects closes through,
 * output cut off at the end is closed, and a closer that matches nothing
 * open, a `key: value` inside a list or an empty call argument stops the
 * read. Their elements are read back through the cursor's `value`.
 */
import { Ctx, isDigit, isIdentStart, isQuote } from './cursor.js';
import { StringReader } from './strings.js';

/** A Python-style call read from the text: `name(positional..., key=value...)`. */
export class PyCall {
  constructor(
    readonly name: string,
    readonly positional: unknown[],
    readonly keywords: [string, unknown][],
  ) {}
}

/**
 * How one kind of container treats what sits between its brackets. An object
 * and a list forgive (a comma too many or too few, a trailing comma, an
 * ellipsis, a closer of an outer container); a call forgives none of these.
 */
interface Shape {
  /** the bracket that closes it */
  readonly closer: string;
  /** the object or list ("an object", "a list") that forgives, or the name of the call that does not */
  readonly forgiving: { what: string } | { call: string };
  /** Read one element at the cursor; true ends the container there. */
  element(): boolean;
  /** After an element, at `n` (not a comma); true ends the container there. */
  after(n: string | undefined): boolean;
}

export abstract class ContainerReader extends StringReader {
  /**
   * The one shape of every container: step over the opener, read elements
   * between commas until the closer, repair or stop as the shape says, and
   * leave the cursor after the closer.
   */
  private elements(shape: Shape): void {
    const s = this.s;
    const f = shape.forgiving;
    this.i++;
    this.push(shape.closer);
    let afterComma = false;
    let first = true;
    for (;;) {
      this.skip();
      const c = s[this.i];
      if (c === undefined) { this.fix('truncate', 'closed output cut off at the end'); break; }
      if (c === shape.closer) {
        if (afterComma && 'what' in f) this.fix('syntax', 'removed trailing comma');
        this.i++;
        break;
      }
      if (c === ']' || c === '}' || c === ')') {
        if ('call' in f) this.stop(`a stray "${c}" inside the call ${f.call}(…)`);
        this.closeThrough(c, f.what);
        break;
      }
      if (c === ',') {
        if (first || afterComma) {
          if ('call' in f) this.stop(`an empty argument in the call ${f.call}(…)`);
          this.fix('syntax', 'removed an extra comma');
        }
        this.i++;
        afterComma = true;
        continue;
      }
      if ('what' in f && this.ellipsis()) continue;
      if (!first && !afterComma) {
        if ('call' in f) this.stop(`expected "," or ")" in the call ${f.call}(…)`);
        this.fix('syntax', 'inserted a missing comma');
      }
      if (shape.element()) break;
      first = false;
      afterComma = false;
      this.skip();
      const n = s[this.i];
      if (n === ',') { this.i++; afterComma = true; continue; }
      if (shape.after(n)) break;
    }
    this.open.pop();
  }

  protected object(): Record<string, unknown> {
    const s = this.s;
    const out: Record<string, unknown> = {};
    let key = '';
    this.elements({
      closer: '}',
      forgiving: { what: 'an object' },
      element: () => {
        const quotedKey = isQuote(s[this.i]);
        key = this.key();
        this.skip();
        if (s[this.i] === ':') this.i++;
        else if (quotedKey && (isQuote(s[this.i]) || isDigit(s[this.i]) || s[this.i] === '{' || s[this.i] === '[' || s[this.i] === '-')) this.fix('syntax', 'inserted a missing colon');
        else if (s[this.i] === '=' && s[this.i + 1] !== '=') { this.i++; this.fix('syntax', 'read "=" as ":"'); }
        else if (this.i >= s.length) { this.fix('truncate', 'filled a value cut off at the end with null'); setKey(out, key, null); return true; }
        else this.stop(`expected ":" after the key ${JSON.stringify(key)}`);
        const v = this.value(Ctx.Value);
        if (Object.hasOwn(out, key)) this.fix('syntax', `kept the last of duplicate keys ${key}`);
        setKey(out, key, v);
        return false;
      },
      after: (n) => {
        if (n === undefined || n === '}' || n === ']' || n === ')') return false;
        if ((n === '{' || n === '[') && this.open.at(-2) === ']') { this.fix('bracket', 'closed an object left open'); return true; }
        if (!(isQuote(n) || isIdentStart(n) || isDigit(n))) this.stop(`expected "," or "}" after the value of ${JSON.stringify(key)}`);
        return false;
      },
    });
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

  protected array(closer: string): unknown[] {
    const s = this.s;
    const out: unknown[] = [];
    this.elements({
      closer,
      forgiving: { what: 'a list' },
      element: () => { out.push(this.value(Ctx.Item)); return false; },
      after: (n) => {
        if (n === ':' || (n === '=' && s[this.i + 1] !== '=')) this.stop('a "key: value" pair inside a list');
        if (n === undefined || n === ']' || n === '}' || n === ')') return false;
        if (!(isQuote(n) || isIdentStart(n) || isDigit(n) || n === '{' || n === '[' || n === '-')) this.stop(`expected "," or "${closer}" in a list`);
        return false;
      },
    });
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
  protected call(name: string): PyCall {
    const positional: unknown[] = [];
    const keywords: [string, unknown][] = [];
    this.elements({
      closer: ')',
      forgiving: { call: name },
      element: () => {
        const kw = this.keywordAhead();
        if (kw !== null) {
          this.i = kw.valueAt;
          keywords.push([kw.name, this.value(Ctx.Arg)]);
        } else {
          if (keywords.length) this.stop(`a positional argument after a keyword argument in ${name}(…)`);
          positional.push(this.value(Ctx.Arg));
        }
        return false;
      },
      after: (n) => {
        if (n !== undefined && n !== ')') this.stop(`expected "," or ")" in the call ${name}(…)`);
        return false;
      },
    });
    return new PyCall(name, positional, keywords);
  }
}

/** Set an own property, also for "__proto__". */
function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
