/**
 * Retrying a job (`pico retry JOB`): the same job.json, submitted again as a
 * new job through the inbox exactly as `pico submit` does (validated with
 * the daemon's rules, written whole, a new id), so it runs from scratch on
 * the root as it is now. Only a job that has ended can be retried: one that
 * is queued, running or waiting would then run twice. The old session is
 * left as it is (its ledger is the record of what happened).
 */
import { submitJobFile } from '../daemon/submit.js';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { jobInfo, listJobs } from './list.js';

export type RetryOutcome =
  | { ok: true; id: string; retry_of: string; inbox_file: string; previous_outcome: string | null }
  | { ok: false; problem: string; fix: string };

/** Submit job `id`'s job.json again as a new job. */
export async function retryJob(root: string, id: string): Promise<RetryOutcome> {
  const j = jobInfo(root, id);
  if (!j) {
    const done = listJobs(root, { state: 'done' }).slice(-5).map((x) => x.id);
    return { ok: false, problem: `no job "${id}" in ${root}${done.length ? `; the latest jobs that ended: ${done.join(', ')}` : '; it has no job that ended'}`, fix: `give an id that \`pico jobs --state done --root ${root}\` lists` };
  }
  if (j.state !== 'done') {
    return { ok: false, problem: `job ${id} has not ended (it is ${j.state}); retrying it now would run it twice`, fix: `wait for it (pico watch ${id}), or cancel it first (pico cancel ${id})` };
  }
  const r = await submitJobFile(sessionFiles(daemonPaths(root), id).job, root);
  if (!r.ok) return { ok: false, problem: `job ${id} cannot be submitted again: ${r.problem}`, fix: r.fix };
  return { ok: true, id: r.id, retry_of: id, inbox_file: r.path, previous_outcome: j.outcome };
}
