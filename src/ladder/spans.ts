/**
 * Level 4, the span rule: a non-null value of a field marked `x-extractive`
 * (at any depth) must occur verbatim in the provider's input. A string must
 * be a substring of the source; a number must equal a numeric token of it;
 * an extractive object or array has each of its scalar leaves checked. null
 * is abstention and is never span-checked. The walk follows the schema like
 * validation does (`$ref`, `allOf`, the first fitting `anyOf`/`oneOf`
 * alternative). This is the dangerous failure kind: a value the model made up.
 */
import { childPointer, fitsAt, nodeAt } from './schemas.js';
import type { SchemaHandle } from './types.js';

type Node = Record<string, unknown>;

/** The first extractive value that does not occur in `source`, as an error message; null when all do. */
export function checkSpans(value: unknown, handle: SchemaHandle, source: string): string | null {
  const numbers = lazyNumbers(source);
  return walk(value, handle.json, '', '', false, handle, source, numbers, 0);
}

/** Numeric tokens of the source, computed on first need. */
function lazyNumbers(source: string): () => Set<number> {
  let cached: Set<number> | null = null;
  return () => (cached ??= new Set(Array.from(source.matchAll(/-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g), (m) => Number(m[0]))));
}

function walk(value: unknown, node: unknown, ptr: string, where: string, extractive: boolean, handle: SchemaHandle, source: string, numbers: () => Set<number>, depth: number): string | null {
  if (value === null || depth > 64) return null;
  const s = node !== null && typeof node === 'object' ? (node as Node) : {};
  const marked = extractive || s['x-extractive'] === true;
  const here = where === '' ? '/' : where;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    const target = decodeURIComponent(s.$ref.slice(1));
    const err = walk(value, nodeAt(handle, target), target, where, marked, handle, source, numbers, depth + 1);
    if (err) return err;
  }
  if (Array.isArray(s.allOf)) {
    for (let i = 0; i < s.allOf.length; i++) {
      const err = walk(value, s.allOf[i], childPointer(childPointer(ptr, 'allOf'), i), where, marked, handle, source, numbers, depth + 1);
      if (err) return err;
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    const i = branches.findIndex((_, j) => fitsAt(handle, childPointer(childPointer(ptr, key), j), value));
    if (i < 0) continue;
    const err = walk(value, branches[i], childPointer(childPointer(ptr, key), i), where, marked, handle, source, numbers, depth + 1);
    if (err) return err;
  }
  if (Array.isArray(value)) {
    const items = s.items;
    for (let i = 0; i < value.length; i++) {
      const sub = items && typeof items === 'object' && !Array.isArray(items) ? items : {};
      const err = walk(value[i], sub, childPointer(ptr, 'items'), `${where}/${i}`, marked, handle, source, numbers, depth + 1);
      if (err) return err;
    }
    return null;
  }
  if (typeof value === 'object') {
    const props = (s.properties && typeof s.properties === 'object' ? s.properties : {}) as Node;
    for (const [key, member] of Object.entries(value as Node)) {
      const sub = Object.hasOwn(props, key) ? props[key] : s.additionalProperties;
      const subPtr = Object.hasOwn(props, key) ? childPointer(childPointer(ptr, 'properties'), key) : childPointer(ptr, 'additionalProperties');
      const err = walk(member, sub, subPtr, `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, marked, handle, source, numbers, depth + 1);
      if (err) return err;
    }
    return null;
  }
  if (!marked) return null;
  if (typeof value === 'number') {
    return numbers().has(value) ? null : `${here}: ${value} does not occur in the source; an x-extractive field must be copied from the input verbatim, or be null`;
  }
  const text = String(value);
  if (source.includes(text)) return null;
  const shown = text.length > 80 ? text.slice(0, 77) + '...' : text;
  return `${here}: ${JSON.stringify(shown)} does not occur in the source; an x-extractive field must be copied from the input verbatim, or be null`;
}
