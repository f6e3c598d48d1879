/**
 * The session worker's seam to memory: memory ingest runs in the process that runs sessions,
 * between jobs (design §8). If memory cannot be opened, the worker logs at warn and keeps
 * running jobs (memory is derived and rebuildable). Apart from seams.ts so the worker does not
 * load the daemon's host side (worker-host.ts and what it needs) to reach it.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';

/** What the worker needs of memory (src/memory/index.ts implements it). */
export interface MemoryHook {
  ingestSessions(sessionDirs: readonly string[]): unknown;
  close?(): unknown;
}

// Memory is optional: its module is imported at run time and the worker still starts (without
// ingest) when the module is absent or broken. Each import is written out whole, so that the
// worker's bundle (scripts/bundles.mjs) carries memory inside it.
const MEMORY_MODULES: ReadonlyArray<() => Promise<unknown>> = [() => import('../memory/index.js'), () => import('../memory/memory-index.js')];

/** Open the episodic memory index, or null (logged at warn) when it cannot be opened. */
export async function openRealMemory(root: string, log: Logger): Promise<MemoryHook | null> {
  let lastErr: unknown = null;
  for (const load of MEMORY_MODULES) {
    try {
      const mod = (await load()) as { MemoryIndex?: { open(path: string): MemoryHook | Promise<MemoryHook> } };
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
