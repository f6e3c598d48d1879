/**
 * JSON Schema → GBNF (llama.cpp's grammar format), for the subset the
 * planner's and the reducers' schemas use, so a small model decodes only
 * values the schema admits (design §7: narrow the output space). It covers
 * what node-llama-cpp's own builder leaves out — `pattern` (the regular
 * expression subset JSON-schema patterns use, translated into rules),
 * `minLength` / `maxLength`, `enum` and `const` of any JSON value — and
 * objects, arrays (`minItems` / `maxItems`), `anyOf` / `oneOf`, type lists,
 * integers (their digit count bounded by `minimum` / `maximum`), numbers,
 * booleans and null.
 *
 * Whatever it cannot express exactly it refuses, naming the place and the
 * reason (a lookahead in a pattern, a back-reference, a `$ref` outside the
 * schema), rather than
 * build a looser grammar silently: the caller reports the refusal, and the
 * validation ladder still checks every value. String content is kept to
 * characters a JSON string carries unescaped, so a pattern that admits a
 * quote or a backslash is narrowed to one that does not. Pure.
 */

export class GrammarRefused extends Error {
  override name = 'GrammarRefused';
}

type Schema = Record<string, unknown>;

/** The largest bounded repetition written out (llama.cpp refuses much larger ones). */
export const MAX_REPEAT = 256;

/** One JSON string character, unescaped: no quote, backslash or control character. */
const CHAR = '[^"\\\\\\x00-\\x1F\\x7F]';

class Builder {
  readonly rules = new Map<string, string>();
  /** the rule name of each local $ref, made before its body so a schema may refer to itself */
  readonly refs = new Map<string, string>();
  private readonly reserved = new Set<string>();
  /** anyOf / oneOf branches left out because they cannot become a grammar, each with its reason */
  readonly dropped: string[] = [];
  private n = 0;

  constructor(readonly root: Schema) {}

  /** A name reserved now, its body set later. */
  reserve(hint: string): string {
    const name = `${hint.replace(/[^a-z0-9-]/gi, '-').toLowerCase().slice(0, 24) || 'r'}-${this.n++}`;
    this.rules.set(name, '""');
    this.reserved.add(name);
    return name;
  }

  add(hint: string, body: string): string {
    for (const [name, b] of this.rules) if (b === body && !this.reserved.has(name)) return name;
    const name = `${hint.replace(/[^a-z0-9-]/gi, '-').toLowerCase().slice(0, 24) || 'r'}-${this.n++}`;
    this.rules.set(name, body);
    return name;
  }

  /** The grammar text. `ws` admits no whitespace: compact JSON, so a small model with a short max_tokens spends none on spacing (a spaced answer ran out of tokens mid-object). */
  text(root: string): string {
    return [`root ::= ${root}`, 'ws ::= ""', ...[...this.rules].map(([k, v]) => `${k} ::= ${v}`)].join('\n');
  }
}

/** A GBNF string literal for a text. */
function lit(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

/** The GBNF literal of a JSON value (an enum or const member). */
function jsonLit(v: unknown): string {
  return lit(JSON.stringify(v));
}

// ---- regular expressions (the subset JSON-schema patterns use) ----

interface Rx { src: string; at: number; where: string }

function refuse(rx: Rx, why: string): never {
  throw new GrammarRefused(`${rx.where}: pattern ${JSON.stringify(rx.src)} cannot become a grammar: ${why} (at character ${rx.at + 1})`);
}

/** A character as a member of a GBNF character class. */
function classChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === ']' || c === '[' || c === '\\' || c === '^' || c === '-' || code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0').toUpperCase()}`;
  return c;
}

/** A char class body safe inside a JSON string: quote and backslash never admitted. */
function safeClass(members: string, negated: boolean): string {
  return negated ? `[^"\\\\\\x00-\\x1F\\x7F${members}]` : `[${members}]`;
}

const SHORTHAND: Record<string, [string, boolean]> = {
  d: ['0-9', false], D: ['0-9', true], w: ['A-Za-z0-9_', false], W: ['A-Za-z0-9_', true], s: [' \\t\\n\\r', false], S: [' \\t\\n\\r', true],
};

/** Read one escaped character after a backslash (not a shorthand); returns the character. */
function escaped(rx: Rx): string {
  const c = rx.src[rx.at]!;
  if (c === undefined) refuse(rx, 'a pattern may not end with a backslash');
  if (/[1-9]/.test(c)) refuse(rx, 'back-references have no grammar');
  if (c === 'b' || c === 'B') refuse(rx, 'word boundaries have no grammar');
  if (c === 'u') {
    const hex = rx.src.slice(rx.at + 1, rx.at + 5);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) refuse(rx, 'a \\u escape needs four hex digits');
    rx.at += 5;
    return String.fromCharCode(parseInt(hex, 16));
  }
  if (c === 'x') {
    const hex = rx.src.slice(rx.at + 1, rx.at + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) refuse(rx, 'a \\x escape needs two hex digits');
    rx.at += 3;
    return String.fromCharCode(parseInt(hex, 16));
  }
  rx.at++;
  return ({ n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', '0': '\0' } as Record<string, string>)[c] ?? c;
}

/** A character class [...] from its opening bracket. */
function charClass(rx: Rx): string {
  rx.at++; // [
  let negated = false;
  if (rx.src[rx.at] === '^') { negated = true; rx.at++; }
  let members = '';
  let first = true;
  while (rx.at < rx.src.length && (rx.src[rx.at] !== ']' || first)) {
    first = false;
    let c = rx.src[rx.at]!;
    if (c === '\\') {
      rx.at++;
      const s = SHORTHAND[rx.src[rx.at]!];
      if (s) {
        if (s[1]) refuse(rx, 'a negated shorthand inside a class has no grammar');
        members += s[0];
        rx.at++;
        continue;
      }
      c = escaped(rx);
    } else rx.at++;
    if (rx.src[rx.at] === '-' && rx.src[rx.at + 1] !== ']' && rx.at + 1 < rx.src.length) {
      rx.at++;
      let hi = rx.src[rx.at]!;
      if (hi === '\\') { rx.at++; hi = escaped(rx); } else rx.at++;
      members += `${classChar(c)}-${classChar(hi)}`;
    } else if (!(c === '"' || c === '\\') || negated) {
      members += classChar(c);
    }
  }
  if (rx.src[rx.at] !== ']') refuse(rx, 'an unclosed character class');
  rx.at++;
  if (!members && !negated) refuse(rx, 'an empty character class');
  return safeClass(members, negated);
}

/** A quantifier after an atom, or null. */
function quantifier(rx: Rx): string | null {
  const c = rx.src[rx.at];
  let q: string | null = null;
  if (c === '?' || c === '*' || c === '+') { q = c; rx.at++; }
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rx.src.slice(rx.at));
    if (!m) refuse(rx, 'a malformed {n,m} quantifier');
    rx.at += m[0].length;
    q = m[2] === undefined ? `{${m[1]}}` : `{${m[1]},${m[3] ?? ''}}`;
  }
  if (q && (rx.src[rx.at] === '?' || rx.src[rx.at] === '+')) refuse(rx, 'lazy and possessive quantifiers have no grammar');
  return q;
}

/** An alternation (the whole pattern, or a group's body) up to `)` or the end. */
function alternation(rx: Rx, depth: number): string {
  const branches: string[] = [];
  let seq: string[] = [];
  while (rx.at < rx.src.length) {
    const c = rx.src[rx.at]!;
    if (c === ')') {
      if (depth === 0) refuse(rx, 'an unmatched ")"');
      break;
    }
    if (c === '|') { branches.push(seq.join(' ') || '""'); seq = []; rx.at++; continue; }
    let atom: string;
    if (c === '(') {
      rx.at++;
      if (rx.src[rx.at] === '?') {
        if (rx.src[rx.at + 1] === ':') rx.at += 2;
        else refuse(rx, 'lookarounds and named groups have no grammar');
      }
      atom = `(${alternation(rx, depth + 1)})`;
      if (rx.src[rx.at] !== ')') refuse(rx, 'an unclosed group');
      rx.at++;
    } else if (c === '[') atom = charClass(rx);
    else if (c === '.') { atom = CHAR; rx.at++; }
    else if (c === '^') {
      if (!(rx.at === 0 || (depth === 0 && seq.length === 0 && rx.src[rx.at - 1] === '|'))) refuse(rx, 'a "^" inside the pattern has no grammar');
      rx.at++;
      continue;
    } else if (c === '$') {
      rx.at++;
      const atEnd = rx.at === rx.src.length || rx.src[rx.at] === '|' || rx.src[rx.at] === ')';
      if (!atEnd) refuse(rx, 'a "$" inside the pattern has no grammar');
      continue;
    } else if (c === '\\') {
      rx.at++;
      const s = SHORTHAND[rx.src[rx.at]!];
      if (s) { atom = s[1] ? safeClass(s[0], true) : `[${s[0]}]`; rx.at++; }
      else {
        const ch = escaped(rx);
        if (ch === '"' || ch === '\\') refuse(rx, 'a quote or backslash in a pattern needs JSON escaping, which the grammar does not model');
        atom = lit(ch);
      }
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      refuse(rx, 'a quantifier with nothing before it');
    } else {
      rx.at++;
      if (c === '"') refuse(rx, 'a quote in a pattern needs JSON escaping, which the grammar does not model');
      atom = lit(c);
    }
    const q = quantifier(rx);
    const prev = seq[seq.length - 1];
    // "n" "o" "w" reads better as "now": merge a literal into the literal before it
    if (!q && atom.startsWith('"') && prev !== undefined && /^"(?:[^"\\]|\\.)*"$/.test(prev)) seq[seq.length - 1] = `${prev.slice(0, -1)}${atom.slice(1)}`;
    else seq.push(q ? `${atom.startsWith('"') || atom.startsWith('[') || atom.startsWith('(') ? atom : `(${atom})`}${q}` : atom);
  }
  branches.push(seq.join(' ') || '""');
  return branches.length === 1 ? branches[0]! : branches.join(' | ');
}

/** The GBNF for a string matching a JSON-schema pattern (searched, as JSON Schema does, unless anchored). */
export function patternRule(pattern: string, where = 'pattern'): string {
  const rx: Rx = { src: pattern, at: 0, where };
  const anchoredStart = pattern.startsWith('^');
  const anchoredEnd = /(?<!\\)\$$/.test(pattern);
  // "^a|b$" anchors each branch on one side only: say so rather than guess
  let depth = 0;
  let topBar = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') { i++; continue; }
    if (c === '[') { while (i < pattern.length && pattern[i] !== ']') { if (pattern[i] === '\\') i++; i++; } continue; }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) topBar = true;
  }
  if (topBar && (anchoredStart || anchoredEnd)) refuse(rx, 'a top-level "|" beside anchors (write ^(?:a|b)$)');
  const body = alternation(rx, 0);
  return `${anchoredStart ? '' : `${CHAR}* `}(${body})${anchoredEnd ? '' : ` ${CHAR}*`}`;
}

// ---- schemas ----

function integerRule(s: Schema): string {
  const min = typeof s.minimum === 'number' ? s.minimum : null;
  const max = typeof s.maximum === 'number' ? s.maximum : null;
  const digits = min !== null && max !== null ? Math.max(String(Math.abs(Math.trunc(min))).length, String(Math.abs(Math.trunc(max))).length) : 15;
  const neg = min === null || min < 0;
  const pos = max === null || max >= 0;
  const mag = `("0" | [1-9] [0-9]{0,${Math.max(0, digits - 1)}})`;
  if (neg && pos) return `"-"? ${mag}`;
  if (neg) return `"-" ${mag}`;
  return mag;
}

function stringRule(s: Schema, b: Builder, where: string): string {
  if (typeof s.pattern === 'string') {
    if (s.minLength !== undefined || s.maxLength !== undefined) {
      // both apply; the pattern is the stronger shape, and the ladder checks the length
    }
    return `"\\"" ${b.add('pattern', patternRule(s.pattern, where))} "\\""`;
  }
  const min = Math.min(typeof s.minLength === 'number' ? s.minLength : 0, MAX_REPEAT);
  // llama.cpp expands a bounded repetition into rules and refuses large ones: a bound above
  // MAX_REPEAT is left to the sampler's token limit and the ladder's length check
  const max = typeof s.maxLength === 'number' && s.maxLength <= MAX_REPEAT ? s.maxLength : null;
  return `"\\"" ${CHAR}{${min},${max ?? ''}} "\\""`;
}

function objectRule(s: Schema, b: Builder, where: string): string {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const names = Object.keys(props);
  if (names.length === 0) return '"{" ws "}"';
  const kv = names.map((k) => `${jsonLit(k)} ws ":" ws ${rule(props[k]!, b, `${where}.${k}`)}`);
  // after(i): the rest from property i once something was written (each needs a comma);
  // first(i): the rest from property i with nothing written yet
  const after: string[] = [];
  const first: string[] = [];
  for (let i = names.length; i >= 0; i--) {
    if (i === names.length) { after[i] = '""'; first[i] = '""'; continue; }
    const nextAfter = after[i + 1] === '""' ? '' : ` ${after[i + 1]}`;
    const take = `"," ws ${kv[i]}${nextAfter}`;
    after[i] = b.add('obj', required.has(names[i]!) ? take : `${take} | ${after[i + 1]}`);
    const takeFirst = `${kv[i]}${nextAfter}`;
    first[i] = b.add('obj', required.has(names[i]!) ? takeFirst : `${takeFirst} | ${first[i + 1]}`);
  }
  return `"{" ws ${first[0]} ws "}"`;
}

function arrayRule(s: Schema, b: Builder, where: string): string {
  const item = s.items && typeof s.items === 'object' ? rule(s.items as Schema, b, `${where}[]`) : valueRule(b);
  const min = typeof s.minItems === 'number' ? s.minItems : 0;
  const max = typeof s.maxItems === 'number' ? s.maxItems : null;
  const it = b.add('item', item);
  if (max === 0) return '"[" ws "]"';
  const more = `("," ws ${it}){${Math.max(0, min - 1)},${max === null ? '' : max - 1}}`;
  const list = `${it} ${more}`;
  return min === 0 ? `"[" ws (${list})? ws "]"` : `"[" ws ${list} ws "]"`;
}

function valueRule(b: Builder): string {
  return b.add('any', `${jsonLit(null)} | "true" | "false" | "\\"" ${CHAR}* "\\"" | "-"? [0-9]+ ("." [0-9]+)?`);
}

/** The rule for one schema. */
function rule(s: Schema, b: Builder, where: string): string {
  if (typeof s !== 'object' || s === null) refuse({ src: '', at: 0, where }, 'not a schema');
  if (s.$ref !== undefined) {
    const ref = String(s.$ref);
    const known = b.refs.get(ref);
    if (known) return known;
    if (!ref.startsWith('#/')) throw new GrammarRefused(`${where}: "$ref" ${JSON.stringify(ref)} points outside the schema; only local references ("#/...") have a grammar`);
    let target: unknown = b.root;
    for (const key of ref.slice(2).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))) {
      target = target !== null && typeof target === 'object' ? (target as Schema)[key] : undefined;
    }
    if (target === null || typeof target !== 'object') throw new GrammarRefused(`${where}: "$ref" ${JSON.stringify(ref)} names nothing in the schema`);
    const name = b.reserve(ref.split('/').pop() ?? 'ref');
    b.refs.set(ref, name);
    b.rules.set(name, rule(target as Schema, b, ref));
    return name;
  }
  if ('const' in s) return jsonLit(s.const);
  if (Array.isArray(s.enum)) return `(${(s.enum as unknown[]).map(jsonLit).join(' | ')})`;
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(alts)) return altsRule(alts, b, where);
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.length > 1) return `(${types.map((t) => rule({ ...s, type: t }, b, where)).join(' | ')})`;
  switch (types[0]) {
    case 'string': return stringRule(s, b, where);
    case 'integer': return integerRule(s);
    case 'number': return '"-"? [0-9]+ ("." [0-9]+)? ([eE] [-+]? [0-9]+)?';
    case 'boolean': return '("true" | "false")';
    case 'null': return '"null"';
    case 'object': return objectRule(s, b, where);
    case 'array': return arrayRule(s, b, where);
    case undefined: return valueRule(b);
    default: throw new GrammarRefused(`${where}: type ${JSON.stringify(types[0])} has no grammar`);
  }
}

/**
 * The alternatives of an anyOf / oneOf. A branch that cannot become a grammar is left out while
 * another one can (the grammar only narrows: the plan grammar over several tools still serves the
 * tools it can express, and the one it cannot is simply not emitted); the refusal is kept in
 * `b.dropped`. When no branch can, the first refusal stands.
 */
function altsRule(alts: readonly Schema[], b: Builder, where: string): string {
  const kept: string[] = [];
  const refused: GrammarRefused[] = [];
  alts.forEach((a, i) => {
    try {
      kept.push(b.add('alt', rule(a, b, `${where}|${i}`)));
    } catch (e) {
      if (!(e instanceof GrammarRefused)) throw e;
      refused.push(e);
    }
  });
  if (kept.length === 0) throw refused[0] ?? new GrammarRefused(`${where}: an empty anyOf admits nothing`);
  b.dropped.push(...refused.map((e) => e.message));
  return `(${kept.join(' | ')})`;
}

/** The GBNF grammar for a schema; throws GrammarRefused naming what it cannot translate. */
export function gbnfFor(schema: Record<string, unknown>, name = 'schema'): string {
  const b = new Builder(schema);
  return b.text(b.add('value', rule(schema, b, name)));
}
