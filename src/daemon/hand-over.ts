/**
 * The hand-over: jobs go from the queue to the session worker, and the
 * worker's progress comes back as status, log lines and observer calls.
 *
 * The worker runs one session at a time; up to HANDED_OVER more wait in it,
 * so it never idles between jobs of a burst while the daemon's process is
 * busy with intake; a job the worker answered gives its place up while this
 * process makes the answer durable (up to SETTLING of them). A job waiting in the worker is taken back when a more
 * urgent one arrives, so the order stays budget class, then arrival (queue.ts).
 * Nothing is handed over while a pause lasts (the disk, disk-pause.ts, or a
 * worker that could not start, settle-failure.ts), nor while the running
 * session is being stopped for a cancel (requests.ts). The worker's answer
 * for each job is settled by settle.ts or settle-failure.ts.
 */
import type { DaemonContext, InFlight } from './context.js';
import { JobQueue, type QueuedJob } from './queue.js';
import { settle } from './settle.js';
import { settleFailure } from './settle-failure.js';
import type { StepProgress } from './worker-protocol.js';

/**
 * Jobs handed to the worker beyond the running one, so it never waits for this process between
 * jobs (a slice of claims during a burst keeps this process busy for a few jobs' time). A job the
 * worker has answered no longer counts: its result is settled here (the ledger's fdatasync, then
 * result.json), and the worker goes on meanwhile. Counting it until its result.json was written
 * made the worker wait for this process's disk and its claim slices at the start of every burst.
 */
export const HANDED_OVER = 8;

/**
 * Answered jobs still settling, beyond which nothing more is handed over: the worker leaves each
 * answer's fdatasync to this process, so on a disk slower than the jobs it would otherwise run
 * ahead of the disk without bound, each answer waiting here with its result text in memory.
 */
export const SETTLING = 32;

/** Jobs in the worker: running or waiting there, not yet answered. */
function inWorker(d: DaemonContext): number {
  let n = 0;
  for (const f of d.inFlight.values()) if (!f.answered) n++;
  return n;
}

/** Hand jobs to the worker until HANDED_OVER wait behind the running one; take back one that a more urgent job now outranks. */
export function dispatch(d: DaemonContext): void {
  if (d.stop.signal.aborted || d.stoppingFor !== null) return;
  const wait = d.pausedUntil - performance.now();
  if (wait > 0) {
    // one timer for the end of the pause; timers may fire a little early, so the loop always looks again
    d.resumeTimer ??= setTimeout(() => {
      d.resumeTimer = null;
      d.wake();
    }, Math.ceil(wait) + 1).unref();
    return;
  }
  const head = d.queue.peek();
  if (head) {
    for (const f of d.inFlight.values()) {
      if (!f.begun && !f.cancelling && JobQueue.outranks(head, f.item)) {
        f.cancelling = true;
        d.runtime!.cancel(f.item.id);
        d.log.debug({ event: 'taken_back', job: f.item.id, session: f.item.id, for: head.id }, `taking ${f.item.id} back from the worker: ${head.id} is more urgent`);
      }
    }
  }
  for (let n = inWorker(d); n < 1 + HANDED_OVER && d.inFlight.size < 1 + HANDED_OVER + SETTLING; n++) {
    // a job put back by its own answer (taken back, or stopped by a signal) is still in flight until
    // that answer is settled: it goes again after, so one job never has two hand-overs at once
    const head = d.queue.peek();
    if (!head || d.inFlight.has(head.id)) break;
    handOver(d, d.queue.shift()!);
  }
  d.publishQueue();
}

/** Give one job to the worker and settle it when the worker answers. */
function handOver(d: DaemonContext, item: QueuedJob): void {
  const base = { job: item.id, session: item.id };
  const f: InFlight = { item, begun: false, cancelling: false, answered: false, t0: 0, settled: Promise.resolve() };
  let stepAt = 0; // ms since the run began, in the worker's clock
  let stepInfo: { tool: string | null; capability: string | null } = { tool: null, capability: null };
  const onBegin = (): void => {
    f.begun = true;
    f.t0 = performance.now();
    d.idle.busy();
    d.status.update((s) => (s.running = { session: item.id, label: d.labels.get(item.id) ?? null, budget_class: item.budgetClass, step: null, started_at: new Date().toISOString() }));
    // systemctl status shows the running job; during a burst, once a second is enough
    if (performance.now() - d.statusSentAt >= 1000) {
      d.statusSentAt = performance.now();
      d.notifier?.send({ STATUS: d.statusLine() });
    }
    d.log.info({ event: item.resumed ? 'resumed' : 'started', ...base, budget_class: item.budgetClass, waited_ms: Date.now() - item.queuedAt });
    d.observe((o) => o.started?.({ session: item.id, budget_class: item.budgetClass }));
  };
  const onEvent = (e: StepProgress): void => {
    if (e.type === 'provider_called') {
      const call = { session: item.id, step: e.step, provider: e.provider ?? '', capability: e.capability ?? '', outcome: e.outcome ?? 'unknown', duration_ms: e.duration_ms ?? 0, model_call: e.model_call === true };
      return d.observe((o) => o.providerCalled?.(call));
    }
    if (e.type === 'model_loaded') {
      const load = { session: item.id, provider: e.provider ?? '', duration_ms: e.duration_ms ?? 0 };
      d.log.info({ event: 'model_loaded', ...base, step: e.step, provider: load.provider, duration_ms: load.duration_ms });
      return d.observe((o) => o.modelLoaded?.(load));
    }
    if (e.type === 'step_started') {
      stepAt = e.ms;
      d.status.update((s) => s.running && (s.running.step = e.step));
      // the start of a step is debug: status.json and `pico watch` show it live, and a line per
      // step end (below) is what an operator reads; on a 2-core box every log line costs the jobs
      d.log.debug({ event: 'step', ...base, step: e.step, tool: e.tool, capability: e.capability, elapsed_ms: Math.round(e.ms) });
      stepInfo = { tool: e.tool ?? null, capability: e.capability ?? null };
      d.observe((o) => o.step?.({ session: item.id, step: e.step, ...stepInfo, phase: 'started' }));
    } else {
      const phase = e.type === 'fact_added' ? 'committed' : 'failed';
      const duration_ms = Math.round((e.ms - stepAt) * 10) / 10;
      const provider = e.provider ?? null;
      if (phase === 'failed') d.log.warn({ event: 'step', ...base, step: e.step, ...stepInfo, provider, phase, duration_ms, reason: e.reason ?? null }, `step ${e.step} of ${item.id} failed${provider ? ` (${provider})` : ''}: ${e.reason ?? 'no reason given'}`);
      else d.log.info({ event: 'step', ...base, step: e.step, ...stepInfo, provider, phase, duration_ms });
      d.observe((o) => o.step?.({ session: item.id, step: e.step, ...stepInfo, provider, phase, duration_ms, ...(e.reason ? { reason: e.reason } : {}) }));
    }
  };
  // ---- FROM HERE TO THE END MARK, A THROW WOULD STRAND THE JOB: once in inFlight it is neither ----
  // ---- queued nor handed over again, and only the finally() below takes it out. So every answer ----
  // ---- of the worker is settled, a settling that throws is only logged, finally() always runs.  ----
  d.inFlight.set(item.id, f);
  const close = d.closing.get(item.id);
  const cancelled = close !== undefined && d.cancels.has(item.id);
  const answered = (): void => {
    f.answered = true;
    d.wake(); // room in the worker for the next job while this one settles
  };
  f.settled = d.runtime!.run(item.id, { onBegin, onEvent, ...(close ? { close, ...(cancelled ? { cancelled } : {}) } : {}) })
    .then((r) => (answered(), settle(d, f, r)), (err: unknown) => (answered(), settleFailure(d, f, err as Error)))
    .catch((err: unknown) => d.log.error({ err, ...base }, `settling session ${item.id}: ${(err as Error).message}`))
    .finally(() => {
      d.inFlight.delete(item.id);
      if (!d.queue.has(item.id)) d.labels.delete(item.id); // done with, not put back
      if (f.begun) d.status.update((s) => s.running?.session === item.id && (s.running = null));
      d.wake();
    });
  // ---- END OF THE REGION WHERE A THROW WOULD STRAND THE JOB ----
}
