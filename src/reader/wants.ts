/**
 * What a schema's root asks of a text, for the ladder to choose its
 * readings: a plain string (the raw-text rung, below), a number, an array,
 * a string among other types — and whether a text is one JSON object or list
 * from end to end (prose readings never apply to such a text).
 *
 * The raw-text rung: when the schema asks for a plain string (or a string or
 * null) — no enum, no const — the text itself is the answer, kept exactly:
 * surrounding quotes, leading and trailing white space and fences included.
 * Stripping quotes would be a guess about what the writer meant (a
 * quotation, a shell word, a JSON literal); the text is what was written.
 * Only `null` (when the schema admits null) reads as something else, and
 * empty or blank text is refused by the ladder before this rung. This rung
 * never reads JSON out of the text. (It lived in ladder/rungs/raw.ts; it
 * reads text, not values, so it sits with the reader.)
 */
import type { Fix } from './fixes.js';

type Node = Record<string, unknown>;

/** True when the schema's declared type admits strings and nothing but string/null, with no enum or const. */
export function wantsString(schema: Node): boolean {
  if ('enum' in schema || 'const' in schema) return false;
  const t = schema.type;
  if (t === 'string') return true;
  return Array.isArray(t) && t.includes('string') && t.every((x) => x === 'string' || x === 'null');
}

/** True when the schema's root admits a string among other things (`["integer", "string"]`, an anyOf with a string branch). */
export function admitsString(schema: Node): boolean {
  const t = schema.type;
  if (t === 'string' || (Array.isArray(t) && t.includes('string'))) return !('enum' in schema) && !('const' in schema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => b !== null && typeof b === 'object' && admitsString(b as Node))) return true;
  }
  return false;
}

/** The raw text as the value, exactly as written, with its fix. */
export function takeRaw(text: string): { value: string; fixes: Fix[] } {
  return { value: text, fixes: [{ rung: 'raw', text: 'took the raw text as the string value' }] };
}

/** True when the schema's root is a number or integer. */
export function wantsNumber(schema: Node): boolean {
  const t = schema.type;
  return t === 'number' || t === 'integer' || (Array.isArray(t) && (t.includes('number') || t.includes('integer')) && !t.includes('string') && !t.includes('array'));
}

/** Whether the schema's root asks for an array ('yes'), admits one among anything ('maybe'), or not. */
export function wantsArray(schema: Node): 'yes' | 'maybe' | 'no' {
  const t = schema.type;
  if (t === 'array' || (Array.isArray(t) && t.includes('array') && !t.includes('object'))) return 'yes';
  return t === undefined && !('properties' in schema) && !('anyOf' in schema) && !('oneOf' in schema) && !('enum' in schema) && !('const' in schema) ? 'maybe' : 'no';
}

const STRUCTURED = /^\s*(?:\{[\s\S]*\}|\[[\s\S]*\])\s*$/;

/** True when the text is one JSON object or list from end to end. */
export function isOneStructure(text: string): boolean {
  return STRUCTURED.test(text);
}
