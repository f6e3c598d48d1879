/**
 * What followed a failure — inferred from the later events of its session.
 *
 * A failure record that points at its remedy is a routing hint; without one it
 * is a complaint. The first later fact of the same step decides: from the same
 * provider it is `retry_same`, from another `escalated`. Failing that, a later
 * `escalated` event for the step, then a new plan (`replanned`), then a decline
 * (`declined`), then the end of the session (`abandoned`). With none of these
 * the session is still open and the resolution is null — which is why ingest
 * recomputes it whenever a ledger grows. Pure: no database, no clock.
 */
import type { Resolution } from './schema.js';

export interface FailureAt {
  seq: number;
  step: string | null;
  provider: string | null;
}
export interface FactAt {
  seq: number;
  step: string | null;
  provider: string | null;
}
export interface ControlAt {
  seq: number;
  type: string;
  step: string | null;
  /** for `escalated`: the provider escalated to */
  target: string | null;
  /** for `answer_sent`: answered / partial / declined */
  outcome: string | null;
}
export interface Resolved {
  resolution: Resolution | null;
  resolved_by: string | null;
}

/** The resolution of one failure given its session's facts and control events (any order). */
export function resolve(f: FailureAt, facts: readonly FactAt[], controls: readonly ControlAt[]): Resolved {
  const later = <T extends { seq: number }>(xs: readonly T[], ok: (x: T) => boolean): T | undefined => {
    let best: T | undefined;
    for (const x of xs) if (x.seq > f.seq && ok(x) && (best === undefined || x.seq < best.seq)) best = x;
    return best;
  };
  if (f.step !== null) {
    const fact = later(facts, (x) => x.step === f.step);
    if (fact) {
      const same = f.provider === null || fact.provider === f.provider;
      return { resolution: same ? 'retry_same' : 'escalated', resolved_by: fact.provider };
    }
    const esc = later(controls, (c) => c.type === 'escalated' && c.step === f.step);
    if (esc) return { resolution: 'escalated', resolved_by: esc.target };
  }
  if (later(controls, (c) => c.type === 'plan_created')) return { resolution: 'replanned', resolved_by: null };
  const declined = (c: ControlAt): boolean => c.type === 'declined' || (c.type === 'answer_sent' && c.outcome === 'declined');
  if (later(controls, declined)) return { resolution: 'declined', resolved_by: null };
  if (later(controls, (c) => c.type === 'answer_sent')) return { resolution: 'abandoned', resolved_by: null };
  return { resolution: null, resolved_by: null };
}
