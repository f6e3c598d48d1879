/**
 * Rejecting bad input: move the entry to `sessions/rejected/` beside a reason.
 *
 * Nothing in the inbox is silently dropped. The reason file
 * (`<stored-name>.reason.json`: the original name, the problem, the fix, when)
 * is written durably first, then the entry is renamed beside it; rename moves
 * a symlink itself and never what it points to. The stored name is
 * `<stamp>-<sanitised original>` so two rejects of the same name never
 * overwrite each other and a hostile name cannot escape the folder. A crash
 * between the two steps leaves the entry in the inbox, where it is looked at
 * (and rejected) again. The folder is 0700 and reason files are created 0600
 * (never quoting a file's content, but naming files of other users): only the
 * daemon's user may read them.
 * A name that is not UTF-8 is moved by its bytes: the reason file holds it
 * decoded with its bad bytes replaced (for reading) and, exactly, in hex.
 * `findRejection` reads them back for `pico watch` and the API.
 * This module decides nothing about validity.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { newSessionId } from '../ledger/session-id.js';
import { fsyncDir, writeFileAtomic } from '../base/durable-file.js';
import type { DaemonPaths } from './paths.js';

export interface ReasonFile {
  reason: 'rejected@1';
  /** the inbox name as it was, JSON-escaped by the encoder */
  original_name: string;
  stored_as: string;
  problem: string;
  fix: string;
  at: string;
  /** a name that is not UTF-8: its exact bytes, in hex */
  original_name_hex?: string;
}

/** A file-name-safe version of any name (control characters, slashes and dots-runs replaced). */
export function sanitiseName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const s = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/\.{2,}/g, '_').replace(/^[.-]+/, '_').slice(0, 120);
  return s.length > 0 ? s : '_';
}

/**
 * Move inbox entry `name` (its bytes when the name is not UTF-8) to rejected/ with its reason;
 * returns the reason written, or null if it vanished.
 */
export async function rejectEntry(paths: DaemonPaths, name: string | Buffer, problem: string, fix: string, now = new Date()): Promise<ReasonFile | null> {
  // rejected/ holds what strangers dropped and why: the daemon's user's alone (0700, reasons 0600)
  await mkdir(paths.rejected, { recursive: true, mode: 0o700 });
  await chmod(paths.rejected, 0o700);
  const readable = typeof name === 'string' ? name : name.toString('utf8');
  const stored = `${newSessionId(now)}-${sanitiseName(readable)}`;
  const reason: ReasonFile = { reason: 'rejected@1', original_name: readable, stored_as: stored, problem, fix, at: now.toISOString(), ...(typeof name === 'string' ? {} : { original_name_hex: name.toString('hex') }) };
  const reasonPath = join(paths.rejected, `${stored}.reason.json`);
  await writeFileAtomic(reasonPath, JSON.stringify(reason, null, 2) + '\n', true, 0o600);
  const from = typeof name === 'string' ? join(paths.inbox, name) : Buffer.concat([Buffer.from(`${paths.inbox}/`), name]);
  try {
    await rename(from, join(paths.rejected, stored));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // the entry left the inbox before we could move it: record that instead of a dangling reason
      await writeFileAtomic(reasonPath, JSON.stringify({ ...reason, problem: `${problem} (the entry vanished from the inbox before it could be moved)` }, null, 2) + '\n', true, 0o600);
      return null;
    }
    throw err;
  }
  await fsyncDir(paths.rejected);
  await fsyncDir(paths.inbox);
  return reason;
}

/** The reason file of a rejected job id, if any. */
export function findRejection(rejectedDir: string, id: string): { problem: string; fix: string } | null {
  if (!existsSync(rejectedDir)) return null;
  for (const n of readdirSync(rejectedDir)) {
    if (!n.endsWith('.reason.json')) continue;
    try {
      const r = JSON.parse(readFileSync(join(rejectedDir, n), 'utf8')) as { original_name?: string; problem: string; fix: string };
      if (r.original_name === `${id}.json`) return r;
    } catch {
      // a damaged reason file is not ours to judge here
    }
  }
  return null;
}
