/**
 * Cancelling a job (`pico cancel JOB`), from the command's side.
 *
 * Who may close the job decides how: whoever holds the root's lock
 * (src/daemon/lock.ts) is the one process that runs its sessions.
 *   - A job still in the inbox is claimed by this command, exactly as the
 *     daemon claims (an atomic rename: only one of the two wins), and closed
 *     at once by its result file (`cancelled`, no step ran). If the daemon
 *     won the rename, the job is a claimed one, below.
 *   - A daemon runs (its lock is held): the command writes the request
 *     (src/daemon/cancel-file.ts) and waits a little for the daemon's result; the
 *     daemon closes a queued job at once and stops a running one after its
 *     current step, answering from the facts held.
 *   - No daemon runs: the command takes the lock itself (so none starts
 *     meanwhile) and closes the job: by its result file when it never
 *     began, else with the runtime, which writes its remaining steps as not
 *     run and answers `cancelled` from the facts held.
 * A finished job, or an id the root does not know, is the user's mistake
 * and comes back as a problem with its fix; nothing is written then.
 */
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { claimJob, syncClaims } from '../daemon/claim.js';
import { LockHeld, takeLock } from '../daemon/lock.js';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { isSessionId } from '../ledger/session-id.js';
import { cancelReason, writeCancelledResult, writeCancelRequest } from '../daemon/cancel-file.js';
import { jobInfo, listJobs, type JobInfo } from './list.js';

export type CancelOutcome =
  | { ok: true; id: string; was: JobInfo['state']; how: 'closed' | 'requested'; outcome: string | null; answer: string | null; result: string | null; step: string | null }
  | { ok: false; id: string; problem: string; fix: string };

/** The problem for an id the root does not know, naming the jobs it has that can still be cancelled. */
function unknownJob(root: string, id: string): CancelOutcome {
  const open = listJobs(root).filter((j) => j.state !== 'done');
  const some = open.slice(-10).map((j) => `${j.id} (${j.state})`).join(', ');
  return {
    ok: false, id,
    problem: `no job "${id}" in ${root}: ${open.length === 0 ? 'it has no job that has not ended' : `jobs that have not ended: ${some}${open.length > 10 ? ` and ${open.length - 10} more` : ''}`}`,
    fix: `give an id that \`pico jobs --root ${root}\` lists`,
  };
}

/** What result.json says (outcome and answer), or null while it is not there. */
function readResult(path: string): { outcome: string | null; answer: string | null } | null {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as { outcome?: unknown; answer?: unknown };
    return { outcome: typeof r.outcome === 'string' ? r.outcome : null, answer: typeof r.answer === 'string' ? r.answer : null };
  } catch {
    return null;
  }
}

/** Claim an inbox entry and close it as cancelled; null when the daemon claimed it first. */
async function cancelInboxEntry(root: string, j: JobInfo): Promise<CancelOutcome | null> {
  const paths = daemonPaths(root);
  const claimed = await claimJob(paths, `${j.id}.json`, isSessionId(j.id) ? j.id : null);
  if (!claimed) return null;
  await syncClaims(paths, [claimed.id]); // durable before it is closed: a power cut must not bring the entry back to the inbox
  const dir = sessionFiles(paths, claimed.id).dir;
  const req = await writeCancelRequest(dir, claimed.id);
  const result = await writeCancelledResult(dir, claimed.id, 'pico cancel', req);
  return { ok: true, id: claimed.id, was: 'queued', how: 'closed', outcome: 'cancelled', answer: null, result, step: null };
}

/** No daemon runs (this process holds the lock): close the claimed session here. */
async function closeHere(root: string, j: JobInfo): Promise<CancelOutcome> {
  const files = sessionFiles(daemonPaths(root), j.id);
  const req = await writeCancelRequest(files.dir, j.id);
  if ((statSync(files.ledger, { throwIfNoEntry: false })?.size ?? 0) === 0) {
    const result = await writeCancelledResult(files.dir, j.id, 'pico cancel', req);
    return { ok: true, id: j.id, was: j.state, how: 'closed', outcome: 'cancelled', answer: null, result, step: null };
  }
  // it began under an earlier daemon: the runtime closes it as the daemon would (remaining steps not run)
  const { openRuntime } = await import('../root/runtime.js');
  const runtime = await openRuntime(root, { log: pino({ level: 'silent' }) });
  try {
    const r = await runtime.runSession(j.id, { closeReason: cancelReason(req), cancelled: true });
    return { ok: true, id: j.id, was: j.state, how: 'closed', outcome: r.outcome, answer: r.answer, result: r.resultPath, step: j.step };
  } finally {
    await runtime.close();
  }
}

/** Cancel job `id` of `root`; with a daemon running, wait up to `waitMs` for it to close the job. */
export async function cancelJob(root: string, id: string, o: { waitMs?: number } = {}): Promise<CancelOutcome> {
  let j = jobInfo(root, id);
  if (!j) return unknownJob(root, id);
  if (j.state === 'done') {
    return { ok: false, id, problem: `job ${id} has already ended (${j.outcome ?? 'closed'}); there is nothing to cancel`, fix: `pico show ${id} prints what it did; pico retry ${id} runs it again as a new job` };
  }
  if (j.where === 'inbox') {
    const closed = await cancelInboxEntry(root, j);
    if (closed) return closed;
    j = jobInfo(root, id); // the daemon claimed it meanwhile
    if (!j) return unknownJob(root, id);
    if (j.state === 'done') return { ok: false, id, problem: `job ${id} ended while it was being cancelled (${j.outcome ?? 'closed'})`, fix: `pico show ${id} prints what it did` };
  }
  const paths = daemonPaths(root);
  let release: (() => Promise<void>) | null = null;
  try {
    release = await takeLock(paths);
  } catch (err) {
    if (!(err instanceof LockHeld)) throw err;
  }
  if (release) {
    try {
      return await closeHere(root, j);
    } finally {
      await release();
    }
  }
  const files = sessionFiles(paths, j.id);
  await writeCancelRequest(files.dir, j.id);
  const until = Date.now() + (o.waitMs ?? 10_000);
  for (;;) {
    const r = readResult(files.result);
    if (r) return { ok: true, id: j.id, was: j.state, how: 'closed', outcome: r.outcome, answer: r.answer, result: files.result, step: j.step };
    if (Date.now() >= until) return { ok: true, id: j.id, was: j.state, how: 'requested', outcome: null, answer: null, result: null, step: j.step };
    await sleep(100);
  }
}
