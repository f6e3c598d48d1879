/**
 * Trust levels — the one owner of this vocabulary.
 *
 * T0 is the operator (a job file, a typed request), T1 is anything from outside
 * (log lines, files, tool output), T2 is the system (validated facts derived
 * from trusted input, schemas). A fact carries its source's trust for ever:
 * nothing in picoharness upgrades it. This module only names the levels and
 * orders them by taint; it does not decide who may read what (the policy and
 * memory do that with these functions).
 */

export const TRUST_LEVELS = ['T0', 'T1', 'T2'] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

/** Taint rank: higher means less trusted. T1 (outside data) is the most tainted. */
const TAINT: Record<Trust, number> = { T0: 0, T2: 1, T1: 2 };

export class TrustViolation extends Error {
  override name = 'TrustViolation';
}

/** Parse a trust level; an unknown value is a typo and throws, never a default. */
export function parseTrust(value: unknown, where = 'trust'): Trust {
  if (typeof value === 'string' && (TRUST_LEVELS as readonly string[]).includes(value)) {
    return value as Trust;
  }
  throw new TypeError(
    `${where}: unknown trust level ${JSON.stringify(value)}; expected one of ${TRUST_LEVELS.join(', ')}`,
  );
}

/** True when a consumer that admits at most `max` taint may read input of trust `input`. */
export function admits(max: Trust, input: Trust): boolean {
  return TAINT[input] <= TAINT[max];
}

/** The trust of something derived from several inputs: the most tainted of them. */
export function weakest(levels: readonly Trust[], ifNone: Trust = 'T2'): Trust {
  let out: Trust | undefined;
  for (const t of levels) if (out === undefined || TAINT[t] > TAINT[out]) out = t;
  return out ?? ifNone;
}

/** Control decisions may only be made from T0/T2 input. */
export function isControlSafe(t: Trust): boolean {
  return t !== 'T1';
}
