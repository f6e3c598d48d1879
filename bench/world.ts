/**
 * Bench rows for the execution world: what isolation costs per call, and how
 * quickly a hang or a flood is stopped. Speed goals live here, never in unit
 * tests (they would flake on a loaded 2-core CI box). `npm run bench`'s
 * "world" group (main.ts); it lives with the other bench groups, not in src/.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorldCapabilities } from '../src/world/capabilities.js';
import { runInWorld, KILL_GRACE_MS } from '../src/world/run.js';
import { ISOLATION_ORDER, NO_ISOLATION, worldCapabilities } from '../src/world/sandbox.js';
import type { BenchRow } from './types.js';

const NONE = NO_ISOLATION;

/** The p-th percentile of a sample (nearest rank). */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Wall time of `n` runs of `true` at one isolation level. */
async function trueRuns(cwd: string, caps: WorldCapabilities, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await runInWorld({ argv: ['true'], cwd, timeoutMs: 10_000, maxOutputBytes: 1024 }, { capabilities: caps });
    times.push(performance.now() - t);
  }
  return times;
}

/** Measure the world on this machine. */
export async function benchWorld(n = 20): Promise<BenchRow[]> {
  const caps = await worldCapabilities();
  const cwd = await mkdtemp(join(tmpdir(), 'pico-bench-world-'));
  try {
    const rows: BenchRow[] = [];
    rows.push({ group: 'world', name: `isolation level (${ISOLATION_ORDER.join(' < ')})`, value: ISOLATION_ORDER.indexOf(caps.level), unit: 'level',
      note: `${caps.level}${caps.wrapper ? ` via ${caps.wrapper}` : ''}; not enforced: ${caps.notEnforced.join('; ') || 'nothing'}` });
    const bare = await trueRuns(cwd, NONE, n);
    rows.push({ group: 'world', name: 'spawn true, no isolation, p50', value: percentile(bare, 50), unit: 'ms' });
    if (caps.level !== 'none') {
      const iso = await trueRuns(cwd, caps, n);
      rows.push({ group: 'world', name: `spawn true, isolation ${caps.level}, p50`, value: percentile(iso, 50), unit: 'ms',
        note: 'goal <= 100 ms on a Pi 5' });
      rows.push({ group: 'world', name: `spawn true, isolation ${caps.level}, p90`, value: percentile(iso, 90), unit: 'ms' });
    }
    const limit = 200;
    const hang = await runInWorld({ argv: ['sh', '-c', "trap '' TERM; while :; do sleep 1; done"], cwd, timeoutMs: limit, maxOutputBytes: 1024 });
    rows.push({ group: 'world', name: 'hang stopped after limit (overshoot)', value: hang.durationMs - limit, unit: 'ms',
      note: `goal <= ${KILL_GRACE_MS + 100} ms (grace ${KILL_GRACE_MS} ms)` });
    const t = performance.now();
    const flood = await runInWorld({ argv: ['yes'], cwd, timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    rows.push({ group: 'world', name: 'flood of 1 MiB cap stopped', value: performance.now() - t, unit: 'ms',
      note: flood.truncated ? 'goal <= 250 ms (SIGKILL at once)' : 'NOT truncated: the cap failed' });
    return rows;
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
