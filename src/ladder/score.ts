/**
 * Scoring a ladder result against a corpus case, as the corpora README says
 * (../shared/corpora/README.md): a value case is right when the value equals
 * `expected` by JSON deep equality (key order free, 1.0 equals 1, an
 * optional property left out equals one given as null); a refusal case when
 * the ladder refused; a tool-call case when the name is equal, every argument
 * given is in its `allowed` list (strings trimmed, case-insensitive) and every
 * argument left out may be absent. It judges; it runs nothing.
 */
import type { LadderResult } from './types.js';

export interface ScoredCase {
  category?: string;
  expected?: unknown;
  expected_error?: boolean;
  allowed?: Record<string, unknown[]>;
}

const NAME_KEYS = ['name', 'tool', 'function'];
const ARG_KEYS = ['arguments', 'args', 'parameters'];
type Obj = Record<string, unknown>;

/** true / false when the case says what is right, null when it carries no expectation. */
export function scoreCase(c: ScoredCase, r: LadderResult): boolean | null {
  if (c.expected_error) return !r.ok;
  if (c.expected === undefined) return null;
  if (!r.ok) return false;
  if (c.category === 'tool-call') return rightCall(c, r.value);
  return sameJson(r.value, c.expected);
}

/** JSON equality as the scorer reads it: numbers by value, a missing key equal to null. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameJson(a[k] ?? null, b[k] ?? null));
  }
  return a === b || (a === undefined && b === null) || (a === null && b === undefined);
}

function callOf(v: unknown): { name: unknown; args: Obj | undefined } {
  if (!isObj(v)) return { name: undefined, args: undefined };
  const name = NAME_KEYS.map((k) => v[k]).find((x) => typeof x === 'string');
  const args = ARG_KEYS.map((k) => v[k]).find(isObj);
  return { name, args };
}

function inAllowed(value: unknown, allowed: readonly unknown[]): boolean {
  return allowed.some((a) => sameJson(value, a) || (typeof a === 'string' && typeof value === 'string' && a.trim().toLowerCase() === value.trim().toLowerCase()));
}

function rightCall(c: ScoredCase, value: unknown): boolean {
  const got = callOf(value);
  const want = callOf(c.expected);
  if (got.name !== want.name || got.args === undefined) return false;
  const allowed = c.allowed;
  if (!allowed) return sameJson(got.args, want.args);
  for (const [k, v] of Object.entries(got.args)) {
    if (!Object.hasOwn(allowed, k) || !(inAllowed(v, allowed[k]!) || sameJson(v, want.args?.[k]))) return false;
  }
  return Object.entries(allowed).every(([k, al]) => Object.hasOwn(got.args!, k) || al.includes(''));
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
