/**
 * Budget: what a session may spend (by its class) and what it has spent —
 * wall ms, model calls, cpu ms (design §4). Spent values are measured through
 * the clock seam, so a replay sees the numbers the run saw and makes the same
 * decisions. CPU is this process's own time; a subprocess's CPU is not
 * counted (Node does not report children's usage), its wall time is.
 */
import type { BudgetClass, BudgetSpent } from '../ledger/events.js';
import { BUDGETS, BUDGET_SOFT_SHARE, type BudgetLimits } from './settings.js';

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

  /** The first limit at or over `share` of its budget in `spent`, or null. */
  static over(spent: BudgetSpent, limits: BudgetLimits, share = BUDGET_SOFT_SHARE): string | null {
    for (const k of ['wall_ms', 'model_calls', 'cpu_ms'] as const) {
      if (spent[k] >= limits[k] * share) return k;
    }
    return null;
  }
}
