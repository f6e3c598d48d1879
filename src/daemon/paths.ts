/**
 * Where the daemon keeps things under a root — the one owner of these names.
 *
 *   sessions/inbox/            job files arrive here (see spool.ts for the convention)
 *   sessions/<id>/job.json     a claimed job; the session folder is its whole state
 *   sessions/<id>/result.json  written by the runtime when the session ends
 *   sessions/rejected/         bad input, each beside <name>.reason.json
 *   sessions/.daemon/          status.json, the single-instance lock, the live worker's pid and
 *                              manifests.last-good.json, the set of manifests in force
 *
 * This module only names paths; it creates nothing and reads nothing.
 */
import { join, resolve } from 'node:path';

export interface DaemonPaths {
  root: string;
  sessions: string;
  inbox: string;
  rejected: string;
  daemonDir: string;
  status: string;
  lock: string;
  /** pid and identity of the live session worker */
  worker: string;
  /** the manifests in force: what a worker falls back to when the folders do not load (root/snapshot.ts) */
  lastGood: string;
}

/** The daemon's paths under `root` (made absolute). */
export function daemonPaths(root: string): DaemonPaths {
  const abs = resolve(root);
  const sessions = join(abs, 'sessions');
  const daemonDir = join(sessions, '.daemon');
  return {
    root: abs,
    sessions,
    inbox: join(sessions, 'inbox'),
    rejected: join(sessions, 'rejected'),
    daemonDir,
    status: join(daemonDir, 'status.json'),
    lock: join(daemonDir, 'lock'),
    worker: join(daemonDir, 'worker'),
    lastGood: join(daemonDir, 'manifests.last-good.json'),
  };
}

/** Files of one session folder. */
export function sessionFiles(paths: DaemonPaths, id: string): { dir: string; job: string; result: string; ledger: string } {
  const dir = join(paths.sessions, id);
  return { dir, job: join(dir, 'job.json'), result: join(dir, 'result.json'), ledger: join(dir, 'events.jsonl') };
}
