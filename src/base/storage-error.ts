/**
 * Storage errors: the disk, not the job, is at fault.
 *
 * A full disk (ENOSPC, EDQUOT), an I/O error (EIO), a read-only remount
 * (EROFS) or a file-size limit (EFBIG) says nothing about the job being
 * written: the same write works once space comes back. The same holds for
 * running out of file descriptors (EMFILE, ENFILE) or kernel memory
 * (ENOMEM). So these are told apart from every other failure, everywhere:
 * the daemon pauses the session and tries again later instead of closing
 * it, and a command reports the disk (or the machine), not a bug. This module only classifies; it retries nothing.
 */

/** Faults of the disk, and of the machine's file and memory limits: none is the session's doing. */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EFBIG', 'EMFILE', 'ENFILE', 'ENOMEM']);

/** A write that did not reach the disk whole; `code` is the errno name. */
export class StorageError extends Error {
  override name = 'StorageError';
  constructor(message: string, readonly code: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The errno name of a storage fault, or null when `err` is something else. */
export function storageCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (STORAGE_CODES.has(code)) return code;
  // SQLite's own names for the same faults (better-sqlite3 sets them as the code)
  if (code === 'SQLITE_FULL') return 'ENOSPC';
  if (code.startsWith('SQLITE_IOERR')) return 'EIO';
  if (code === 'SQLITE_READONLY') return 'EROFS';
  return null;
}

/** True for a storage fault, raw (an ErrnoException) or wrapped (StorageError). */
export function isStorageError(err: unknown): boolean {
  return err instanceof StorageError || storageCode(err) !== null;
}

/** What an operator should do about a storage fault. */
export function storageFix(code: string): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free space on the filesystem of the root (df -h), then wait: the daemon retries by itself';
  if (code === 'EROFS') return 'the filesystem was remounted read-only (often after disk errors); check dmesg, repair it and remount read-write';
  if (code === 'EFBIG') return 'a file-size limit was hit (ulimit -f, or the filesystem\'s maximum); raise it';
  if (code === 'EMFILE' || code === 'ENFILE') return 'the process or the system ran out of file descriptors (ulimit -n, fs.file-max); raise the limit or stop what holds them; the daemon retries by itself';
  if (code === 'ENOMEM') return 'the kernel ran out of memory; free memory (a model, another service); the daemon retries by itself';
  return 'the disk reported an I/O error; check dmesg and the disk\'s health (smartctl); the daemon retries by itself';
}
