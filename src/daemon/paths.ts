/**
 * Where the daemon keeps things under a root — the one owner of these names.
 *
 *   sessions/inbox/            job files arrive here (see spool.ts for the convention)
 *   sessions/<id>/job.json     a claimed job; the session folder is its whole state
 *   sessions/<id>/result.json  written by the runtime when the session ends
 *   sessions/rejected/         bad input, each beside <name>.reason.json
 *   sessions/.daemon/          status.json, the single-instance lock, the live worker's pid,
 *                              manifests.last-good.json, the set of manifests in force, and
 *                              manifests.checked-set, what the files of a set gave once checked
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
  /** the stamp of the last manifests a worker loaded and compiled (root/manifest-watch.ts) */
  checked: string;
  /** what the files of the last set a worker checked gave, for the next worker on the same bytes (root/checked-set.ts) */
  checkedSet: string;
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
    checked: join(daemonDir, 'manifests.checked'),
    checkedSet: join(daemonDir, 'manifests.checked-set'),
  };
}

/** A single plain folder name: joined to a normalised folder by concatenation, it is what join() makes. */
const PLAIN_NAME = /^(?!\.{1,2}$)[^/]+$/;

/**
 * Files of one session folder. A session id is a plain name, so its paths are concatenated:
 * join() normalises every path character by character, and the daemon asks for these paths a
 * few times per job (claim, sync, cancel look, ingest), which showed in its profile.
 */
export function sessionFiles(paths: DaemonPaths, id: string): { dir: string; job: string; result: string; ledger: string } {
  const dir = PLAIN_NAME.test(id) ? `${paths.sessions}/${id}` : join(paths.sessions, id);
  return { dir, job: `${dir}/job.json`, result: `${dir}/result.json`, ledger: `${dir}/events.jsonl` };
}
