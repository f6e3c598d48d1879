/**
 * Claiming: stable inbox entries become queued jobs, a time slice at a time.
 *
 * The spool (spool.ts) reports entries that stopped changing; intake.ts
 * inspects each and claims or rejects it. This module feeds intake from the
 * daemon's side: each slice's entries are claimed, made durable and queued,
 * then the event loop turns (jobs are handed over, results written), so a
 * burst of hundreds of files feeds the worker as it goes instead of making
 * it wait for the whole burst. Failures are thrown together at the end, so
 * the spool retries only what failed. A claim the disk refuses (full, out of
 * inodes) pauses the daemon as a session's write would (disk-pause.ts), and
 * the first claim that gets through again ends the pause.
 */
import { isStorageError } from '../base/storage-error.js';
import type { DaemonContext } from './context.js';
import { pauseIntake, writingWorks } from './disk-pause.js';
import { takeIn } from './intake.js';
import { rejectEntry } from './reject.js';
import { badNameProblem } from './inspect.js';

/**
 * Time spent claiming inbox entries per turn of the event loop during a burst. The first
 * slice claims one entry, so the worker starts at once; after each slice the loop hands
 * jobs over and writes results, so the worker never runs dry behind a long stretch of
 * claims (a claim makes a folder and two files: 0.3–1.5 ms on the dev VM's ext4). Each
 * slice ends with the directory fsyncs of its claims, so slices should not be tiny either.
 */
const INTAKE_SLICE_MS = 8;

/** Claim or reject stable inbox entries (intake.ts) a slice at a time, queueing each slice's claims as it goes. */
export async function claimInSlices(d: DaemonContext, names: string[]): Promise<void> {
  const failed: Error[] = [];
  for (let i = 0; i < names.length; ) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const r = await takeIn(d.paths, names.slice(i), d.log, d.opts.maxJobBytes, i === 0 ? 0 : performance.now() + INTAKE_SLICE_MS);
    i += r.taken;
    if (r.rejected > 0) {
      d.status.update((s) => (s.counts.rejected += r.rejected));
      d.observe((o) => o.rejected?.(r.rejected));
    }
    for (const { id, job } of r.claimed) {
      d.labels.set(id, job.label ?? null);
      d.queue.push(id, job.budget_class);
      d.observe((o) => o.queued?.({ session: id, budget_class: job.budget_class, resumed: false }));
    }
    if (r.claimed.length > 0) writingWorks(d, r.claimed[0]!.id, 'intake');
    const refused = r.failed.find(isStorageError);
    if (refused) pauseIntake(d, refused);
    failed.push(...r.failed);
    d.publishQueue();
    d.wake();
  }
  if (failed.length > 0) {
    const err = new AggregateError(failed, `could not handle ${failed.length} inbox entr${failed.length === 1 ? 'y' : 'ies'}: ${failed.map((e) => e.message).join('; ')}`);
    // the pause said it once (pauseIntake): each retry on the same full disk is not news
    throw Object.assign(err, { quiet: failed.every(isStorageError) && d.diskPause.current !== null });
  }
}

/**
 * An inbox entry whose name is not UTF-8 (the spool hands it over by its bytes): moved to
 * rejected/ under a safe name, with a reason naming the bytes. A disk that refuses the move
 * pauses the daemon as a refused claim does.
 */
export async function rejectBadName(d: DaemonContext, raw: Buffer): Promise<void> {
  const { problem, fix } = badNameProblem(raw);
  try {
    const r = await rejectEntry(d.paths, raw, problem, fix);
    d.log.warn({ event: 'rejected', file: raw.toString('utf8'), file_hex: raw.toString('hex'), stored_as: r?.stored_as ?? null, problem, fix }, `rejected an inbox entry: ${problem}`);
    if (r) {
      d.status.update((s) => s.counts.rejected++);
      d.observe((o) => o.rejected?.(1));
    }
  } catch (err) {
    if (!isStorageError(err)) throw err;
    pauseIntake(d, err as Error);
    throw Object.assign(err as Error, { quiet: true });
  }
}
