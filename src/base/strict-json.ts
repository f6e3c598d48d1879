/**
 * JSON read strictly: one meaning per text, and errors that quote nothing.
 *
 * JSON.parse keeps the last of two equal keys, so a manifest saying
 * `"effect": "destructive"` and then `"effect": "read_only"` loads as
 * read-only while a person reading it sees destructive first. And V8's syntax
 * error quotes the text it failed on — from a file planted as a link to
 * /etc/shadow, that is a secret in a log. This scanner walks the JSON grammar
 * (RFC 8259) once to find the first syntax error's line and column, and every
 * key that repeats within one object with the line of both; only a text that
 * passes is handed to JSON.parse for its value, so the value is exactly what
 * JSON.parse gives (including how it treats "__proto__").
 *
 * It reads text; files are src/base/safe-open.ts's.
 */

/** A key that appears twice in one object: where each stands. */
export interface DuplicateKey {
  /** the object's place as a dotted key path ("" for the top level) */
  path: string;
  key: string;
  firstLine: number;
  line: number;
}

export type StrictJson = { value: unknown } | { problem: string; line: number; column: number } | { duplicates: DuplicateKey[] };

class Stop extends Error {
  constructor(readonly at: number, readonly what: string) {
    super(what);
  }
}

const MAX_DEPTH = 512;

/** Scan `text` as JSON; a syntax error is named by line and column (never quoted), duplicate keys are listed. */
export function parseJsonStrict(text: string): StrictJson {
  const quick = parsedWithoutDuplicates(text);
  return quick ?? scan(text);
}

/**
 * The common case, at JSON.parse's speed: a text JSON.parse takes, whose objects hold as many keys
 * as the text has members. In valid JSON every member has exactly one ':' outside the strings,
 * and a key said twice leaves the parsed object one key short, so equal counts mean no key
 * repeats. Anything else (an error, a duplicate) is for the scanner, which says where.
 */
function parsedWithoutDuplicates(text: string): { value: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  let members = 0;
  let inString = false;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (inString) {
      if (c === 0x5c) k++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) members++;
  }
  return keysIn(value, 0) === members ? { value } : null;
}

/** Every key of every object within a parsed JSON value; NaN past the scanner's depth limit (the scanner says so). */
function keysIn(v: unknown, depth: number): number {
  if (v === null || typeof v !== 'object') return 0;
  if (depth >= MAX_DEPTH) return NaN;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) n += keysIn(x, depth + 1);
    return n;
  }
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    n += 1 + keysIn((v as Record<string, unknown>)[k], depth + 1);
  }
  return n;
}

/** The grammar walked character by character: the first syntax error's place, or every repeated key. */
function scan(text: string): StrictJson {
  let i = 0;
  const dups: DuplicateKey[] = [];
  const lineAt = (at: number): number => {
    let n = 1;
    for (let k = 0; k < at && k < text.length; k++) if (text.charCodeAt(k) === 10) n++;
    return n;
  };
  const ws = (): void => {
    while (i < text.length) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else break;
    }
  };
  const string = (): string => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) throw new Stop(i, 'a string is not closed');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      }
      if (c < 0x20) throw new Stop(i, 'a control character stands unescaped inside a string');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, 'a \\u escape needs four hex digits');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else throw new Stop(i, 'an unknown escape inside a string');
      } else i++;
    }
  };
  const number = (): void => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') throw new Stop(i, 'a value was expected');
    i += m[0].length;
  };
  const value = (path: string, depth: number): void => {
    if (depth > MAX_DEPTH) throw new Stop(i, `nested deeper than ${MAX_DEPTH} levels`);
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Map<string, number>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') throw new Stop(i, 'a key in quotes was expected');
        const at = i;
        const key = string();
        const first = seen.get(key);
        if (first !== undefined) dups.push({ path, key, firstLine: lineAt(first), line: lineAt(at) });
        else seen.set(key, at);
        ws();
        if (text[i] !== ':') throw new Stop(i, 'a colon after the key was expected');
        i++;
        value(path === '' ? key : `${path}.${key}`, depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        throw new Stop(i, 'a comma or a closing brace was expected');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(path === '' ? String(n) : `${path}.${n}`, depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        throw new Stop(i, 'a comma or a closing bracket was expected');
      }
    }
    if (c === '"') {
      string();
      return;
    }
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    number();
  };
  try {
    value('', 0);
    ws();
    if (i < text.length) throw new Stop(i, 'more text follows the JSON value');
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    const before = text.slice(0, err.at);
    const line = before.split('\n').length;
    const column = err.at - before.lastIndexOf('\n');
    const what = text.trim() === '' ? 'it is empty, not JSON' : `it is not JSON: ${err.what}`;
    return { problem: `${what} (at line ${line}, column ${column})`, line, column };
  }
  if (dups.length > 0) return { duplicates: dups };
  return { value: JSON.parse(text) };
}

/** A duplicate key in words: the key, the object it is in, and both lines. */
export function describeDuplicate(d: DuplicateKey): string {
  const key = d.key.length > 60 ? `${d.key.slice(0, 60)}…` : d.key;
  return `key ${JSON.stringify(key)}${d.path === '' ? '' : ` in ${d.path}`} appears twice, at line ${d.firstLine} and again at line ${d.line}; JSON keeps only the last`;
}
