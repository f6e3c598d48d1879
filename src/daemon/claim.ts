/**
 * Claiming a job: the atomic rename of `inbox/<name>` to `sessions/<id>/job.json`.
 *
 * Why a rename: it is atomic on one filesystem, so a job file is either in
 * the inbox (unclaimed) or in its session folder (claimed) and never both —
 * a job runs at most once even across crashes, and a job file found in a
 * session folder without result.json is a claimed job that recovery resumes.
 * The session folder is made first (its own mkdir is the claim of the id);
 * an empty folder left by a crash between mkdir and rename is reused.
 * `syncClaims` makes a batch of claims durable with one fsync per directory;
 * the loop runs nothing of a batch before it returns. This module does not
 * validate the job (inspect.ts) nor run it (loop.ts).
 */
import { mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { newSessionId } from '../ledger/session-id.js';
import { fsyncDir } from './durable.js';
import { sessionFiles, type DaemonPaths } from './paths.js';

export interface Claimed {
  id: string;
  jobPath: string;
}

/** Make sessions/<id>/ for a claim; false when another session already owns the id. */
async function makeSessionDir(dir: string): Promise<boolean> {
  try {
    await mkdir(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await readdir(dir)).length === 0; // an empty folder: a crash between mkdir and rename
  }
}

/** Claim inbox entry `name` under `preferredId` (or a new id); null when the file vanished first. */
export async function claimJob(paths: DaemonPaths, name: string, preferredId: string | null): Promise<Claimed | null> {
  let id = preferredId ?? newSessionId();
  for (let tries = 0; !(await makeSessionDir(sessionFiles(paths, id).dir)); tries++) {
    if (tries > 5) throw new Error(`claim ${name}: could not make a fresh session folder under ${paths.sessions}; check the folder is writable`);
    id = newSessionId(); // the name's id is taken by an existing session: the job still runs, under a new id
  }
  const files = sessionFiles(paths, id);
  try {
    await rename(join(paths.inbox, name), files.job);
  } catch (err) {
    await rmdir(files.dir).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return { id, jobPath: files.job };
}

/** Make a batch of claims durable: the inbox, the sessions folder and each claimed session folder. */
export async function syncClaims(paths: DaemonPaths, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await fsyncDir(paths.sessions);
  for (const id of ids) await fsyncDir(sessionFiles(paths, id).dir);
  await fsyncDir(paths.inbox);
}
