/**
 * The requests watcher: what a person asks of the daemon's jobs through files
 * in the session folders, looked for together once a second.
 *
 * Two kinds of request, both written by a separate process (`pico approve` /
 * `pico deny`, `pico cancel`) and read here with a stat per job:
 *   - an approval decision (src/approval/decisions.ts) for a session stopped
 *     at a destructive step: such a session leaves the queue for the waiting
 *     list (no worker, no CPU) and is requeued once its decision file appears
 *     or its request expires;
 *   - a cancel (cancel-file.ts): a job not begun is closed by its result file;
 *     one handed to the worker is taken back first; the running one stops
 *     after its current step, as at shutdown, and runs once more to close
 *     (outcome `cancelled`); one on the waiting list is closed the same way.
 * A request file the daemon will not honour (a symlink, a FIFO, another
 * user's, too loosely writable: src/base/safe-open.ts) is no request: the
 * session keeps waiting (or running), and the daemon says why once per file
 * and reason — `decision_refused` (also shown beside the session in
 * status.json's waiting list) or `cancel_refused`.
 * This module carries the requests out over the daemon's bookkeeping
 * (context.ts); the worker's answer for a stopped job comes back through
 * settle.ts / settle-failure.ts, which call closeCancelled.
 */
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type * as Waiting from '../approval/waiting.js';
import { cancelReason, cancelRequested, readCancelRequest, refusedCancel, writeCancelledResult, type CancelRequest } from './cancel-file.js';
import type { DaemonContext } from './context.js';
import { sessionFiles } from './paths.js';
import type { QueuedJob } from './queue.js';

/** How often the daemon looks for decisions on sessions that wait for approval (a stat each), and for cancels. */
const APPROVAL_POLL_MS = 1_000;

/**
 * The waiting list's module (src/approval/waiting.ts), loaded once: it reads ledgers and decision
 * files, whose schemas load zod (about 8 MB of the daemon's memory), so a daemon that no session
 * ever made wait for a person does not load it.
 */
let waitingModule: Promise<typeof Waiting> | null = null;
/** Daemons whose root had no approval.json at start: their waiting list takes the defaults, as the start found them. */
const defaultApprovals = new WeakSet<DaemonContext>();

/** The approval settings file: it is read at start when it exists, as before; without one the defaults hold and nothing is loaded. */
function approvalSettingsExist(root: string): boolean {
  try {
    lstatSync(join(root, 'approval.json'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The waiting list, opened on first need (at start when approval.json exists, so a bad one stops
 * the start as it always did; else when a session first waits, with the defaults the start found).
 */
export async function openWaiting(d: DaemonContext): Promise<typeof Waiting> {
  const m = await (waitingModule ??= import('../approval/waiting.js'));
  if (!d.waiting) {
    d.waiting = new m.WaitingList(d.paths.sessions, d.paths.root, defaultApprovals.has(d) ? { expire_after_s: null } : undefined);
    d.waiting.onRefused = (w, r) => {
      d.log.warn({ event: 'decision_refused', job: w.session, session: w.session, step: w.step, file: r.file, reason: r.reason, owner: r.owner }, `the decision for step ${w.step} of ${w.session} is refused: ${r.message}`);
      publishWaiting(d);
    };
  }
  return m;
}

/** Open the waiting list when the root has approval settings, and look for requests once every APPROVAL_POLL_MS until teardown. */
export async function watchRequests(d: DaemonContext): Promise<void> {
  if (approvalSettingsExist(d.paths.root)) await openWaiting(d);
  else defaultApprovals.add(d);
  const told = new Set<string>();
  const poll = setInterval(() => {
    pollApprovals(d);
    pollCancels(d, told);
  }, APPROVAL_POLL_MS).unref();
  d.closers.push({ name: 'approval poll', close: () => clearInterval(poll) });
}

/** Put a session on the waiting list: no worker, no CPU, until a person decides. */
export function waitForDecision(d: DaemonContext, id: string, budgetClass: QueuedJob['budgetClass'], step: string, tool: string | null, since: string): void {
  d.waiting!.add({ session: id, budgetClass, step, tool, since });
  publishWaiting(d);
  d.log.info({ event: 'waiting_approval', job: id, session: id, step, tool, since }, `session ${id} waits for a person to approve step ${step}${tool ? ` (${tool})` : ''}: pico approve ${id} ${step}, or pico deny ${id} ${step}`);
}

/** Requeue the waiting sessions a person decided (or whose request expired). */
function pollApprovals(d: DaemonContext): void {
  if (!d.waiting || d.waiting.size === 0 || d.stop.signal.aborted) return;
  const decided = d.waiting.decided();
  if (decided.length === 0) return;
  for (const w of decided) {
    d.queue.push(w.session, w.budgetClass, true);
    d.log.info({ event: 'queued', job: w.session, session: w.session, budget_class: w.budgetClass, resumed: true, approval: w.step }, `step ${w.step} of ${w.session} was decided; the session resumes`);
  }
  publishWaiting(d);
  d.publishQueue();
  d.wake();
}

/**
 * Carry out the cancel requests (sessions/<id>/cancel.json, src/daemon/cancel-file.ts) of the
 * jobs this daemon holds, a stat per job: a queued job that never began is closed by its
 * result file; one handed to the worker is taken back first; the running one stops after its
 * current step (as at shutdown) and is then run once more to close it; one waiting for
 * approval is closed the same way.
 */
function pollCancels(d: DaemonContext, told: Set<string>): void {
  if (d.stop.signal.aborted || !d.runtime) return;
  const asked = (id: string): CancelRequest | null => {
    if (d.cancels.has(id)) return null;
    const dir = sessionFiles(d.paths, id).dir;
    if (!cancelRequested(dir)) {
      const r = refusedCancel(dir);
      const key = r ? `${id}\0${r.reason}` : '';
      if (r && !told.has(key)) {
        told.add(key);
        d.log.warn({ event: 'cancel_refused', job: id, session: id, file: r.file, reason: r.reason, owner: r.owner }, `the cancel request of ${id} is refused: ${r.message}`);
      }
      return null;
    }
    const req = readCancelRequest(dir, id);
    d.cancels.set(id, req);
    d.log.info({ event: 'cancel_requested', job: id, session: id, requested_at: req.requested_at }, `cancel of ${id} asked for (pico cancel)`);
    return req;
  };
  for (const item of d.queue.list()) {
    const req = asked(item.id);
    if (!req) continue;
    d.queue.remove(item.id);
    void closeCancelled(d, item, req);
  }
  for (const f of d.inFlight.values()) {
    if (!asked(f.item.id)) continue;
    if (f.begun) {
      d.stoppingFor = f.item.id;
      d.runtime.stop(); // finishes its step; waiting hand-overs come back and are requeued
    }
    else if (!f.cancelling) {
      f.cancelling = true;
      d.runtime.cancel(f.item.id);
    }
  }
  for (const w of d.waiting?.list() ?? []) {
    const req = asked(w.session);
    if (!req) continue;
    d.waiting!.remove(w.session);
    publishWaiting(d);
    void closeCancelled(d, { id: w.session, budgetClass: w.budgetClass, arrival: -1, queuedAt: Date.now(), resumed: true }, req);
  }
  d.publishQueue();
  d.wake();
}

/** Close a cancelled job: by its result file alone if it never began, else by a close run of the runtime (answer `cancelled`). */
export async function closeCancelled(d: DaemonContext, item: QueuedJob, req: CancelRequest): Promise<void> {
  const files = sessionFiles(d.paths, item.id);
  if ((statSync(files.ledger, { throwIfNoEntry: false })?.size ?? 0) > 0) {
    d.closing.set(item.id, cancelReason(req));
    if (item.arrival >= 0) d.queue.requeue(item); // its place in the queue
    else d.queue.push(item.id, item.budgetClass, true);
    d.wake();
    return;
  }
  try {
    await writeCancelledResult(files.dir, item.id, 'daemon (pico cancel)', req);
  } catch (err) {
    // the request stays on disk: the next poll tries again
    d.cancels.delete(item.id);
    d.queue.requeue(item);
    d.log.error({ event: 'failed', job: item.id, session: item.id, err }, `cancelling ${item.id}: its result file could not be written (${(err as Error).message}); tried again in a second`);
    return;
  }
  d.cancels.delete(item.id);
  d.labels.delete(item.id);
  d.status.update((s) => s.counts.finished++);
  d.status.addOutcome({ session: item.id, outcome: 'cancelled', duration_ms: 0, finished_at: new Date().toISOString() });
  d.observe((o) => o.finished?.({ session: item.id, outcome: 'cancelled', duration_ms: 0, budget_class: item.budgetClass }));
  d.log.info({ event: 'finished', job: item.id, session: item.id, outcome: 'cancelled', duration_ms: 0, result: files.result }, `job ${item.id} was cancelled before it began`);
  d.publishQueue();
}

/**
 * A run came back `waiting`: put the session on the waiting list, or queue it again when its step
 * was decided while the worker was stopping it.
 */
export async function settleWaiting(d: DaemonContext, item: QueuedJob): Promise<void> {
  const { waitingOn } = await openWaiting(d);
  const w = waitingOn(sessionFiles(d.paths, item.id).dir, d.waiting!.settings);
  if (w) waitForDecision(d, item.id, item.budgetClass, w.step, w.tool, w.since);
  else if (!d.stop.signal.aborted) d.queue.requeue(item); // decided while the worker was stopping it
}

/** Show the waiting list in status.json. */
function publishWaiting(d: DaemonContext): void {
  const list = (d.waiting?.list() ?? []).map((w) => ({ session: w.session, step: w.step, tool: w.tool, since: w.since, ...(w.refused ? { refused: w.refused } : {}) }));
  d.status.update((s) => (s.waiting = list));
}
