/**
 * Budget: what a session may spend (by its class) and what it has spent —
 * wall ms, model calls, cpu ms (design §4). Spent values are measured through
 * the clock seam, so a replay sees the numbers the run saw and makes the same
 * decisions. CPU is this process's own time; a subprocess's CPU is not
 * counted (Node does not report children's usage), its wall time is.
 *
 * The wall budget is a ceiling, not a hint: `clipToBudget` cuts a tool's or
 * provider's own wall limit to what is left (never raises it), so one call
 * cannot outlive the job's budget by more than the world's kill grace, and
 * `wallLeft` is what a step checks before it starts another attempt.
 */
import type { BudgetClass, BudgetSpent } from '../ledger/events.js';
import { BUDGETS, BUDGET_SOFT_SHARE, type BudgetLimits } from './settings.js';

/**
 * How long past its class's wall limit a job may still run: what stopping the call in flight takes
 * beyond the stop reserve (the wait for its pipes, up to 300 ms), and writing the answer.
 */
export const WALL_GRACE_MS = 1_000;

/** A manifest with a wall limit of its own (tools, shell / model providers; code providers have none). */
type Limited = { limits: { timeout_ms: number } };

/**
 * Kept back from a cut limit for stopping the call: the world sends SIGTERM at the limit and
 * SIGKILL 300 ms later (KILL_GRACE_MS in src/world/run.ts), so a call cut to `left - 300` has
 * ended by the time the budget has.
 */
export const STOP_RESERVE_MS = 300;

/** `m` with its wall limit cut to `leftMs` less the stop reserve (at least 1 ms), and whether it was cut. */
export function clipToBudget<M extends object>(m: M, leftMs: number): { manifest: M; clippedTo: number | null } {
  if (!('limits' in m)) return { manifest: m, clippedTo: null };
  const own = (m as unknown as Limited).limits.timeout_ms;
  const left = Math.max(1, Math.floor(leftMs - STOP_RESERVE_MS));
  if (own <= left) return { manifest: m, clippedTo: null };
  return { manifest: { ...m, limits: { ...(m as unknown as Limited).limits, timeout_ms: left } }, clippedTo: left };
}

/**
 * Said after a timeout when the call's own limit had been cut to the budget: the call did not
 * run out of its own time but of the job's. Only a timeout gets it (a failed or empty call did
 * not fail for want of time), and it is written once, by the step; a replay that hands the
 * recorded failure back to the step takes it off first (`withoutClippedNote`).
 */
export function clippedNote(budgetClass: string, clippedTo: number | null): string {
  return clippedTo === null ? '' : ` (its limit was cut to the ${clippedTo} ms left of the ${budgetClass} budget)`;
}

/** A recorded failure text without the note `clippedNote` added to it. */
export function withoutClippedNote(text: string): string {
  return text.replace(/ \(its limit was cut to the \d+ ms left of the [a-z_]+ budget\)$/, '');
}

export class Budget {
  readonly limits: BudgetLimits;
  private readonly startWall = performance.now();
  private readonly startCpu = process.cpuUsage();

  constructor(readonly budgetClass: BudgetClass, private readonly base: BudgetSpent = { wall_ms: 0, model_calls: 0, cpu_ms: 0 }, private modelCalls = 0) {
    this.limits = BUDGETS[budgetClass];
  }

  countModelCall(): void {
    this.modelCalls++;
  }

  /** Spent so far, including what earlier runs of this session spent before a resume. */
  spent(): BudgetSpent {
    const cpu = process.cpuUsage(this.startCpu);
    return {
      wall_ms: Math.round(this.base.wall_ms + performance.now() - this.startWall),
      model_calls: this.base.model_calls + this.modelCalls,
      cpu_ms: Math.round(this.base.cpu_ms + (cpu.user + cpu.system) / 1000),
    };
  }

  /** Wall ms left of the budget in `spent` (negative when it is overspent). */
  wallLeft(spent: BudgetSpent): number {
    return this.limits.wall_ms - spent.wall_ms;
  }

  /** The first limit at or over `share` of its budget in `spent`, or null. */
  static over(spent: BudgetSpent, limits: BudgetLimits, share = BUDGET_SOFT_SHARE): string | null {
    for (const k of ['wall_ms', 'model_calls', 'cpu_ms'] as const) {
      if (spent[k] >= limits[k] * share) return k;
    }
    return null;
  }
}
