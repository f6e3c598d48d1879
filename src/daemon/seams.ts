/**
 * The daemon's seam to the part of picoharness that runs sessions.
 *
 * The daemon never loads the runtime itself: `openRealRuntime` starts the
 * session worker (worker-host.ts), a child process that holds the runtime,
 * the adapters (and, when a job needs one, a model) and memory, so the
 * daemon stays small while idle (goal: idle RSS ≤ a bare node + 10 MB) and a native crash
 * in a provider cannot take it down. The daemon needs only the surface
 * below; tests pass their own implementation through DaemonOptions.
 * The worker's side of memory is in memory-seam.ts (the worker does not load this host side).
 */
import type { Logger } from 'pino';
import type { RunOutcome, StepProgress } from './worker-protocol.js';
import { DEFAULT_WORKER_IDLE_MS, WorkerHost, WorkerStartError } from './worker-host.js';

export type SessionOutcome = RunOutcome;

/** What the daemon needs of whatever runs its sessions (worker-host.ts implements it). */
export interface SessionRunner {
  /** run a session; null when cancelled before it began; the next may be handed over before this one ends */
  run(sessionId: string, h?: { onBegin?: () => void; onEvent?: (e: StepProgress) => void; close?: string; cancelled?: boolean }): Promise<SessionOutcome | null>;
  /** take back a session handed over but not begun */
  cancel(sessionId: string): void;
  /** finish the running step, cancel the rest (shutdown) */
  stop(): void;
  /** feed finished sessions into memory (absent: no memory) */
  ingestSessions?(sessionDirs: readonly string[]): unknown;
  /** the queue ran dry */
  idle?(): void;
  /** SIGHUP: the next job runs in a worker that reads the manifests again (the running one finishes first) */
  reload?(): void;
  /** a forced stop: end now */
  kill?(): void;
  close(): Promise<void>;
}

/**
 * Start the session worker for `root`; resolves once it has opened the runtime (throws
 * WorkerStartError if it cannot). With `inBackground` (the manifests are a set known to load,
 * startup.ts) it resolves at once: the worker starts meanwhile, jobs handed over wait for it,
 * and a start that fails after all is reported to `onBroken`.
 */
export async function openRealRuntime(
  root: string, log: Logger,
  o: { pidFile: string; idleMs?: number; onWorker?: (pid: number | null) => void; onBroken?: (err: WorkerStartError) => void; inBackground?: boolean },
): Promise<SessionRunner> {
  const host = new WorkerHost({ root, log, pidFile: o.pidFile, idleMs: o.idleMs ?? DEFAULT_WORKER_IDLE_MS });
  if (o.onWorker) host.onChange = o.onWorker;
  if (o.onBroken) host.onBroken = o.onBroken;
  if (!o.inBackground) await host.start();
  else host.start().catch((err: unknown) => host.onBroken(err instanceof WorkerStartError ? err : new WorkerStartError((err as Error).message, (err as Error).name)));
  return host;
}
