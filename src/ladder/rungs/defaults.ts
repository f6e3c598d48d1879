/**
 * Rung 0f, defaults from the schema: a missing property whose schema has a
 * `default` gets a copy of it, and the fix is named ("filled limit with
 * default 10"). The walk follows the schema the way validation does —
 * `$ref`, `allOf`, the first `anyOf` / `oneOf` alternative the value fits —
 * so a tool call gets the defaults of its own tool only. A default is the only
 * value the ladder ever adds that is not in the text; present values are
 * never overwritten and null is a present value.
 */
import { childPointer, fitsAt, nodeAt } from '../schemas.js';
import type { SchemaHandle } from '../types.js';
import { pathLabel, type Fix } from '../../reader/fixes.js';
import { setOwn } from './keys.js';

type Path = (string | number)[];
type Node = Record<string, unknown>;

/** Add the defaults of `properties` that `obj` lacks (mutates and returns `obj`). */
export function fillDefaults(obj: Node, properties: Record<string, unknown>, path: Path, fixes: Fix[]): Node {
  for (const [key, sub] of Object.entries(properties)) {
    if (Object.hasOwn(obj, key) || sub === null || typeof sub !== 'object' || !('default' in sub)) continue;
    const value = structuredClone((sub as Node).default);
    setOwn(obj, key, value);
    fixes.push({ rung: 'defaults', text: `filled ${pathLabel([...path, key])} with default ${JSON.stringify(value)}` });
  }
  return obj;
}

/** Apply every schema default to a value that already fits; returns a new value when anything was added. */
export function applyDefaults(value: unknown, handle: SchemaHandle): { value: unknown; fixes: Fix[] } {
  const fixes: Fix[] = [];
  const out = walk(value, handle.json, '', [], handle, fixes, 0);
  return { value: out, fixes };
}

/** Follow the schema the way the validator does and fill defaults on the way. */
function walk(value: unknown, node: unknown, ptr: string, path: Path, handle: SchemaHandle, fixes: Fix[], depth: number): unknown {
  if (node === null || typeof node !== 'object' || value === null || typeof value !== 'object' || depth > 64) return value;
  const s = node as Node;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    const target = decodeURIComponent(s.$ref.slice(1));
    value = walk(value, nodeAt(handle, target), target, path, handle, fixes, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    s.allOf.forEach((sub, i) => { value = walk(value, sub, childPointer(childPointer(ptr, 'allOf'), i), path, handle, fixes, depth + 1); });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    const i = branches.findIndex((_, j) => fitsAt(handle, childPointer(childPointer(ptr, key), j), value));
    if (i >= 0) value = walk(value, branches[i], childPointer(childPointer(ptr, key), i), path, handle, fixes, depth + 1);
  }
  if (Array.isArray(value)) {
    const items = s.items;
    if (!items || typeof items !== 'object' || Array.isArray(items)) return value;
    const itemPtr = childPointer(ptr, 'items');
    return value.map((item, i) => walk(item, items, itemPtr, [...path, i], handle, fixes, depth + 1));
  }
  const props = s.properties;
  if (!props || typeof props !== 'object') return value;
  const out: Node = { ...(value as Node) };
  for (const [key, sub] of Object.entries(props as Node)) {
    if (Object.hasOwn(out, key)) out[key] = walk(out[key], sub, childPointer(childPointer(ptr, 'properties'), key), [...path, key], handle, fixes, depth + 1);
  }
  return fillDefaults(out, props as Node, path, fixes);
}
