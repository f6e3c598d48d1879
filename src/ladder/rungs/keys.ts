/**
 * Rung 0d, key normalisation against the schema: "maxResults", "Max Results"
 * and "max-results" become "max_results"; an unambiguous near miss
 * ("querry") becomes "query" when the object is closed or the key it stands
 * for is required and missing; unknown keys of a closed object are dropped.
 *
 * An open object keeps keys it does not know — they may be legitimate data —
 * and no key is renamed onto one already present. Values are not touched here.
 */
import { pathLabel, type Fix } from '../../reader/fixes.js';
import { nearName, sameName } from '../match.js';

export interface ObjectShape {
  properties: Record<string, unknown>;
  patterns: RegExp[];
  closed: boolean;
  required: string[];
}

/** Read the object keywords of a schema node. */
export function shapeOf(node: Record<string, unknown>): ObjectShape {
  const props = node.properties;
  const patterns = node.patternProperties && typeof node.patternProperties === 'object'
    ? Object.keys(node.patternProperties).flatMap((p) => { try { return [new RegExp(p, 'u')]; } catch { return []; } })
    : [];
  return {
    properties: props && typeof props === 'object' ? (props as Record<string, unknown>) : {},
    patterns,
    closed: node.additionalProperties === false || node.unevaluatedProperties === false,
    required: Array.isArray(node.required) ? (node.required as string[]) : [],
  };
}

/** Rename and drop keys of `obj` against `shape`; returns a new object. */
export function normaliseKeys(obj: Record<string, unknown>, shape: ObjectShape, path: (string | number)[], fixes: Fix[], keepUnknown = false): Record<string, unknown> {
  const known = Object.keys(shape.properties);
  const isKnown = (k: string): boolean => Object.hasOwn(shape.properties, k) || shape.patterns.some((re) => re.test(k));
  const out: Record<string, unknown> = {};
  const taken = new Set(Object.keys(obj).filter(isKnown));
  for (const [key, value] of Object.entries(obj)) {
    if (isKnown(key)) { setOwn(out, key, value); continue; }
    const free = known.filter((k) => !taken.has(k));
    let target = sameName(key, free);
    if (!target) {
      const near = nearName(key, free);
      if (near && (shape.closed || shape.required.includes(near))) target = near;
    }
    const where = path.length ? ` in ${pathLabel(path)}` : '';
    if (target) {
      taken.add(target);
      setOwn(out, target, value);
      fixes.push({ rung: 'keys', text: `renamed ${key} -> ${target}${where}` });
    } else if (shape.closed && !keepUnknown) {
      fixes.push({ rung: 'drop', text: `dropped unknown key ${key}${where} (closed object)` });
    } else {
      setOwn(out, key, value);
    }
  }
  return out;
}

/** Set an own, enumerable property — also for a key such as "__proto__", which plain assignment would swallow. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}
