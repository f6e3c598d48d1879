/**
 * The trajectory cache, agent side (design §9.4): before a goal-only job is
 * planned, look for a plan that already answered the same goal with the same
 * tools, and reuse it without calling a planner.
 *
 * A hit needs the goal's intent terms to match and every tool the plan uses
 * to digest the same (manifest, fact schema, reducer) under the current
 * composition as it did when the plan answered; memory (`memory/trajectory.ts`)
 * keeps the entries, derived from the ledgers. The lookup is read once per
 * session and recorded in the policy snapshot, so a replay plans the same.
 * The loop runs a cached plan through the ordinary step machinery — so every
 * check, and every approval, applies — and drops the entry when its first
 * step gives up. This module never writes memory and never creates it.
 */
import { dbPathFor } from '../memory/paths.js';
import { withReadonlyIndex } from '../memory/runtime-api.js';
import { candidates, intentKey, matching, type CachedStep, type ToolSide } from '../memory/trajectory.js';
import type { Registry } from '../registry/registry.js';
import type { JobStep } from '../runtime/job.js';

/** What the policy snapshot records: the entry reused (its session), its key, and its tool steps. */
export interface CacheHit {
  entry: string;
  key: string;
  steps: CachedStep[];
}

/** The cache entry for this goal under the current composition, or null (no memory, no match). */
export function lookupPlan(root: string, goal: string, current: ToolSide): CacheHit | null {
  // no memory, an older schema or an unreadable file: plan afresh (`pico memory rebuild` fixes the last two)
  return withReadonlyIndex(dbPathFor(root), () => null, (ix) => {
    const hit = matching(candidates(ix.db, intentKey(goal)), current);
    return hit ? { entry: hit.session, key: hit.key, steps: hit.steps } : null;
  });
}

// a date or a clock time in an argument was read against the day the goal was asked ("yesterday
// evening", "between 1am and 3am"): on another day the same words name another stretch
const DAY_BOUND = /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b/;

/** A hit's steps as job steps, or null when one of them no longer runs here or its window was fixed to a day (then plan afresh). */
export function cachedSteps(hit: CacheHit, registry: Registry): JobStep[] | null {
  const out: JobStep[] = [];
  for (const s of hit.steps) {
    if (Object.values(s.args).some((v) => typeof v === 'string' && DAY_BOUND.test(v))) return null;
    const tool = s.tool ? registry.tools.get(s.tool) : undefined;
    if (!tool || tool.reducer !== s.capability || tool.fact_schema !== s.schema) return null;
    out.push({ step: s.step, tool: s.tool!, args: s.args, capability: s.capability, schema: s.schema });
  }
  return out.length > 0 ? out : null;
}
