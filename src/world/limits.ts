/**
 * Resource limits of a world run: setrlimit through `prlimit` (util-linux),
 * which sets them on itself and execs the rest of the argv, so every process
 * of the run inherits them. Values come from settings (WORLD_LIMITS); the
 * CPU-time limit follows the run's wall-clock limit.
 *
 * Limits are per process (a cgroup would give a total; none is assumed
 * delegated). The process count is per user, so it bites only when the
 * program runs as a user of its own: the sandbox user under root, or the
 * user namespace bwrap makes otherwise. The probe observes which hold.
 */
import { WORLD_LIMITS } from './settings.js';

/** Whole CPU seconds allowed for a run with this wall-clock limit. */
export function cpuSeconds(timeoutMs: number): number {
  return Math.ceil(timeoutMs / 1000) + 1;
}

/** The values /proc/<pid>/limits must show inside a run with this wall-clock limit. */
export function expectedLimits(timeoutMs: number): Record<'cpu' | 'memory' | 'processes' | 'fileSize', number> {
  return { cpu: cpuSeconds(timeoutMs), memory: WORLD_LIMITS.memory_bytes, processes: WORLD_LIMITS.processes, fileSize: WORLD_LIMITS.file_bytes };
}

/** The prlimit prefix for one run. */
export function limitArgv(prlimit: string, timeoutMs: number): string[] {
  return [prlimit, `--cpu=${cpuSeconds(timeoutMs)}`, `--data=${WORLD_LIMITS.memory_bytes}`, `--nproc=${WORLD_LIMITS.processes}`,
    `--fsize=${WORLD_LIMITS.file_bytes}`, `--nofile=${WORLD_LIMITS.open_files}`, '--core=0', '--'];
}

/** Parse the soft limits of interest from the text of /proc/self/limits. */
export function parseLimits(text: string): Partial<Record<'cpu' | 'memory' | 'processes' | 'fileSize', number>> {
  const names: Record<string, 'cpu' | 'memory' | 'processes' | 'fileSize'> = {
    'Max cpu time': 'cpu', 'Max data size': 'memory', 'Max processes': 'processes', 'Max file size': 'fileSize',
  };
  const out: Partial<Record<'cpu' | 'memory' | 'processes' | 'fileSize', number>> = {};
  for (const line of text.split('\n')) {
    for (const [label, key] of Object.entries(names)) {
      if (!line.startsWith(label)) continue;
      const soft = line.slice(label.length).trim().split(/\s+/)[0];
      if (soft && /^\d+$/.test(soft)) out[key] = Number(soft);
    }
  }
  return out;
}
