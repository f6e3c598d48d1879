/**
 * Crash-safe removal: a session is either whole or gone.
 *
 * Removing a folder of many files is not atomic, so it is first renamed (one
 * atomic step) into `sessions/.trash/`, a dot-folder that the daemon, memory
 * ingest, `pico check` and `pico status` never read as sessions; only then
 * are its memory rows deleted and its files removed. A crash at any point
 * leaves the session in place and whole, or in the trash, where the next run
 * finishes it (memory rows first, then files), so nothing half-removed is
 * ever read as a session. A rejected entry and its reason file move into one
 * trash folder together. This module moves and deletes; it does not choose.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { syncDir } from '../base/durable-file.js';
import { isSessionId } from '../ledger/session-id.js';

export const TRASH_DIR = '.trash';

/** A trash entry: its folder, and the session id it held (null for a rejected entry). */
export interface TrashEntry {
  dir: string;
  session: string | null;
}

/** The trash folder under sessions/. */
export function trashDir(sessionsDir: string): string {
  return join(sessionsDir, TRASH_DIR);
}

/** Move the paths of one candidate into a new trash folder with one rename each; returns the entry. */
export function moveToTrash(sessionsDir: string, kind: 'session' | 'rejected', name: string, paths: readonly string[]): TrashEntry {
  const trash = trashDir(sessionsDir);
  mkdirSync(trash, { recursive: true, mode: 0o700 });
  // the trash folder's name says what it held: "<session id>.<random>" or "rejected.<random>"
  const dir = join(trash, `${kind === 'session' ? name : 'rejected'}.${randomBytes(4).toString('hex')}`);
  if (kind === 'session') {
    renameSync(paths[0]!, dir); // the one atomic step: from here the session is gone from sessions/
  } else {
    mkdirSync(dir);
    for (const p of paths) renameSync(p, join(dir, basename(p)));
  }
  syncDir(sessionsDir);
  return { dir, session: kind === 'session' ? name : null };
}

/** Everything in the trash, from this run or one that crashed. */
export function trashEntries(sessionsDir: string): TrashEntry[] {
  const trash = trashDir(sessionsDir);
  if (!existsSync(trash)) return [];
  return readdirSync(trash).sort().map((name) => {
    const id = name.slice(0, name.lastIndexOf('.') === -1 ? name.length : name.lastIndexOf('.'));
    return { dir: join(trash, name), session: isSessionId(id) ? id : null };
  });
}

/** Delete a trash entry's files (its memory rows must already be gone). */
export async function emptyTrashEntry(e: TrashEntry): Promise<void> {
  await rm(e.dir, { recursive: true, force: true, maxRetries: 3 });
}
