/**
 * Rung for string schemas: when the schema asks for a plain string (or a
 * string or null) — no enum, no const — the text itself is the answer, kept
 * exactly: surrounding quotes, leading and trailing white space and fences
 * included. Stripping quotes would be a guess about what the writer meant
 * (a quotation, a shell word, a JSON literal); the text is what was written.
 * Only `null` (when the schema admits null) reads as something else, and
 * empty or blank text is refused by the ladder before this rung. This rung
 * never reads JSON out of the text.
 */
import type { Fix } from '../fixes.js';

/** True when the schema's declared type admits strings and nothing but string/null, with no enum or const. */
export function wantsString(schema: Record<string, unknown>): boolean {
  if ('enum' in schema || 'const' in schema) return false;
  const t = schema.type;
  if (t === 'string') return true;
  return Array.isArray(t) && t.includes('string') && t.every((x) => x === 'string' || x === 'null');
}

/** True when the schema's root admits a string among other things (`["integer", "string"]`, an anyOf with a string branch). */
export function admitsString(schema: Record<string, unknown>): boolean {
  const t = schema.type;
  if (t === 'string' || (Array.isArray(t) && t.includes('string'))) return !('enum' in schema) && !('const' in schema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => b !== null && typeof b === 'object' && admitsString(b as Record<string, unknown>))) return true;
  }
  return false;
}

/** The raw text as the value, exactly as written, with its fix. */
export function takeRaw(text: string): { value: string; fixes: Fix[] } {
  return { value: text, fixes: [{ rung: 'raw', text: 'took the raw text as the string value' }] };
}
