/**
 * The reader's cursor: the state every part of the tolerant reader shares —
 * the text, the offset, the fixes taken so far and the closers of the open
 * containers — with the moves every part makes on it (skip white space and
 * comments, record a fix, stop with an offset, open and close through a
 * container) and the look-aheads that decide where a token ends (a key and
 * a colon, a closer, a keyword argument). It is the lowest file of the
 * reader so that strings.ts, containers.ts and words.ts build on it without
 * importing each other in a circle; the one way back up, reading a nested
 * value, is the abstract `value` that scan.ts fills.
 */
import type { Fix, Rung } from './fixes.js';

export const MAX_DEPTH = 200;

/** Where a value stands: it decides where a bare word ends and which quote closes a string. */
export const enum Ctx { Top, Value, Item, Arg, Key }

export class Stop {
  constructor(readonly error: string, readonly at: number) {}
}

export function isIdentStart(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 128) return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || c === '_' || c === '$';
  return /\p{L}/u.test(c);
}
export function isIdentPart(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 128) return isIdentStart(c) || (code >= 48 && code <= 57);
  return /[\p{L}\p{N}]/u.test(c);
}
export function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
export function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0' || c === '\ufeff';
}
export function isQuote(c: string | undefined): boolean {
  return c === '"' || c === "'" || c === '`' || c === '\u201c' || c === '\u2018';
}

/** The shared state of one read; the parts extend it, scan.ts's Reader is the one instance. */
export abstract class Cursor {
  i: number;
  readonly fixes = new Map<string, Fix>();
  /** the closers of the open containers, innermost last */
  protected readonly open: string[] = [];

  constructor(readonly s: string, start: number) {
    this.i = start;
  }

  /** Read one value at the cursor: the dispatch on its first character (scan.ts). */
  abstract value(ctx: Ctx): unknown;

  protected fix(rung: Rung, text: string): void {
    if (!this.fixes.has(text)) this.fixes.set(text, { rung, text });
  }

  protected stop(error: string, at = this.i): never {
    throw new Stop(error, at);
  }

  /** Skip white space and comments (`//`, `/* *\/`, and `#` to the end of the line). */
  protected skip(): void {
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

  protected push(closer: string): void {
    if (this.open.length >= MAX_DEPTH) this.stop(`the value nests deeper than ${MAX_DEPTH} levels`);
    this.open.push(closer);
  }

  /** A closer that is not the innermost one: close through when an outer container expects it, else it is stray. */
  protected closeThrough(c: string, what: string): boolean {
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

  /** The offset of the next token at or after `j`: white space and comments skipped. */
  protected tokenAt(j: number): number {
    const s = this.s;
    for (;;) {
      while (isSpace(s[j])) j++;
      if (s[j] === '/' && s[j + 1] === '/') { const nl = s.indexOf('\n', j); if (nl < 0) return s.length; j = nl; continue; }
      if (s[j] === '/' && s[j + 1] === '*') { const e = s.indexOf('*/', j + 2); if (e < 0) return s.length; j = e + 2; continue; }
      return j;
    }
  }

  /** True when the text at `j` is (white space, then) a key and a colon. */
  protected keyAhead(j: number): boolean {
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
    } else if (isDigit(c) || (c === '-' && isDigit(s[j + 1]))) {
      // a map key written as a bare number: {5: "b", -1: "c"}
      j++;
      while (j < s.length && (isDigit(s[j]) || s[j] === '.')) j++;
    } else return false;
    while (s[j] === ' ' || s[j] === '\t') j++;
    return s[j] === ':' || (s[j] === '=' && s[j + 1] !== '=');
  }

  protected closerAhead(j: number): boolean {
    const s = this.s;
    j = this.tokenAt(j);
    const c = s[j];
    return c === undefined || c === '}' || c === ']' || c === ')';
  }

  /** `name =` (not `==`) at `at` (the cursor by default): a keyword argument. */
  protected keywordAhead(at = this.i): { name: string; valueAt: number } | null {
    const s = this.s;
    if (!isIdentStart(s[at] ?? ' ')) return null;
    let j = at + 1;
    while (j < s.length && isIdentPart(s[j]!)) j++;
    const name = s.slice(at, j);
    while (s[j] === ' ' || s[j] === '\t') j++;
    if (s[j] !== '=' || s[j + 1] === '=') return null;
    return { name, valueAt: j + 1 };
  }
}
