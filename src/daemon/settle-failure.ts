/**
 * The worker could not run a job: what happens to it next, so that every
 * accepted job still ends.
 *
 * Four causes, four answers. The worker died (WorkerDied): a job it had not
 * begun goes back to the queue; one it ran resumes from its ledger in a new
 * worker, up to MAX_DEATHS times, then runs once more only to close (its
 * remaining steps written as not run), and is closed by its result file
 * alone if the worker dies even then. The worker could not start
 * (WorkerStartError: the root broke while it was away): the job waits and
 * hand-overs pause with a doubling backoff. The disk refused a write: the
 * disk pause (disk-pause.ts). Anything else the runtime throws belongs to
 * the session: it runs once more with the error as its close reason, and is
 * closed by its result file alone if even that fails. A successful answer is
 * settle.ts's.
 */
import { isStorageError } from '../base/storage-error.js';
import type { DaemonContext, InFlight } from './context.js';
import { pauseForStorage } from './disk-pause.js';
import { closeUnresumable } from './recovery.js';
import { closeCancelled } from './requests.js';
import { WorkerDied, WorkerStartError } from './worker-host.js';

/**
 * How many times the worker may die running one session before the session is closed: it runs
 * once more with a close reason, which writes its remaining steps as not run and sends the
 * answer from the facts held (the ledger ends as every other session's does).
 */
const MAX_DEATHS = 3;

/** The worker could not run the job: resume it, wait for a worker, or close it with a reason. */
export async function settleFailure(d: DaemonContext, f: InFlight, err: Error): Promise<void> {
  const { item } = f;
  const base = { job: item.id, session: item.id };
  if (d.stoppingFor === item.id) d.stoppingFor = null;
  const cancel = d.cancels.get(item.id);
  if (cancel && err instanceof WorkerDied && !d.stop.signal.aborted && !d.closing.has(item.id)) return closeCancelled(d, item, cancel);
  if (err instanceof WorkerDied) {
    if (!err.begun) return void (d.stop.signal.aborted || d.queue.requeue(item));
    const deaths = (d.deaths.get(item.id) ?? 0) + 1;
    d.deaths.set(item.id, deaths);
    d.observe((o) => o.workerDied?.({ session: item.id, how: err.how }));
    if (deaths < MAX_DEATHS) {
      d.log.error({ event: 'worker_died', ...base, how: err.how, deaths }, `the session worker died while running ${item.id} (${err.how}); the session resumes from its ledger in a new worker`);
      if (!d.stop.signal.aborted) d.queue.requeue(item);
      return;
    }
    const fix = 'a provider crashes the session worker on this job (see the log lines before this one); fix or remove that provider, then submit the job again as a new file';
    if (!d.closing.has(item.id)) {
      // once more, to close it: no step runs, the ledger gets its not-run steps and its answer
      const problem = `the session worker died ${deaths} times while running this session (last: ${err.how})`;
      d.closing.set(item.id, `${problem}; ${fix}`);
      d.status.update((s) => s.counts.errors++);
      d.log.error({ event: 'closing', ...base, problem }, `session ${item.id} is closed without running its remaining steps: ${problem}`);
      if (!d.stop.signal.aborted) d.queue.requeue(item);
      return;
    }
    // the worker died even closing it: close it by its result file alone, so the queue moves on
    d.closing.delete(item.id);
    d.deaths.delete(item.id);
    const problem = `the session worker died ${deaths} times running this session, and again while closing it (last: ${err.how})`;
    await closeUnresumable(d.paths, item.id, problem, fix, 'daemon (worker crashes)');
    d.status.addOutcome({ session: item.id, outcome: 'declined', duration_ms: 0, finished_at: new Date().toISOString() });
    d.log.error({ event: 'closed', ...base, problem }, `session ${item.id} was closed as declined: ${problem}`);
    return;
  }
  if (err instanceof WorkerStartError) {
    // the root broke while the worker was away: the job waits, and the worker is tried again later
    d.queue.requeue(item);
    if (performance.now() < d.pausedUntil) return; // the jobs handed over with it failed on the same start
    d.workerBackoffMs = Math.min(60_000, d.workerBackoffMs * 2 || 1_000);
    d.pausedUntil = performance.now() + d.workerBackoffMs;
    d.log.error({ event: 'worker_failed', ...base, err: err.message, retry_in_ms: d.workerBackoffMs }, `the session worker cannot start: ${err.message}; the job waits and the worker is tried again in ${d.workerBackoffMs / 1000} s`);
    return;
  }
  if (isStorageError(err)) return pauseForStorage(d, item, err);
  // anything else the runtime throws is a property of this session (a job that cannot run, a
  // damaged blob): retrying it would fail the same way, so it is closed with the error as its reason
  d.status.update((s) => s.counts.errors++);
  const problem = `the runtime failed on this session: ${err.message}`;
  const fix = 'correct the job (or the root) and submit it again as a new file; if the job looks right, report the error';
  if (!d.closing.has(item.id)) {
    d.closing.set(item.id, problem);
    d.log.error({ event: 'closing', ...base, err, problem }, `session ${item.id} is closed without running its remaining steps: ${problem}`);
    if (!d.stop.signal.aborted) d.queue.requeue(item);
    return;
  }
  // it failed even closing: close it by its result file alone
  try {
    await closeUnresumable(d.paths, item.id, problem, fix, 'daemon (runtime error)');
  } catch (e) {
    if (isStorageError(e)) return pauseForStorage(d, item, e as Error);
    throw e;
  }
  d.closing.delete(item.id);
  d.status.addOutcome({ session: item.id, outcome: 'declined', duration_ms: Math.round(performance.now() - f.t0), finished_at: new Date().toISOString() });
  d.log.error({ event: 'closed', ...base, err, problem }, `session ${item.id} was closed as declined: ${problem}`);
}
