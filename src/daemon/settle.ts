/**
 * The worker answered a job: what happens to it next.
 *
 * An answer is a session outcome, or null for a job taken back before it
 * began. A finished session's ledger is made durable first (the worker leaves
 * the answer's fdatasync to this process and is on its next job meanwhile),
 * then it gets its result file (written here, from the text the worker made
 * of the ledger), its line in status.json and the log, and a place in the
 * next memory batch (ingest-batch.ts). A session stopped at a
 * destructive step goes to the waiting list (requests.ts); one stopped by a
 * signal, or taken back, goes back to the queue, or is closed when a cancel
 * asked for the stop. When the worker could not run the job at all, the
 * answer is an error instead: settle-failure.ts.
 */
import { close, fdatasync, open } from 'node:fs';
import { replaceFileSync } from '../base/durable-file.js';
import { isStorageError, storageCode } from '../base/storage-error.js';
import type { DaemonContext, InFlight } from './context.js';
import { pauseForStorage, writingWorks } from './disk-pause.js';
import type { QueuedJob } from './queue.js';
import { sessionFiles } from './paths.js';
import { closeCancelled, settleWaiting } from './requests.js';
import type { SessionOutcome } from './seams.js';

/** The worker answered: publish the result, or put the job back (cancelled, or stopped by a signal to the worker). */
export function settle(d: DaemonContext, f: InFlight, r: SessionOutcome | null): void | Promise<void> {
  const { item } = f;
  const ms = Math.round(performance.now() - f.t0);
  const cancel = d.cancels.get(item.id);
  if (d.stoppingFor === item.id) d.stoppingFor = null;
  if (cancel && !d.stop.signal.aborted && (r === null || r.outcome === 'interrupted' || r.outcome === 'waiting')) {
    void closeCancelled(d, item, cancel); // taken back, or stopped after its step: now it is closed
    return;
  }
  if (r === null || (r.outcome === 'interrupted' && !d.stop.signal.aborted)) {
    if (r === null && d.stop.signal.aborted) return; // stays claimed: resumed on the next start
    d.queue.requeue(item);
    if (r !== null) d.log.warn({ event: 'interrupted', job: item.id, session: item.id, duration_ms: ms }, `session ${item.id} was stopped after its current step by a signal to the worker; it is queued again`);
    return;
  }
  d.workerBackoffMs = 0;
  d.deaths.delete(item.id);
  d.closing.delete(item.id);
  d.cancels.delete(item.id);
  if (r.outcome === 'waiting') {
    settleWaiting(d, item).catch((err: unknown) => {
      d.log.error({ event: 'failed', job: item.id, session: item.id, err }, `session ${item.id} waits for approval, but the waiting list could not be opened (${(err as Error).message}); it resumes on the next start`);
    });
    return;
  }
  if (r.outcome === 'interrupted') {
    d.log.info({ event: 'interrupted', job: item.id, session: item.id, duration_ms: ms }, `session ${item.id} stopped after its current step; it resumes on the next start`);
    return;
  }
  const ledger = sessionFiles(d.paths, item.id).ledger;
  return syncLedger(ledger).then(() => {
    const took = Math.round(performance.now() - f.t0); // to the answer on the disk
    if (!publish(d, item, r, took)) return;
    writingWorks(d, item.id);
    d.status.addOutcome({ session: item.id, outcome: r.outcome, duration_ms: took, finished_at: new Date().toISOString() });
    d.observe((o) => o.finished?.({ session: item.id, outcome: r.outcome, duration_ms: took, budget_class: item.budgetClass }));
    d.ingest.add(item.id);
  }, (err: unknown) => {
    // nothing is published: the answer may not be on the disk
    d.status.update((s) => s.counts.errors++);
    const message = `making ${ledger} durable (fdatasync): ${(err as Error).message}`;
    if (isStorageError(err)) return pauseForStorage(d, item, Object.assign(new Error(message), { code: storageCode(err) }));
    d.log.error({ event: 'failed', job: item.id, session: item.id, err }, `session ${item.id} answered but ${message}; it is re-closed from its ledger on the next start`);
  });
}

/**
 * fdatasync a session's ledger, on the thread pool: the worker appends the answer and leaves its
 * sync to this process (the runtime's deferResult), which keeps handing over jobs and writing
 * results while the disk works, and publishes the answer only after. Any descriptor of the file
 * syncs its data. A ledger that is not there (a stand-in runner's session) has nothing to sync.
 */
function syncLedger(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (err, fd) => {
      if (err) return err.code === 'ENOENT' ? resolve() : reject(err);
      fdatasync(fd, (syncErr) => close(fd, () => (syncErr ? reject(syncErr) : resolve())));
    });
  });
}

/**
 * Write result.json (whole, the text the worker made from the ledger), then say the job
 * finished. The worker is already on the next job meanwhile. No fsync: the ledger holds the
 * answer durably (fdatasynced by syncLedger just before), and a result a power cut loses or
 * leaves empty or cut short is re-closed from it on the next start (recovery.ts isWholeResult).
 */
function publish(d: DaemonContext, item: QueuedJob, r: SessionOutcome, ms: number): boolean {
  const id = item.id;
  try {
    if (r.resultText !== undefined && r.resultPath) replaceFileSync(r.resultPath, r.resultText);
  } catch (err) {
    d.status.update((s) => s.counts.errors++);
    if (isStorageError(err)) {
      // the answer is in the ledger: the session runs again only to re-close it, once writing works
      pauseForStorage(d, item, Object.assign(new Error(`writing ${r.resultPath}: ${(err as Error).message}`), { code: storageCode(err) }));
      return false;
    }
    d.log.error({ event: 'failed', job: id, session: id, err }, `session ${id} answered but its result file could not be written (${(err as Error).message}); it is re-closed from its ledger on the next start — check that ${r.resultPath} is writable`);
    return false;
  }
  d.status.update((s) => s.counts.finished++);
  d.log.info({ event: 'finished', job: id, session: id, outcome: r.outcome, duration_ms: ms, ...(r.run_ms !== undefined ? { run_ms: r.run_ms } : {}), result: r.resultPath });
  return true;
}
