/**
 * Enum (and const) matching, part of the coercion rung: a value that is not
 * one of the allowed members is mapped onto the member it plainly names —
 * same text up to case, whitespace and separators ("Warning " -> "warning"),
 * the same number written as text ("2" -> 2), an unambiguous near miss
 * ("warnig"), or an unambiguous prefix of at least three letters ("crit").
 * Two equally good members mean no match: the ladder then refuses. For tool
 * arguments (`caseOnly`) only case, accents and separators may differ: a
 * value outside a tool's enum is an error, not a near miss to guess at.
 */
import { foldName, nearName, sameName } from '../match.js';

/** Deep JSON equality (key order free). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The member of `members` that `value` plainly names, or undefined. */
export function matchEnum(value: unknown, members: readonly unknown[], caseOnly = false): { value: unknown } | undefined {
  if (members.some((m) => jsonEqual(m, value))) return { value };
  if (typeof value === 'number' || typeof value === 'boolean') {
    const hits = members.filter((m) => typeof m === 'string' && m.trim() === String(value));
    return hits.length === 1 ? { value: hits[0] } : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const numeric = members.filter((m) => typeof m === 'number' && value.trim() !== '' && Number(value.trim()) === m);
  if (numeric.length === 1) return { value: numeric[0] };
  const strings = members.filter((m): m is string => typeof m === 'string');
  const same = sameName(value, strings) ?? (caseOnly ? null : nearName(value, strings));
  if (same !== null) return { value: same };
  if (caseOnly) return undefined;
  const folded = foldName(value);
  if (folded.length >= 3) {
    const prefixed = strings.filter((s) => foldName(s).startsWith(folded));
    if (prefixed.length === 1) return { value: prefixed[0] };
  }
  return undefined;
}
