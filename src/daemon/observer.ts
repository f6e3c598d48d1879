/**
 * What the daemon tells whoever watches it: the seam for metrics, the API and
 * anything else that follows jobs without being part of running them.
 *
 * The loop calls each observer at its transitions (queued, begun, a step's
 * start and end, finished, a worker started or died, settings reloaded). An
 * observer must be quick and must not throw: one that throws is logged and
 * the loop goes on. Idle tasks are the other half: work the daemon runs
 * between jobs (retention, say), one at a time, while no session runs; each
 * decides for itself whether it is due. This module only declares the shapes.
 */
import type { BudgetClass } from '../base/ids.js';
import type { DaemonSettings } from './settings.js';

export interface StepObservation {
  session: string;
  step: string;
  tool: string | null;
  capability: string | null;
  phase: 'started' | 'committed' | 'failed';
  /** committed: the provider that produced the fact; failed: the last one tried (null: none could be selected) */
  provider?: string | null;
  /** failed: why, one bounded line */
  reason?: string;
  /** for committed and failed: how long the step took, ms */
  duration_ms?: number;
}

export interface DaemonObserver {
  /** the queue changed: jobs waiting per budget class (handed to the worker but not begun count as waiting) */
  queue?(depth: Record<BudgetClass, number>): void;
  /** a job was claimed from the inbox (or resumed from disk) */
  queued?(e: { session: string; budget_class: BudgetClass; resumed: boolean }): void;
  /** inbox entries were refused (moved to sessions/rejected/) */
  rejected?(count: number): void;
  /** the worker began running a session */
  started?(e: { session: string; budget_class: BudgetClass }): void;
  step?(e: StepObservation): void;
  /** a provider was called within a step (the ledger's provider_called): its identity, the outcome and how long it took */
  providerCalled?(e: { session: string; step: string; provider: string; capability: string; outcome: string; duration_ms: number; model_call: boolean }): void;
  /** a local model was loaded into the worker (before its first call, or after another model evicted it) */
  modelLoaded?(e: { session: string; provider: string; duration_ms: number }): void;
  /** a session ended and its result file is written */
  finished?(e: { session: string; outcome: string; duration_ms: number; budget_class: BudgetClass }): void;
  /** the session worker started (pid) or stopped (null) */
  worker?(pid: number | null): void;
  /** the session worker died while running a session */
  workerDied?(e: { session: string; how: string }): void;
  /** settings.json was read again (SIGHUP) */
  reloaded?(settings: DaemonSettings): void;
}

/** Work run between jobs while no session runs; `run` returns quickly when it is not due. */
export interface IdleTask {
  name: string;
  run(signal: AbortSignal): Promise<void>;
}
