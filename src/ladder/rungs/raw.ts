/**
 * Rung for string schemas: when the schema asks for a string (or a string or
 * null), the text itself is the answer, trimmed of surrounding whitespace.
 * A JSON string literal that already fits is taken first by the strict rung;
 * this rung never reads JSON out of the text.
 */
import type { Fix } from '../../reader/fixes.js';

/** True when the schema's declared type admits strings and nothing but string/null. */
export function wantsString(schema: Record<string, unknown>): boolean {
  const t = schema.type;
  if (t === 'string') return true;
  return Array.isArray(t) && t.includes('string') && t.every((x) => x === 'string' || x === 'null');
}

/** The raw text as the value, with its fix. */
export function takeRaw(text: string): { value: string; fixes: Fix[] } {
  return { value: text.trim(), fixes: [{ rung: 'raw', text: 'took the raw text as the string value' }] };
}
