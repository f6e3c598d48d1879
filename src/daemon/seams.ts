/**
 * The daemon's seam to the part of picoharness that runs sessions.
 *
 * The daemon never loads the runtime itself: `openRealRuntime` starts the
 * session worker (worker-host.ts), a child process that holds the runtime,
 * the adapters (and, when a job needs one, a model) and memory, so the
 * daemon stays small while idle (goal: idle RSS ≤ 60 MB) and a native crash
 * in a provider cannot take it down. The daemon needs only the surface
 * below; tests pass their own implementation through DaemonOptions.
 * `openRealMemory` is the worker's: memory ingest runs in the process that
 * runs sessions, between jobs (design §8). If memory cannot be opened, the
 * worker logs at warn and keeps running jobs (memory is derived and
 * rebuildable).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { RunOutcome, StepProgress } from './worker-protocol.js';
import { DEFAULT_WORKER_IDLE_MS, WorkerHost } from './worker-host.js';

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

/** What the worker needs of memory (src/memory/index.ts implements it). */
export interface MemoryHook {
  ingestSessions(sessionDirs: readonly string[]): unknown;
  close?(): unknown;
}

/** Start the session worker for `root`; resolves once it has opened the runtime (throws WorkerStartError if it cannot). */
export async function openRealRuntime(root: string, log: Logger, o: { pidFile: string; idleMs?: number; onWorker?: (pid: number | null) => void }): Promise<SessionRunner> {
  const host = new WorkerHost({ root, log, pidFile: o.pidFile, idleMs: o.idleMs ?? DEFAULT_WORKER_IDLE_MS });
  if (o.onWorker) host.onChange = o.onWorker;
  await host.start();
  return host;
}

// Held in a list of variables: memory is optional, so its module is resolved at run time
// and the worker still starts (without ingest) when the module is absent or broken.
const MEMORY_MODULES = ['../memory/index.js', '../memory/memory-index.js'];

/** Open the episodic memory index, or null (logged at warn) when it cannot be opened. */
export async function openRealMemory(root: string, log: Logger): Promise<MemoryHook | null> {
  let lastErr: unknown = null;
  for (const spec of MEMORY_MODULES) {
    try {
      const mod = (await import(spec)) as { MemoryIndex?: { open(path: string): MemoryHook | Promise<MemoryHook> } };
      if (!mod.MemoryIndex) continue;
      return await mod.MemoryIndex.open(join(root, 'memory', 'episodic.db'));
    } catch (err) {
      lastErr = err;
      if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') break;
    }
  }
  log.warn({ err: lastErr }, `memory index unavailable (${(lastErr as Error | undefined)?.message ?? 'no reason given'}); jobs still run, and their sessions can be ingested into memory later`);
  return null;
}
