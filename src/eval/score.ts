/**
 * Scoring against a corpus case, exactly as the corpora README says (and as
 * `../shared/tools/score-corpus`, the reference scorer, does). One module for
 * `pico ladder --corpus`, `pico eval` and the tests, so the rule is written
 * once.
 *
 * - A refusal case (`expected_error: true`) is right only when the harness
 *   refused it with a classified error (the README's words). A harness that
 *   merely failed to parse (`raw`'s JSON.parse exception) or a provider fault
 *   did not refuse anything: it crashed, and that is never right.
 * - A tool-call case (`category: "tool-call"`) is right when the name equals
 *   the expected name (read under `name`, `tool` or `function`), the
 *   arguments (under `arguments`, `args` or `parameters`) are an object,
 *   every argument given is in its `allowed` list (strings trimmed and
 *   compared case-insensitively) or equals the expected one, and every
 *   argument left out may be absent (`""` in its list). Without `allowed`
 *   (or with an empty one) the arguments must equal the expected ones.
 * - Any other case is right when the value deep-equals `expected`: key order
 *   is free, 1.0 equals 1, a boolean equals only a boolean, and a property
 *   left out equals one given as null.
 *
 * This module only judges; it does not run a harness or a model. It lives
 * with the evaluation (src/eval/), above the ladder whose results it judges.
 */
import type { LadderResult } from '../ladder/types.js';

/** What a harness mode made of one output: a value, or no value (a classified refusal or a crash). */
export type Answer = { ok: true; value: unknown } | { ok: false; classified: boolean };

/** The fields of a case that scoring reads. */
export interface ScoredCase {
  category?: string;
  expected?: unknown;
  expected_error?: boolean;
  allowed?: Record<string, unknown[]> | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Deep equality under the README's conventions (undefined and null are the same absence). */
export function same(a: unknown, b: unknown): boolean {
  const x = a === undefined ? null : a;
  const y = b === undefined ? null : b;
  if (typeof x === 'boolean' || typeof y === 'boolean') return x === y;
  if (typeof x === 'number' && typeof y === 'number') return x === y;
  if (isObj(x) && isObj(y)) {
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const k of keys) if (!same(x[k], y[k])) return false;
    return true;
  }
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => same(v, y[i]));
  if (Array.isArray(x) || Array.isArray(y) || isObj(x) || isObj(y)) return false;
  return x === y;
}

/** The name and arguments of a call-shaped value, under whichever key names it uses. */
export function callOf(v: unknown): { name: string | null; args: Obj | null } {
  if (!isObj(v)) return { name: null, args: null };
  const name = ['name', 'tool', 'function'].map((k) => v[k]).find((x): x is string => typeof x === 'string') ?? null;
  const args = ['arguments', 'args', 'parameters'].map((k) => v[k]).find(isObj) ?? null;
  return { name, args };
}

/** Whether a value is one of the allowed ones (strings: trimmed, case-insensitive). */
function inAllowed(val: unknown, allowed: unknown[]): boolean {
  return allowed.some((a) => same(val, a) || (typeof a === 'string' && typeof val === 'string' && a.trim().toLowerCase() === val.trim().toLowerCase()));
}

/** Whether a call-shaped value is the call a tool-call case expects. */
export function rightCall(c: ScoredCase, value: unknown): boolean {
  const got = callOf(value);
  const exp = callOf(c.expected);
  if (got.name !== exp.name || got.args === null) return false;
  const allowed = c.allowed;
  if (!allowed || Object.keys(allowed).length === 0) return same(got.args, exp.args);
  for (const [k, v] of Object.entries(got.args)) {
    const list = allowed[k];
    if (!Array.isArray(list) || !(inAllowed(v, list) || same(v, exp.args?.[k]))) return false;
  }
  return Object.entries(allowed).every(([k, list]) => k in got.args! || (Array.isArray(list) && list.includes('')));
}

/** Whether a case is a tool-call case (the corpora mark them by category). */
export function isToolCallCase(c: ScoredCase): boolean {
  return c.category === 'tool-call';
}

/** The verdict on one answer: right or not. */
export function isRight(c: ScoredCase, answer: Answer): boolean {
  if (c.expected_error) return !answer.ok && answer.classified;
  if (!answer.ok) return false;
  return isToolCallCase(c) ? rightCall(c, answer.value) : same(answer.value, c.expected);
}

/** A ladder result's verdict: true / false when the case says what is right, null when it carries no expectation. */
export function scoreCase(c: ScoredCase, r: LadderResult): boolean | null {
  if (!c.expected_error && c.expected === undefined) return null;
  // every ladder refusal is classified (kind and level)
  return isRight(c, r.ok ? { ok: true, value: r.value } : { ok: false, classified: true });
}
