// Shared helpers for the world tests: real temp roots and a /proc scan for survivors.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';

export const SCRIPTS = resolve(import.meta.dirname, '../fixtures/scripts');

/** A fresh temporary directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'pico-world-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A marker unique to one test, passed as an argument so survivors can be found by their command line. */
export function marker(): string {
  return `pico-marker-${randomUUID()}`;
}

/** Host pids of live processes whose command line contains the marker. */
export async function pidsWith(mark: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = await readFile(`/proc/${name}/cmdline`, 'utf8');
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmd.includes(mark) && state !== 'Z') pids.push(Number(name));
    } catch { /* the process ended while we looked */ }
  }
  return pids;
}

/** Kill the processes this test started (found by its own marker) so a failed test leaves nothing behind. */
export async function killMarked(mark: string): Promise<void> {
  for (const pid of await pidsWith(mark)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

/**
 * How long a stopped tool's processes may take to be gone. The kill grace is 300 ms (world/run.ts
 * KILL_GRACE_MS); on the loaded 2-core CI machine the grace's timer and the kill's delivery once
 * came more than 700 ms late (CI of 2026-12-06: two survivors at 1 s). survivorsAfter returns as
 * soon as none is left, so a run that passes is as quick as before; one that leaves a process
 * running fails all the same.
 */
export const GONE_WITHIN_MS = 5_000;

/** Wait until no process carries the marker, or the deadline passes; returns the survivors. */
export async function survivorsAfter(mark: string, waitMs: number): Promise<number[]> {
  const until = Date.now() + waitMs;
  let left = await pidsWith(mark);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    left = await pidsWith(mark);
  }
  return left;
}
