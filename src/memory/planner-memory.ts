/**
 * What memory may tell a planner (design §6, §7): the text-free avoidance
 * block of failure memory, and facts that came from trusted input only —
 * read through `recallForControl`, which throws `TrustViolation` if a T1 fact
 * (anything a tool read from outside) were ever to reach it. A fact's payload
 * is not shown, only its schema, subject and when it was observed: a planner
 * needs to know what is already known, not its words.
 *
 * Read-only and never creates the database: a fresh install has no memory,
 * and planning then goes without it. The caller records the result in the
 * ledger (the policy snapshot), so a replay plans on what the run saw.
 */
import { dbPathFor } from './paths.js';
import { withReadonlyIndex } from './runtime-api.js';

export interface PlannerMemory {
  /** lines of the failure-memory avoidance block (ids, kinds and counts only) */
  avoidance: string[];
  /** one line per trusted (T0/T2) fact that matches the goal */
  known: string[];
}

const SAFE = /^[A-Za-z0-9@._:/ -]{1,80}$/;

/** Read the planner's view of memory under `root` for this goal. */
export function readPlannerMemory(root: string, goal: string): PlannerMemory {
  return withReadonlyIndex(dbPathFor(root), () => ({ avoidance: [], known: [] }), (ix) => {
    const fm = ix.failures();
    const block = fm.promptBlock(fm.avoidance({ limit: 3 }));
    // earlier plans are not knowledge about the machine: they are left out
    const known = ix.recallForControl(goal, { limit: 6 }).filter((h) => h.schema !== 'plan@1').slice(0, 3).map((h) => {
      const subject = h.subject !== null && SAFE.test(h.subject) ? ` about ${h.subject}` : '';
      return `- ${h.schema ?? 'a fact'}${subject}, observed ${h.observed_at ?? 'at an unknown time'} (${h.trust})`;
    });
    return { avoidance: block ? block.split('\n') : [], known: known.length ? ['Known from trusted memory:', ...known] : [] };
  });
}
