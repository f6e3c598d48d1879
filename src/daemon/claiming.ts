/**
 * Claiming: stable inbox entries become queued jobs, a time slice at a time.
 *
 * The spool (spool.ts) reports entries that stopped changing; intake.ts
 * inspects each and claims or rejects it. This module feeds intake from the
 * daemon's side: each slice's entries are claimed, made durable and queued,
 * then the event loop turns (jobs are handed over, results written), so a
 * burst of hundreds of files feeds the worker as it goes instead of making
 * it wait for the whole burst. Failures are thrown together at the end, so
 * the spool retries only what failed.
 */
import type { DaemonContext } from './context.js';
import { takeIn } from './intake.js';

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
    failed.push(...r.failed);
    d.publishQueue();
    d.wake();
  }
  if (failed.length > 0) {
    throw new AggregateError(failed, `could not handle ${failed.length} inbox entr${failed.length === 1 ? 'y' : 'ies'}: ${failed.map((e) => e.message).join('; ')}`);
  }
}
