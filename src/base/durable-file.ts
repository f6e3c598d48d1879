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
 *
 * Whole or not at all: write(2) may write fewer bytes than asked (a nearly
 * full disk, a signal), so every write loops until all bytes are out or a
 * write fails; the temp file is fsynced and its size checked against the
 * data before the rename, so a reader sees the old file or the whole new
 * one, never a prefix. A failure (ENOSPC, EIO) removes the temp file and
 * throws; the target is untouched.
 */
import { closeSync, fstatSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { StorageError, storageCode } from './storage-error.js';

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

/** Thrown when a file ended up shorter than what was written to it (it is never renamed into place). */
export class ShortWriteError extends StorageError {
  constructor(message: string) {
    super(message, 'EIO');
  }
}

/**
 * Write all of `buf` at the descriptor's position (or at `position` and after), looping over
 * short writes; a write that makes no progress is an error, never a silent truncation.
 */
export function writeAllSync(fd: number, buf: Uint8Array, position: number | null = null): void {
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off, position === null ? null : position + off);
    if (n <= 0) throw new ShortWriteError(`write made no progress after ${off} of ${buf.length} bytes`);
    off += n;
  }
}

/** Check that the file behind `fd` holds exactly `bytes` bytes. */
function checkSize(fd: number, bytes: number, path: string): void {
  const size = fstatSync(fd).size;
  if (size !== bytes) throw new ShortWriteError(`${path}: ${size} bytes on disk after writing ${bytes}; the file was not put in place`);
}

/**
 * Write `data` to `path` via a temp file, fsync, a size check and a rename; with `durable`,
 * the directory is fsynced too (the rename survives a power cut). `mode` is the new file's mode.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, durable = true, mode = 0o644): void {
  replace(path, data, true, mode);
  if (durable) syncDir(dirname(path));
}

/**
 * Put `data` in place whole (temp name, size check, rename) without any fsync: while the machine
 * runs, a reader sees the old file or the whole new one; after a power cut the file may be
 * missing, empty or cut short. Only for a file whose reader checks it is whole and rebuilds it
 * from a durable source (result.json, from its fdatasynced ledger: daemon/recovery.ts).
 */
export function replaceFileSync(path: string, data: string | Uint8Array, mode = 0o644): void {
  replace(path, data, false, mode);
}

function replace(path: string, data: string | Uint8Array, sync: boolean, mode: number): void {
  const tmp = tempBeside(path);
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  let fd: number;
  try {
    fd = openSync(tmp, 'wx', mode);
  } catch (err) {
    throw named(err, path);
  }
  try {
    writeAllSync(fd, buf);
    if (sync) fsyncSync(fd);
    checkSize(fd, buf.length, path);
  } catch (err) {
    closeSync(fd);
    unlinkQuietly(tmp);
    throw named(err, path);
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    unlinkQuietly(tmp);
    throw named(err, path);
  }
}

/** A storage fault names the file it hit (the bare errno message does not). */
function named(err: unknown, path: string): unknown {
  const code = storageCode(err);
  return code && !(err instanceof StorageError) ? new StorageError(`writing ${path}: ${(err as Error).message}`, code, { cause: err }) : err;
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

/**
 * fsync several directories at once, on the thread pool: the disk sees them together (one journal
 * commit covers them all on ext4), and the calling thread is free meanwhile. One after another,
 * twenty directories of a slice of claims held the daemon's thread for 4 to 65 ms on the dev VM;
 * together they took 2 to 5 ms. Every descriptor is closed before it settles; the first failure is
 * thrown.
 */
export async function fsyncDirs(dirs: readonly string[]): Promise<void> {
  const done = await Promise.allSettled(dirs.map((d) => fsyncDir(d)));
  const failed = done.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The asynchronous writeFileAtomicSync (FileHandle.writeFile loops over short writes itself). */
export async function writeFileAtomic(path: string, data: string | Uint8Array, durable = true, mode = 0o644): Promise<void> {
  const tmp = tempBeside(path);
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const fh = await open(tmp, 'wx', mode).catch((err: unknown) => {
    throw named(err, path);
  });
  try {
    await fh.writeFile(buf);
    await fh.datasync();
    const size = (await fh.stat()).size;
    if (size !== buf.length) throw new ShortWriteError(`${path}: ${size} bytes on disk after writing ${buf.length}; the file was not put in place`);
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw named(err, path);
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
