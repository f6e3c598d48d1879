/**
 * Policy settings: the hard breakers and the budget classes (design §4).
 * They are part of every session's composition, so changing one changes the
 * composition hash and a replay notices.
 */
import type { BudgetClass } from '../ledger/events.js';

export const BREAKERS = {
  max_steps: 8,
  /** failed attempts of one provider within a step before escalation */
  max_retries_per_step: 2,
  /** the most input bytes a model provider may be shown */
  max_bytes_to_model: 8 * 1024,
} as const;

export interface BudgetLimits {
  wall_ms: number;
  model_calls: number;
  cpu_ms: number;
}

/**
 * The classes' limits. interactive allows 4 model calls: a model planner, its one replan, and a
 * model reducer with one retry (with 2, a planner and a replan left nothing for the answer);
 * its 5 s wall stays, so a job that needs apt (`apt list --upgradable` alone took 4.3 s on the
 * 2-core development VM under load) belongs in attended, as the shipped example job is.
 */
export const BUDGETS: Record<BudgetClass, BudgetLimits> = {
  interactive: { wall_ms: 5_000, model_calls: 4, cpu_ms: 5_000 },
  attended: { wall_ms: 60_000, model_calls: 8, cpu_ms: 60_000 },
  background: { wall_ms: 30 * 60_000, model_calls: 32, cpu_ms: 30 * 60_000 },
  batch: { wall_ms: 8 * 3_600_000, model_calls: 256, cpu_ms: 8 * 3_600_000 },
};

/** Share of a budget after which no new step starts and the answer is given with what is held. */
export const BUDGET_SOFT_SHARE = 0.8;

/** A measured pass rate below this (with enough observations) takes a provider out of selection. */
export const MIN_PASS_RATE = 0.2;
/** Observations needed before a measurement counts (below it, the manifest is believed). */
export const MIN_OBSERVATIONS = 5;

/**
 * Which measurements the policy reads for a provider: only calls of its current identity
 * (manifest, program and prompt digests), at most the newest `last_n` of them, none older than
 * `max_age_days` — so a fixed provider starts fresh and an old slow spell ages out.
 */
export const MEASUREMENT_WINDOW = { last_n: 50, max_age_days: 14 } as const;
