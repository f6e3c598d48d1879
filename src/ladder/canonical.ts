/**
 * Canonical JSON: one spelling per value, so that equal documents hash equal.
 *
 * Keys are sorted by code unit, no whitespace is emitted, and `undefined`
 * object members are left out exactly as JSON.stringify leaves them out. Other
 * modules use this for digests (schemas, composition documents); it is not a
 * pretty-printer and it does not implement RFC 8785 number formatting beyond
 * what JSON.stringify already gives for finite numbers.
 */
import { createHash } from 'node:crypto';

/** Stringify `value` with sorted keys and no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`canonicalJson: ${typeof value} has no JSON form`);
    return text;
  }
  if (Array.isArray(value)) {
    return '[' + value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',') + ']';
  }
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const member = obj[key];
    if (member === undefined || typeof member === 'function') continue;
    parts.push(JSON.stringify(key) + ':' + canonicalJson(member));
  }
  return '{' + parts.join(',') + '}';
}

/** sha256 (hex) of the canonical JSON of `value`. */
export function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
