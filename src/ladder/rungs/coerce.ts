/**
 * Rung 0e, coercion by schema type: a value of the wrong JSON type is turned
 * into the declared one when the text plainly means it — "5" -> 5, "true" ->
 * true (and the harness boolean vocabulary yes/no/on/off/1/0), 1 -> "1",
 * "null"/"" -> null, JSON text inside a string -> the object or array.
 *
 * Refusals are the point as much as the coercions: an integer field given
 * "1.5" or 1.5 is refused, never rounded; "Infinity", "1a" and "" are not
 * numbers; null (abstention) is never turned into 0, "" or false, because
 * that would invent a value the text does not hold. Wrapping in and unwrapping
 * from one-element arrays is decided by the caller (conform.ts), which knows
 * the whole schema node.
 */
import { jsonrepair } from 'jsonrepair';
import { leadingNumber, numberOf } from '../../reader/prose.js';
import { quietly } from '../../reader/strict.js';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

const NUMERIC = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);
const NULL_WORDS = new Set(['null', 'none', 'nil', '', 'n/a', 'n.a.', 'not available', 'not applicable']);

/** The JSON type name of a parsed value ("integer" is never returned; see admits). */
export function jsonTypeOf(value: unknown): Exclude<JsonType, 'integer'> {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object';
}

/** True when `value` is of JSON type `type` (integers count as numbers). */
export function admits(type: JsonType, value: unknown): boolean {
  const actual = jsonTypeOf(value);
  if (type === 'integer') return actual === 'number' && Number.isInteger(value);
  return actual === type || (type === 'number' && actual === 'number');
}

/**
 * Turn `value` into JSON type `type`, or undefined when the text does not
 * plainly mean it. `guess` marks a number read off the front of a phrase
 * ("1 cup butter" -> 1), which the caller prices as prose, not coercion.
 */
export function coerceTo(value: unknown, type: JsonType): { value: unknown; guess?: true } | undefined {
  const from = jsonTypeOf(value);
  switch (type) {
    case 'number':
    case 'integer': {
      if (from !== 'string') return undefined;
      const text = value as string;
      let n = NUMERIC.test(text) ? Number(text.trim()) : numberOf(text);
      let guess: true | undefined;
      if (n === undefined) {
        n = leadingNumber(text);
        guess = true;
      }
      if (n === undefined || !Number.isFinite(n)) return undefined;
      if (type === 'integer' && !Number.isInteger(n)) return undefined;
      return guess ? { value: n, guess } : { value: n };
    }
    case 'boolean': {
      if (from === 'number') return value === 1 ? { value: true } : value === 0 ? { value: false } : undefined;
      if (from !== 'string') return undefined;
      // "Yes." and "**true**" mean yes and true; the words themselves stay the closed list above
      const word = (value as string).trim().toLowerCase().replace(/^[*_`"']+|[*_`"'.!]+$/g, '');
      if (word === '') return undefined;
      return TRUE_WORDS.has(word) ? { value: true } : FALSE_WORDS.has(word) ? { value: false } : undefined;
    }
    case 'null':
      return from === 'string' && NULL_WORDS.has((value as string).trim().toLowerCase()) ? { value: null } : undefined;
    case 'string':
      return from === 'number' || from === 'boolean' ? { value: String(value) } : undefined;
    case 'object':
    case 'array': {
      if (from !== 'string') return undefined;
      const inner = parseEmbedded(value as string);
      return inner !== undefined && jsonTypeOf(inner.value) === type ? inner : undefined;
    }
  }
}

/** JSON text inside a string: strict first, then jsonrepair; only text that opens with { or [. */
function parseEmbedded(text: string): { value: unknown } | undefined {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  return quietly(() => ({ value: JSON.parse(t) as unknown })) ?? quietly(() => ({ value: JSON.parse(jsonrepair(t)) as unknown }));
}
