/**
 * Settling one reading: levels 2–3 with the value rungs in between. A value
 * that fits is taken as it is (plus schema defaults); one that does not goes
 * through conform (keys, coercion, enum, defaults) and is checked again, and
 * still failing it is refused with the classified error. Shared by the
 * ladder and the tool-call repair; it knows nothing of text.
 */
import type { Attempt } from './attempts.js';
import type { Fix } from '../reader/fixes.js';
import { applyDefaults } from './rungs/defaults.js';
import { conform, type ConformOptions } from './rungs/conform.js';
import { checkValue, fitsAt, schemaFeatures } from './schemas.js';
import { LEVEL_OF, type LadderFail, type LadderFailureKind, type SchemaHandle } from './types.js';

const DROPPED_TAIL = 'dropped the last list element, cut off at the end';

export type Settled = { ok: true; value: unknown; fixes: Fix[] } | { ok: false; kind: LadderFailureKind; error: string; fixes: Fix[] };

/** Levels 2–3 for one reading, with the value rungs between a failed check and the refusal. */
export function settleAttempt(attempt: Attempt, schema: SchemaHandle, opts: ConformOptions = {}): Settled {
  const features = schemaFeatures(schema);
  let value = attempt.value;
  let fixes = attempt.fixes;
  if (!fitsAt(schema, '', value)) {
    const repaired = conform(value, schema, opts);
    value = repaired.value;
    fixes = [...fixes, ...repaired.fixes];
    const failure = fitsAt(schema, '', value) ? null : checkValue(schema, value);
    if (failure) {
      // output cut off inside a list element: the list without that last, partial element may fit
      // (once: only the last element was cut off, and retrying per element would recurse once per element of a long list)
      const tail = attempt.fixes.some((f) => f.rung === 'truncate') && !attempt.fixes.some((f) => f.text === DROPPED_TAIL) ? withoutCutTail(attempt.value) : undefined;
      if (tail === undefined) return { ok: false, ...failure, fixes };
      const retry = settleAttempt({ ...attempt, value: tail, fixes: attempt.fixes.filter((f) => f.rung !== 'truncate').concat({ rung: 'truncate', text: DROPPED_TAIL }) }, schema, opts);
      return retry.ok ? retry : { ok: false, ...failure, fixes };
    }
  }
  if (features.hasDefaults) {
    const filled = applyDefaults(value, schema);
    if (filled.fixes.length) {
      const failure = fitsAt(schema, '', filled.value) ? null : checkValue(schema, filled.value);
      if (failure) return { ok: false, kind: failure.kind, error: `${failure.error} (after filling schema defaults: the schema's default does not fit it)`, fixes: [...fixes, ...filled.fixes] };
      value = filled.value;
      fixes = [...fixes, ...filled.fixes];
    }
  }
  return { ok: true, value, fixes };
}


/**
 * The value with the last element of its last-opened list removed: where output that was cut off
 * mid-way stops (the rightmost path). Undefined when no list lies on that path.
 */
function withoutCutTail(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const inner = withoutCutTail(value[value.length - 1], depth + 1);
    return inner !== undefined ? [...value.slice(0, -1), inner] : value.slice(0, -1);
  }
  const keys = Object.keys(value);
  const last = keys[keys.length - 1];
  if (last === undefined) return undefined;
  const inner = withoutCutTail((value as Record<string, unknown>)[last], depth + 1);
  return inner === undefined ? undefined : { ...(value as Record<string, unknown>), [last]: inner };
}

/** A LadderFail with its level and the fix texts so far. */
export function fail(kind: LadderFailureKind, error: string, fixes: readonly Fix[]): LadderFail {
  return { ok: false, kind, level: LEVEL_OF[kind], error, fixes: fixes.map((f) => f.text) };
}
