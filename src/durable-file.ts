/**
 * Atomic, durable files: the one place that writes a file by temp name and
 * rename, and fsyncs directories.
 *
 * A rename is atomic but only durable once the directories it touched are
 * fsynced; without that, a power cut can undo a move the program already
 * acted on (a claim, a rejection, a submitted job). Every whole-file write
 * of picoharness outside the ledger goes through here: result.json, reason
 * files, status.json, submitted jobs. Synchronous and asynchronous forms
 * exist because the runtime is synchronous on purpose (one job at a time)
 * while the daemon's intake must not stall its event loop. This module does
 * not decide what to write where.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A dot-name beside `path`, unique to this write (readers and the spool ignore dot-files). */
function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Flush a directory's entries (new names, removed names) to disk. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Write `data` to `path` via a temp file and a rename; with `durable`, fsync the file and its directory. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, durable = true): void {
  const tmp = tempBeside(path);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (durable) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    unlinkQuietly(tmp);
    throw err;
  }
  if (durable) syncDir(dirname(path));
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The asynchronous syncDir. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The asynchronous writeFileAtomicSync. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, durable = true): Promise<void> {
  const tmp = tempBeside(path);
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(data);
    if (durable) await fh.datasync();
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  if (durable) await fsyncDir(dirname(path));
}
