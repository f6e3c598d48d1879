/**
 * The value-level rungs, driven by the schema: key normalisation (keys.ts),
 * coercion by type (coerce.ts), enum matching (enum.ts), one-element array
 * wrapping and unwrapping (an enum's or const's type is its members'; an
 * object goes into a list whose items want objects), the one value of a
 * one-key object where a scalar is wanted (`pluck`; several keys are left to
 * be refused, and tool-call arguments are never unwrapped), a field's
 * sentence read as the one member it names (read/prose.ts; for a union of
 * literals against all of them, after its branches), and defaults for
 * missing properties (defaults.ts).
 *
 * The walk follows the schema — local `$ref`s, `allOf`, `anyOf` / `oneOf`
 * (every alternative is tried on its own and the one needing the fewest fixes
 * wins), `properties`, `additionalProperties`, `items` / `prefixItems` — and
 * leaves alone every part that already fits its sub-schema, so a valid field
 * is never "repaired". It does not report errors: the caller checks the result
 * with checkValue and refuses with a classified error when it still fails.
 */
import { childPointer, fitsAt, nodeAt } from '../schemas.js';
import type { SchemaHandle } from '../types.js';
import { costOf, pathLabel, type Fix } from '../../reader/fixes.js';
import { admits, coerceTo, jsonTypeOf, type JsonType } from './coerce.js';
import { jsonEqual, matchEnum } from './enum.js';
import { normaliseKeys, setOwn, shapeOf } from './keys.js';
import { fillDefaults } from './defaults.js';
import { literalsOf, memberIn } from '../../reader/prose.js';

type Path = (string | number)[];
type Node = Record<string, unknown>;

interface Walk {
  handle: SchemaHandle;
  fixes: Fix[];
  depth: number;
  /** keep unknown keys of closed objects (so validation refuses them) instead of dropping them */
  keepUnknown: boolean;
  wrapScalars: boolean;
  /** inside a one-key object being tried as a scalar: no second unwrapping */
  plucking?: boolean;
  /** trying one branch of a union of literals: prose is read against the whole union, not one branch */
  inUnion?: boolean;
}

export interface ConformOptions {
  /** tool-call arguments: an argument the tool does not declare is an error, not a key to drop, and enum members match only up to case */
  keepUnknown?: boolean;
  /** false for prose read as a string: such text is never wrapped into an object's required field */
  wrapScalars?: boolean;
}

const MAX_DEPTH = 64;

/** Repair `value` against the whole schema; returns the new value and the fixes made. */
export function conform(value: unknown, handle: SchemaHandle, opts: ConformOptions = {}): { value: unknown; fixes: Fix[] } {
  const walk: Walk = { handle, fixes: [], depth: 0, keepUnknown: opts.keepUnknown === true, wrapScalars: opts.wrapScalars !== false };
  const out = visit(value, handle.json, '', [], walk);
  return { value: out, fixes: walk.fixes };
}

/** Repair one value against the schema node at `ptr`. */
function visit(value: unknown, node: unknown, ptr: string, path: Path, walk: Walk): unknown {
  if (node === null || typeof node !== 'object' || walk.depth > MAX_DEPTH) return value;
  if (fitsAt(walk.handle, ptr, value)) return value;
  const s = node as Node;
  walk.depth++;
  try {
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
      const target = decodeURIComponent(s.$ref.slice(1));
      value = visit(value, nodeAt(walk.handle, target), target, path, walk);
      if (fitsAt(walk.handle, ptr, value)) return value;
    }
    if (Array.isArray(s.allOf)) {
      s.allOf.forEach((sub, i) => { value = visit(value, sub, childPointer(childPointer(ptr, 'allOf'), i), path, walk); });
    }
    const union = Array.isArray(s.anyOf) || Array.isArray(s.oneOf);
    const literals = union && typeof value === 'string' && !walk.keepUnknown ? literalsOf(s) : null;
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(s[key])) value = chooseBranch(value, s[key] as unknown[], childPointer(ptr, key), path, { ...walk, inUnion: walk.inUnion || literals !== null }, walk);
    }
    if (literals && !walk.inUnion && path.length > 0 && typeof value === 'string' && !fitsAt(walk.handle, ptr, value)) value = proseMember(value, literals, path, walk);
    return visitType(value, s, ptr, path, walk);
  } finally {
    walk.depth--;
  }
}

/** Try every alternative on its own; keep the fitting result with the fewest fixes. */
function chooseBranch(value: unknown, branches: unknown[], ptr: string, path: Path, walk: Walk, into: Walk = walk): unknown {
  let best: { value: unknown; fixes: Fix[] } | null = null;
  branches.forEach((branch, i) => {
    const bptr = childPointer(ptr, i);
    const trial: Walk = { handle: walk.handle, fixes: [], depth: walk.depth, keepUnknown: walk.keepUnknown, wrapScalars: walk.wrapScalars, plucking: walk.plucking, inUnion: walk.inUnion };
    const v = visit(value, branch, bptr, path, trial);
    if (fitsAt(walk.handle, bptr, v) && (!best || costOf(trial.fixes) < costOf(best.fixes))) best = { value: v, fixes: trial.fixes };
  });
  if (!best) return value;
  const chosen = best as { value: unknown; fixes: Fix[] };
  into.fixes.push(...chosen.fixes);
  return chosen.value;
}

/** The JSON types a node declares, or infers from its keywords (an enum's or const's from its members); null means any. */
function typesOf(s: Node): JsonType[] | null {
  if (typeof s.type === 'string') return [s.type as JsonType];
  if (Array.isArray(s.type)) return s.type as JsonType[];
  if ('properties' in s || 'required' in s || 'additionalProperties' in s) return ['object'];
  if ('items' in s || 'prefixItems' in s) return ['array'];
  const members = membersOf(s);
  return members ? [...new Set(members.map(jsonTypeOf))] : null;
}

function membersOf(s: Node): unknown[] | null {
  return Array.isArray(s.enum) ? (s.enum as unknown[]) : 'const' in s ? [s.const] : null;
}

const SCALAR_TYPES = new Set<JsonType>(['string', 'number', 'integer', 'boolean', 'null']);

/** Type-level repairs of one node: unwrap/wrap, coercion, enum, then the children. */
function visitType(value: unknown, s: Node, ptr: string, path: Path, walk: Walk): unknown {
  const types = typesOf(s);
  const where = pathLabel(path);
  if (types && !types.includes('array') && Array.isArray(value) && value.length === 1) {
    value = value[0];
    walk.fixes.push({ rung: 'coerce', text: `unwrapped ${where} from a one-element array` });
  }
  if (types && !types.some((t) => admits(t, value))) {
    const from = jsonTypeOf(value);
    for (const t of types) {
      const c = coerceTo(value, t);
      if (c) {
        walk.fixes.push(c.guess
          ? { rung: 'prose', text: `read ${where} as the number ${String(c.value)} that opens ${JSON.stringify(value)}` }
          : { rung: 'coerce', text: from === 'string' && (t === 'object' || t === 'array') ? `parsed JSON text inside ${where}` : `coerced ${where} from ${from} to ${t}` });
        value = c.value;
        break;
      }
    }
    if (walk.wrapScalars && types.length === 1 && types[0] === 'object' && !types.some((t) => admits(t, value))) value = wrapInRequired(value, s, ptr, path, walk);
    const kind = jsonTypeOf(value);
    if (types.includes('array') && (kind === 'string' || kind === 'number' || kind === 'boolean' || (kind === 'object' && itemsWantObjects(s))) && !types.some((t) => admits(t, value))) {
      value = [value];
      walk.fixes.push({ rung: 'coerce', text: kind === 'object' ? `wrapped the object ${where} in a one-element array` : `wrapped ${where} in a one-element array` });
    }
    if (kind === 'object' && types.every((t) => SCALAR_TYPES.has(t)) && (membersOf(s) || !types.includes('string'))) value = pluckOne(value as Node, s, ptr, path, walk);
  }
  const members = membersOf(s);
  if (members && !members.some((m) => jsonEqual(m, value))) {
    const hit = matchEnum(value, members, walk.keepUnknown);
    if (hit && !jsonEqual(hit.value, value)) {
      walk.fixes.push({ rung: 'enum', text: `matched ${where} ${JSON.stringify(value)} -> ${JSON.stringify(hit.value)}` });
      value = hit.value;
    } else if (!hit && typeof value === 'string' && !walk.keepUnknown && !walk.inUnion && path.length > 0) {
      value = proseMember(value, members, path, walk);
    }
  }
  if (jsonTypeOf(value) === 'object') return visitObject(value as Node, s, ptr, path, walk);
  if (Array.isArray(value)) return visitArray(value, s, ptr, path, walk);
  return value;
}

/** A bare scalar where an object with exactly one required field is wanted: that field. */
function wrapInRequired(value: unknown, s: Node, ptr: string, path: Path, walk: Walk): unknown {
  const kind = jsonTypeOf(value);
  if (kind !== 'string' && kind !== 'number' && kind !== 'boolean') return value;
  const shape = shapeOf(s);
  if (shape.required.length !== 1) return value;
  const key = shape.required[0]!;
  const sub = shape.properties[key];
  if (sub === undefined) return value;
  const subPtr = childPointer(childPointer(ptr, 'properties'), key);
  const trial: Walk = { handle: walk.handle, fixes: [], depth: walk.depth, keepUnknown: walk.keepUnknown, wrapScalars: walk.wrapScalars };
  const inner = visit(value, sub, subPtr, [...path, key], trial);
  if (!fitsAt(walk.handle, subPtr, inner)) return value;
  walk.fixes.push({ rung: 'wrap', text: `wrapped the bare value ${JSON.stringify(value).slice(0, 40)} into ${pathLabel([...path, key])}, the one required field` }, ...trial.fixes);
  const out: Node = {};
  setOwn(out, key, inner);
  return out;
}

/**
 * A field's sentence where a member is wanted: the one member it names
 * (negations and ambiguity leave it, to be refused). The root's text is read
 * by the prose rung itself (read/prose.ts via index.ts), last of all.
 */
function proseMember(value: string, members: readonly unknown[], path: Path, walk: Walk): unknown {
  const named = memberIn(value, members);
  if (!named || !('value' in named)) return value;
  walk.fixes.push(...named.fixes.map((f) => ({ ...f, text: `${f.text} in ${pathLabel(path)}` })));
  return named.value;
}

/** True when an array node's items ask for objects (so an object given alone is one of them). */
function itemsWantObjects(s: Node): boolean {
  const items = s.items;
  if (items === null || typeof items !== 'object' || Array.isArray(items)) return false;
  const types = typesOf(items as Node);
  if (types) return types.includes('object');
  const branches = (items as Node).anyOf ?? (items as Node).oneOf;
  return Array.isArray(branches) && branches.some((b) => b !== null && typeof b === 'object' && (typesOf(b as Node) ?? []).includes('object'));
}

/**
 * A one-key object where a scalar is wanted (`{"status": 1}` for `1 | true |
 * "THREE"`): its one value, when that value fits the node. Several keys say
 * several things and are left to be refused; tool-call arguments are never
 * unwrapped (an argument given as an object was not understood).
 */
function pluckOne(obj: Node, s: Node, ptr: string, path: Path, walk: Walk): unknown {
  const keys = Object.keys(obj);
  if (keys.length !== 1 || walk.keepUnknown || walk.plucking) return obj;
  const inner = obj[keys[0]!];
  const trial: Walk = { handle: walk.handle, fixes: [], depth: walk.depth, keepUnknown: walk.keepUnknown, wrapScalars: walk.wrapScalars, plucking: true };
  const v = visit(inner, s, ptr, path, trial);
  if (!fitsAt(walk.handle, ptr, v)) return obj;
  walk.fixes.push({ rung: 'pluck', text: `took ${pathLabel(path)} from the one-key object {${JSON.stringify(keys[0]).slice(0, 40)}: …}` }, ...trial.fixes);
  return v;
}

/** Keys, then each property against its sub-schema, then defaults for what is missing. */
function visitObject(obj: Node, s: Node, ptr: string, path: Path, walk: Walk): Node {
  const shape = shapeOf(s);
  const out = normaliseKeys(obj, shape, path, walk.fixes, walk.keepUnknown);
  const extra = s.additionalProperties;
  for (const key of Object.keys(out)) {
    if (Object.hasOwn(shape.properties, key)) {
      out[key] = visit(out[key], shape.properties[key], childPointer(childPointer(ptr, 'properties'), key), [...path, key], walk);
    } else if (extra && typeof extra === 'object') {
      out[key] = visit(out[key], extra, childPointer(ptr, 'additionalProperties'), [...path, key], walk);
    }
  }
  return fillDefaults(out, shape.properties, path, walk.fixes);
}

/** Each element against `items` / `prefixItems` (draft-07 tuples included). */
function visitArray(arr: unknown[], s: Node, ptr: string, path: Path, walk: Walk): unknown[] {
  const tuple = Array.isArray(s.prefixItems) ? 'prefixItems' : Array.isArray(s.items) ? 'items' : null;
  const tupleLength = tuple ? (s[tuple] as unknown[]).length : 0;
  return arr.map((item, i) => {
    if (tuple && i < tupleLength) return visit(item, (s[tuple] as unknown[])[i], childPointer(childPointer(ptr, tuple), i), [...path, i], walk);
    const rest = tuple === 'items' ? s.additionalItems : s.items;
    const restPtr = tuple === 'items' ? childPointer(ptr, 'additionalItems') : childPointer(ptr, 'items');
    return rest && typeof rest === 'object' ? visit(item, rest, restPtr, [...path, i], walk) : item;
  });
}
