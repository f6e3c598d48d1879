/**
 * The pause on a disk that refuses writes: how long the daemon waits before
 * it tries again, and what `pico status` says meanwhile.
 *
 * A full disk or an I/O error is not a session's fault, so no session is
 * closed for it: the daemon stops handing jobs over, waits, and lets the next
 * session be the probe. The wait starts at 250 ms and doubles to 8 s, so a
 * disk that comes back is used within seconds, and one that does not costs
 * one failed attempt per 8 s. The first session that gets through ends the
 * pause. This module keeps time and words only; the loop requeues, takes
 * jobs back from the worker and logs.
 */
import { storageCode, storageFix } from '../base/storage-error.js';

const FIRST_MS = 250;
/** The longest wait between two tries of a disk that refused a write. */
export const MAX_DISK_BACKOFF_MS = 8_000;

export interface PauseRecord {
  code: string;
  reason: string;
  fix: string;
  /** ISO time the disk first refused (kept across retries) */
  since: string;
  retry_in_ms: number;
}

export class DiskPause {
  private backoffMs = 0;
  private record: PauseRecord | null = null;

  /** The current pause, or null while writes work. */
  get current(): PauseRecord | null {
    return this.record;
  }

  /** A write failed: the next wait (doubled), and what to show. */
  failed(err: Error, now = new Date()): PauseRecord {
    const code = storageCode(err) ?? 'EIO';
    this.backoffMs = Math.min(MAX_DISK_BACKOFF_MS, this.backoffMs * 2 || FIRST_MS);
    this.record = { code, reason: err.message, fix: storageFix(code), since: this.record?.since ?? now.toISOString(), retry_in_ms: this.backoffMs };
    return this.record;
  }

  /** A session got through: the pause that ended, or null when there was none. */
  cleared(): PauseRecord | null {
    const was = this.record;
    this.backoffMs = 0;
    this.record = null;
    return was;
  }
}
