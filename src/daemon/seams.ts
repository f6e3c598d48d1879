/**
 * The daemon's two seams to the rest of picoharness: the runtime and memory.
 *
 * Both are loaded lazily, by dynamic import, after the daemon has started:
 * the runtime pulls in the adapters (and, when a job needs it, the model
 * runtime), which the idle daemon must not pay for in start time or memory
 * (goal: READY within 1 s, idle RSS ≤ 60 MB). The daemon only needs the small
 * surface below; tests pass their own implementations through DaemonOptions.
 * Memory ingest is optional: if its module is missing or fails, the daemon
 * logs at warn and keeps running jobs (memory is derived and rebuildable).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { LedgerEvent } from '../ledger/events.js';

export interface SessionOutcome {
  sessionId: string;
  outcome: 'answered' | 'partial' | 'declined' | 'interrupted';
  answer: string | null;
  resultPath: string | null;
}

/** What the daemon needs of the runtime (src/runtime/runtime.ts implements it). */
export interface SessionRunner {
  runSession(sessionId: string, opts?: { signal?: AbortSignal; onEvent?: (e: LedgerEvent) => void }): Promise<SessionOutcome>;
  close(): Promise<void>;
}

/** What the daemon needs of memory (src/memory/index.ts implements it). */
export interface MemoryHook {
  ingestSessions(sessionDirs: readonly string[]): unknown;
  close?(): unknown;
}

/** Open the real runtime for `root` (imported here, after start-up, not at module load). */
export async function openRealRuntime(root: string, log: Logger): Promise<SessionRunner> {
  const { openRuntime } = await import('../runtime/runtime.js');
  return openRuntime(root, { log });
}

// Held in a list of variables: memory is optional, so its module is resolved at run time
// and the daemon still starts (without ingest) when the module is absent or broken.
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
  log.warn({ err: lastErr }, 'memory index unavailable; jobs still run, and their sessions can be ingested into memory later');
  return null;
}
