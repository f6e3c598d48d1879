/**
 * Claiming a job: the atomic rename of `inbox/<name>` to `sessions/<id>/job.json`.
 *
 * Why a rename: it is atomic on one filesystem, so a job file is either in
 * the inbox (unclaimed) or in its session folder (claimed) and never both —
 * a job runs at most once even across crashes, and a job file found in a
 * session folder without result.json is a claimed job that recovery resumes.
 * The session folder is made first (its own mkdir is the claim of the id);
 * an empty folder left by a crash between mkdir and rename is reused. After
 * A fleet job (inbox name `fleet-<id>.json`, dropped by `pico fleet agent` after
 * it claimed the id across the fleet) is the one exception to "a clashing id
 * runs under a new id": its id names one job everywhere, so an existing session
 * of that id IS this job, already taken, and the inbox copy is removed unrun.
 * After the rename the claim also makes the session's empty ledger, so the worker
 * that runs it appends to an existing file (an empty ledger means "claimed,
 * not begun"; recovery reads it so).
 * `syncClaims` makes a batch of claims durable with one fsync per directory;
 * the loop runs nothing of a batch before it returns. This module does not
 * validate the job (inspect.ts) nor run it (loop.ts).
 */
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isSessionId, newSessionId } from '../ledger/session-id.js';
import { fsyncDir, fsyncDirs } from '../base/durable-file.js';
import { sessionFiles, type DaemonPaths } from './paths.js';

export interface Claimed {
  id: string;
  jobPath: string;
}

/** The inbox name of a fleet job: `fleet-<session id>.json` (src/fleet/ writes it). */
export function fleetInboxName(id: string): string {
  return `fleet-${id}.json`;
}

/** The job id of a fleet job's inbox name, or null when `name` is not one. */
export function fleetJobId(name: string): string | null {
  const m = /^fleet-(.+)\.json$/.exec(name);
  return m && isSessionId(m[1]!) ? m[1]! : null;
}

/** Make sessions/<id>/ for a claim; false when another session already owns the id. */
async function makeSessionDir(dir: string): Promise<boolean> {
  try {
    mkdirSync(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readdirSync(dir).length === 0; // an empty folder: a crash between mkdir and rename
  }
}

/**
 * Claim inbox entry `name` under `preferredId` (or a new id); null when the file vanished first,
 * or (`once`: a fleet job) when a session of that id exists: the job was taken already.
 */
export async function claimJob(paths: DaemonPaths, name: string, preferredId: string | null, once = false): Promise<Claimed | null> {
  let id = preferredId ?? newSessionId();
  for (let tries = 0; !(await makeSessionDir(sessionFiles(paths, id).dir)); tries++) {
    if (once) {
      rmSync(join(paths.inbox, name), { force: true });
      return null;
    }
    if (tries > 5) throw new Error(`claim ${name}: could not make a fresh session folder under ${paths.sessions}; check the folder is writable`);
    id = newSessionId(); // the name's id is taken by an existing session: the job still runs, under a new id
  }
  const files = sessionFiles(paths, id);
  try {
    renameSync(join(paths.inbox, name), files.job);
  } catch (err) {
    try {
      rmdirSync(files.dir);
    } catch {
      // leave it: an empty folder is recognised as a crash leftover and reused
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  // The empty ledger is made here, so the worker opens an existing file instead of paying
  // for a new inode between its fdatasyncs; a crash before this line leaves a job.json
  // without a ledger, which the runtime handles the same way (it creates one).
  try {
    closeSync(openSync(files.ledger, 'a', 0o644));
  } catch {
    // no room for a new inode (a full disk): the claim stands, and the runtime creates the ledger
  }
  return { id, jobPath: files.job };
}

/**
 * Make a batch of claims durable: the sessions folder and each claimed session folder together
 * (fsyncDirs), then the inbox, whose entries have left it only once their new places are on the
 * disk. The daemon's thread hands jobs over and settles answers while the disk works.
 */
export async function syncClaims(paths: DaemonPaths, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await fsyncDirs([paths.sessions, ...ids.map((id) => sessionFiles(paths, id).dir)]);
  await fsyncDir(paths.inbox);
}
