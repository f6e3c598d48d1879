/**
 * Intake: turn a batch of stable inbox entries into rejected files and claimed jobs.
 *
 * For each entry: inspect it, then either reject it (moved beside its reason,
 * logged at warn) or claim it (renamed into its session folder). The batch's
 * claims are then made durable together (one fsync per directory) before any
 * of them is handed to the queue, so a power cut cannot bring a claimed file
 * back to the inbox after its session started. A failure on one entry never
 * stops the others; failures are collected and thrown together at the end,
 * after every good entry has been handed over, so the spool retries only
 * what failed. This module runs nothing and knows nothing of the queue.
 */
import type { Logger } from 'pino';
import type { Job } from '../runtime/job.js';
import { claimJob, fleetJobId, syncClaims, type Claimed } from './claim.js';
import { DEFAULT_MAX_JOB_BYTES, inspectEntry } from './inspect.js';
import type { DaemonPaths } from './paths.js';
import { rejectEntry } from './reject.js';

export interface ClaimedJob extends Claimed {
  job: Job;
  /** the inbox name it arrived under */
  name: string;
}

export interface IntakeResult {
  claimed: ClaimedJob[];
  rejected: number;
  failed: Error[];
  /** how many of `names` were handled (all of them, unless the deadline came first) */
  taken: number;
}

/**
 * Inspect, reject or claim each of `names`, then make the claims durable. With a deadline
 * (a `performance.now()` value), it stops after the first entry handled at or past it and
 * says how many it took; at least one entry is always handled.
 */
export async function takeIn(paths: DaemonPaths, names: readonly string[], log: Logger, maxBytes = DEFAULT_MAX_JOB_BYTES, deadline = Infinity): Promise<IntakeResult> {
  const out: IntakeResult = { claimed: [], rejected: 0, failed: [], taken: 0 };
  for (const name of names) {
    if (out.taken > 0 && performance.now() >= deadline) break;
    out.taken++;
    try {
      const v = await inspectEntry(paths.inbox, name, maxBytes, paths.root);
      if (v.kind === 'gone') continue;
      if (v.kind === 'reject') {
        const r = await rejectEntry(paths, name, v.problem, v.fix);
        out.rejected++;
        log.warn({ event: 'rejected', file: name, stored_as: r?.stored_as ?? null, problem: v.problem, fix: v.fix }, `rejected ${JSON.stringify(name)}: ${v.problem}`);
        continue;
      }
      const fleetId = fleetJobId(name); // a fleet job's id is taken once, never run under a new id
      const c = await claimJob(paths, name, fleetId ?? v.idFromName, fleetId !== null);
      if (c) out.claimed.push({ ...c, job: v.job, name });
      else if (fleetId !== null) log.warn({ event: 'fleet_job_taken', job: fleetId, file: name }, `fleet job ${fleetId} not claimed: a session of that id exists (the job was taken; its inbox copy is removed unrun) or the file left the inbox`);
    } catch (err) {
      out.failed.push(Object.assign(err as Error, { file: name }));
    }
  }
  try {
    await syncClaims(paths, out.claimed.map((c) => c.id));
  } catch (err) {
    // the renames happened; only their durability is in doubt — run the jobs anyway, and say so
    out.failed.push(Object.assign(err as Error, { file: '(fsync of claimed sessions)' }));
  }
  for (const c of out.claimed) {
    log.info({ event: 'claimed', job: c.id, session: c.id, file: c.name, budget_class: c.job.budget_class }, `claimed ${c.name} as session ${c.id}`);
  }
  return out;
}
