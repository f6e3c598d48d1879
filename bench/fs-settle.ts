/**
 * The bench folder's state, for the daemon bench: what a new folder and file cost there now,
 * against appending to a file, and a wait until that is what it normally is. On the dev VM's
 * ext4, which has no journal, new files cost 10-50 times more for a minute or two after many
 * were deleted nearby (an `npm ci`, a test run, an earlier bench's roots).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a new folder plus a new file cost in `dir` now, in µs: a claim makes one of each (and
 * the result one more file). On the dev VM's ext4, which has no journal, the inode allocator
 * skips inodes freed in the last minutes, so right after a test run deleted its temp roots this
 * is 10–25 times what it is in a quiet folder; the row lets a reader see which case a run was.
 */
function folderAndFileUs(dir: string, n = 100): number {
  mkdirSync(dir);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    mkdirSync(join(dir, String(i)));
    closeSync(openSync(join(dir, String(i), 'f'), 'a'));
  }
  return ((performance.now() - t0) / n) * 1000;
}

/** What appending 4 KiB to an existing file costs in `dir` now, in µs: the yardstick for folderAndFileUs. */
function appendUs(dir: string, n = 100): number {
  const fd = openSync(join(dir, 'append-probe'), 'a');
  const block = Buffer.alloc(4096, 0x61);
  try {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) writeSync(fd, block);
    return ((performance.now() - t0) / n) * 1000;
  } finally {
    closeSync(fd);
  }
}

/** A new folder and file may cost this many appends before the bench folder counts as unsettled. */
export const SETTLED_RATIO = 8;
/** The longest the bench waits for the folder to settle (the slow spell lasts one to two minutes). */
const SETTLE_MAX_MS = 180_000;

/**
 * Wait until new files in `dir` cost what they normally do (see folderAndFileUs): a new folder and
 * file within SETTLED_RATIO appends to an existing file, probed every 5 s, for up to SETTLE_MAX_MS.
 * Normally that is 2–5 appends; in the minutes after a mass deletion nearby (an `npm ci` replacing
 * node_modules, a test run's temp roots, the memory bench of a run just before) it is 20–50, and a
 * burst measured then measures the filesystem's spell, not the daemon. The wait and both probes go
 * in the bench's table, so a reader sees when a run began in that spell.
 */
export async function settleFolder(dir: string): Promise<{ waitedMs: number; firstUs: number; us: number; ratio: number }> {
  const t0 = performance.now();
  let firstUs = NaN;
  for (let probe = 0; ; probe++) {
    const us = folderAndFileUs(join(dir, `probe-${probe}`), 50);
    const ratio = us / appendUs(dir);
    if (probe === 0) firstUs = us;
    const waitedMs = performance.now() - t0;
    if (ratio <= SETTLED_RATIO || waitedMs >= SETTLE_MAX_MS) return { waitedMs, firstUs, us, ratio };
    await sleep(5000);
  }
}

