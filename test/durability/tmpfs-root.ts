/**
 * A root whose sessions/ folder is a small tmpfs, with example jobs staged on it: the
 * disk-full and inode suites fill that filesystem while the daemon serves the root, then
 * rename the staged jobs into the inbox (a rename needs neither bytes nor a new inode, so
 * the jobs arrive on a filesystem that has none left).
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { initRoot } from '../../src/root/init.js';
import { pico } from '../daemon/spawn.js';
import { mountTmpfs } from '../helpers/tmpfs.js';
import { tempDir } from '../helpers/temp.js';

export interface TmpfsRoot {
  root: string;
  sessions: string;
  /** Move every staged job into the inbox. */
  arrive(): void;
}

/** A fresh root with sessions/ on a tmpfs of `size` (at most `inodes` files when given) and `jobs` example jobs staged there. */
export function tmpfsRoot(prefix: string, size: string, jobs: number, inodes?: number): TmpfsRoot {
  const root = tempDir(prefix); // removed when the file ends, after tmpfs.ts has unmounted sessions/
  initRoot(root);
  const sessions = join(root, 'sessions');
  const why = mountTmpfs(sessions, size, inodes);
  if (why) throw new Error(why);
  for (const d of ['inbox', 'rejected', '.staging']) mkdirSync(join(sessions, d), { recursive: true });
  const good = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8');
  const staging = join(sessions, '.staging');
  for (let i = 0; i < jobs; i++) writeFileSync(join(staging, `job-${String(i).padStart(2, '0')}.json`), good);
  return { root, sessions, arrive: () => { for (const n of readdirSync(staging)) renameSync(join(staging, n), join(sessions, 'inbox', n)); } };
}

/** The pause `pico status --json` reports for `root`, or null. */
export function pauseOf(root: string): { code: string; reason: string; fix: string } | null {
  type Status = { status: { paused?: { code: string; reason: string; fix: string } | null } };
  return (JSON.parse(pico(['status', '--root', root, '--json']).stdout) as Status).status.paused ?? null;
}

/** The pause once `pico status` reports one (status.json is written a moment after the log line), or null after 5 s. */
export async function untilPaused(root: string): Promise<ReturnType<typeof pauseOf>> {
  let paused = pauseOf(root);
  for (let i = 0; i < 50 && !paused; i++) {
    await sleep(100);
    paused = pauseOf(root);
  }
  return paused;
}
