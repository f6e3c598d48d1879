/**
 * The pause on a disk that refuses writes: how long the daemon waits before
 * it tries again, and what `pico status` says meanwhile.
 *
 * A full disk or an I/O error is not a session's fault, so no session is
 * closed for it: the daemon stops handing jobs over, waits, and lets the next
 * session be the probe. The wait starts at 250 ms and doubles to 8 s, so a
 * disk that comes back is used within seconds, and one that does not costs
 * one failed attempt per 8 s. The first session that gets through ends the
 * pause. A filesystem out of inodes refuses every new file with the same
 * ENOSPC while bytes are free: the same pause, told apart by statfs so the
 * log and `pico status` say "inodes" and `df -i`. Intake pauses too: a claim
 * makes a folder (a new inode), so a claim that the disk refuses pauses the
 * daemon like a session would (pauseIntake), the entry stays in the inbox,
 * the spool tries it again with its own doubling wait, and the first claim
 * that gets through ends the pause. DiskPause keeps time and words;
 * pauseForStorage, pauseIntake and writingWorks are the transitions of the
 * daemon (requeue, take jobs back from the worker, say so in status.json and
 * the log), over the part of the daemon's bookkeeping (context.ts) they
 * touch, named here as PauseHost.
 */
import { statfsSync } from 'node:fs';
import type { Logger } from 'pino';
import { storageCode, storageFix } from '../base/storage-error.js';
import type { Notifier } from './notify.js';
import type { QueuedJob } from './queue.js';
import type { SessionRunner } from './seams.js';
import type { DaemonStatus, StatusPublisher } from './status.js';

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
  /** what the disk refused last: a session's writes, or a claim's (intake) */
  of: 'session' | 'intake';
}

export class DiskPause {
  private backoffMs = 0;
  private record: PauseRecord | null = null;

  /** The current pause, or null while writes work. */
  get current(): PauseRecord | null {
    return this.record;
  }

  /** A write under `dir` failed: the next wait (doubled), and what to show. */
  failed(err: Error, dir: string | null = null, now = new Date(), of: PauseRecord['of'] = 'session'): PauseRecord {
    const code = storageCode(err) ?? 'EIO';
    this.backoffMs = Math.min(MAX_DISK_BACKOFF_MS, this.backoffMs * 2 || FIRST_MS);
    const inodes = code === 'ENOSPC' && dir !== null && outOfInodes(dir);
    const reason = inodes ? `no free inodes on the filesystem of ${dir} (bytes are free, but no new file can be made): ${err.message}` : err.message;
    this.record = { code, reason, fix: inodes ? INODES_FIX : storageFix(code), since: this.record?.since ?? now.toISOString(), retry_in_ms: this.backoffMs, of };
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

/** A pause as status.json shows it (what `of` tells apart is the daemon's own business). */
function shown(p: PauseRecord): NonNullable<DaemonStatus['paused']> {
  return { code: p.code, reason: p.reason, fix: p.fix, since: p.since, retry_in_ms: p.retry_in_ms };
}

/** What to do about a filesystem out of inodes. */
export const INODES_FIX = 'the filesystem of the root has no free inodes (df -i): remove files there (pico gc removes old sessions), then wait: the daemon retries by itself';

/** True when the filesystem of `dir` has no free inode for an unprivileged file (a full inode table, whatever the bytes). */
export function outOfInodes(dir: string): boolean {
  try {
    const s = statfsSync(dir);
    return s.files > 0 && s.ffree === 0;
  } catch {
    return false; // cannot tell: the bytes' wording stands
  }
}

/** What a disk pause touches in the daemon (context.ts's DaemonContext is one). */
export interface PauseHost {
  readonly paths: { readonly sessions: string };
  readonly stop: AbortController;
  readonly queue: { requeue(item: QueuedJob): void };
  readonly inFlight: ReadonlyMap<string, { item: QueuedJob; begun: boolean; cancelling: boolean }>;
  readonly runtime: SessionRunner | null;
  readonly status: StatusPublisher;
  readonly notifier: Notifier | null;
  readonly log: Logger;
  readonly diskPause: DiskPause;
  /** no hand-over before this time */
  pausedUntil: number;
}

/**
 * The disk refused a write (ENOSPC, EIO): the session is not at fault and stays claimed. It goes
 * back to the queue, jobs handed over but not begun are taken back (they would hit the same
 * disk), and no job is handed over until a backoff passes; then the next session is the probe.
 * The first session to get through again ends the pause (writingWorks).
 */
export function pauseForStorage(d: PauseHost, item: QueuedJob, err: Error): void {
  if (!d.stop.signal.aborted) d.queue.requeue(item);
  if (performance.now() < d.pausedUntil) return; // the jobs handed over with it failed on the same disk
  const p = d.diskPause.failed(err, d.paths.sessions);
  d.pausedUntil = performance.now() + p.retry_in_ms;
  for (const f of d.inFlight.values()) {
    if (!f.begun && !f.cancelling) {
      f.cancelling = true;
      d.runtime!.cancel(f.item.id);
    }
  }
  d.status.update((s) => (s.paused = shown(p)));
  d.notifier?.send({ STATUS: `paused: ${p.code} writing sessions; ${p.fix}` });
  d.log.error({ event: 'paused', job: item.id, session: item.id, code: p.code, err: p.reason, retry_in_ms: p.retry_in_ms }, `the disk refused a write (${p.code}) while running ${item.id}; sessions wait and are tried again in ${p.retry_in_ms} ms: ${p.fix}`);
}

/**
 * The disk refused a claim or a rejection (intake makes a folder or a reason file: a new inode and
 * bytes). The entry stays in the inbox and the spool tries it again; a pause already on is not
 * announced again. Hand-overs are left alone: a queued session that hits the same disk pauses
 * itself (pauseForStorage).
 */
export function pauseIntake(d: PauseHost, err: Error): void {
  if (d.diskPause.current) return;
  const p = d.diskPause.failed(err, d.paths.sessions, new Date(), 'intake');
  d.status.update((s) => (s.paused = shown(p)));
  d.notifier?.send({ STATUS: `paused: ${p.code} taking jobs in; ${p.fix}` });
  d.log.error({ event: 'paused', code: p.code, err: p.reason, file: (err as { file?: string }).file ?? null }, `the disk refused a write (${p.code}) while taking a job in: ${p.reason}; the job stays in the inbox and is tried again: ${p.fix}`);
}

/**
 * A session (or a claim) got through: if the daemon was paused on the disk, it is not any more. A
 * claim ends only a pause that a claim began: it makes a folder and renames a file, which says
 * nothing of the writes that failed a session (an I/O error in the ledger, say), and ending that
 * pause on it would hand sessions to the same disk again at once, with the wait started over.
 */
export function writingWorks(d: PauseHost, id: string, by: PauseRecord['of'] = 'session'): void {
  if (by === 'intake' && d.diskPause.current?.of === 'session') return;
  const was = d.diskPause.cleared();
  if (!was) return;
  d.pausedUntil = 0;
  d.status.update((s) => (s.paused = null));
  void d.status.keepReserve();
  d.log.info({ event: 'unpaused', session: id, code: was.code, paused_since: was.since }, `writing works again (${id} got through); the paused sessions run`);
}
