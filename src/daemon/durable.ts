/**
 * Durable file moves for the spool: fsync a directory, write a file atomically.
 *
 * A rename is atomic but only durable once the directories it touched are
 * fsynced; without that, a power cut can undo a claim the daemon already
 * acted on. Every state transition of a job file (submit, claim, reject) goes
 * through these helpers. This module does not decide what to move where.
 */
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Flush a directory's entries (new names, removed names) to disk. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Write `data` to `path` via a dot-temp file and a rename; with `durable`, fsync file and directory. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, durable = true): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
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
