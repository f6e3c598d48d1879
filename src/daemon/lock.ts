/**
 * One daemon per root: `sessions/.daemon/lock` holds the owner's pid.
 *
 * Two daemons on one root would each resume the same unfinished session and
 * append to one ledger twice. The lock is created exclusively; a lock whose
 * pid is dead (SIGKILL, power loss) is stale and taken over. This does not
 * guard against a second daemon on another machine sharing the folder over a
 * network filesystem (do not do that). Liveness is the pid plus its start
 * time (proc.ts), so a reused pid after a reboot does not hold the lock.
 */
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import type { DaemonPaths } from './paths.js';
import { processIdentity, stillRunning } from './proc.js';

export class LockHeld extends Error {
  override name = 'LockHeld';
}

/** Take the root's daemon lock or throw LockHeld naming the live owner; returns a release function. */
export async function takeLock(paths: DaemonPaths): Promise<() => Promise<void>> {
  await mkdir(paths.daemonDir, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(paths.lock, 'wx', 0o644);
      await fh.writeFile(`${process.pid}\n${processIdentity(process.pid) ?? ''}\n`);
      await fh.sync();
      await fh.close();
      return async () => {
        const owner = Number((await readFile(paths.lock, 'utf8').catch(() => '')).split('\n')[0]);
        if (owner === process.pid) await unlink(paths.lock).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await lockOwner(paths);
    if (owner !== null) throw heldBy(paths, owner);
    await unlink(paths.lock).catch(() => undefined); // stale: its owner is gone
  }
  throw new LockHeld(`${paths.lock}: could not take the lock after 3 tries; another daemon may be starting at the same time — try again`);
}

/** The pid of the live daemon (not this process) holding the root's lock, or null when none does (no lock, or a stale one). */
export async function lockOwner(paths: DaemonPaths): Promise<number | null> {
  const [pidLine = '', identity = ''] = (await readFile(paths.lock, 'utf8').catch(() => '')).split('\n');
  const owner = Number(pidLine);
  return Number.isInteger(owner) && owner > 0 && owner !== process.pid && stillRunning(owner, identity || undefined) ? owner : null;
}

/** The error that names the daemon holding the lock and how to stop it. */
export function heldBy(paths: DaemonPaths, owner: number): LockHeld {
  return new LockHeld(`${paths.lock}: another daemon (pid ${owner}) already serves this root; stop it first (systemctl stop picoharness, or kill ${owner})`);
}
