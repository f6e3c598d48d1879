/**
 * Jobs over the API: `POST /jobs` (submit a job@1, or `{"goal": "…"}` alone, which stands
 * for the job `pico ask` makes of it: src/jobs/goal.ts) and `GET /jobs/ID` (its state).
 *
 * A submitted body is judged by the inbox's own inspector (daemon/inspect.ts),
 * not by a second validator: it is written under its new id into a staging
 * folder beside the inbox (`sessions/.daemon/api-staging/`, the daemon's
 * user's alone), inspected there exactly as the inbox entry `<id>.json` would
 * be, and either dropped into the inbox by the spool convention
 * (daemon/submit.ts) or refused with the very problem and fix that
 * `sessions/rejected/<…>.reason.json` would have held for it. A refused body is
 * not kept: the client has the reason. A body over the job size limit is not
 * written at all; its reason is the inspector's size text.
 *
 * A job's state comes from the files alone, read as `pico jobs` reads them
 * (src/jobs/list.ts: result.json, the session folder, status.json, the
 * inbox), or from its reason file (rejected).
 * Ids are checked against the session id shape first, so no request names a
 * path outside sessions/. This module does not speak HTTP (routes.ts does).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspectEntry, sizeProblem } from '../daemon/inspect.js';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { dropIntoInbox } from '../daemon/submit.js';
import { isSessionId, newSessionId } from '../ledger/session-id.js';
import { findRejection } from '../daemon/reject.js';
import { jobInfo } from '../jobs/list.js';
import { goalBody } from '../jobs/goal.js';

export type Submitted =
  | { ok: true; id: string }
  | { ok: false; code: 400 | 413 | 500; problem: string; fix: string };

/** Links a client follows from a job. */
export function jobLinks(id: string): { self: string; events: string } {
  return { self: `/jobs/${id}`, events: `/jobs/${id}/events` };
}

/** Judge `bytes` as the inbox would judge a file `<id>.json` (a body of only a goal stands for its job@1); queue it when it passes. */
export async function submitBody(root: string, body: Buffer, maxBytes: number): Promise<Submitted> {
  const bytes = goalBody(body);
  const id = newSessionId();
  const name = `${id}.json`;
  if (bytes.length > maxBytes) return { ok: false, code: 413, ...sizeProblem(name, bytes.length, maxBytes) };
  const staging = join(daemonPaths(root).daemonDir, 'api-staging');
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const staged = join(staging, name);
  await writeFile(staged, bytes, { mode: 0o600, flag: 'wx' });
  try {
    const v = await inspectEntry(staging, name, maxBytes, root);
    if (v.kind === 'reject') return { ok: false, code: 400, problem: v.problem, fix: v.fix };
    if (v.kind === 'gone') return { ok: false, code: 500, problem: `the staged job ${staged} vanished before it was inspected`, fix: 'submit it again; if this repeats, check what else writes under sessions/.daemon/' };
    await dropIntoInbox(bytes, root, id);
    return { ok: true, id };
  } finally {
    await rm(staged, { force: true });
  }
}

/** The size refusal for a body that was not even kept (it was counted while it streamed). */
export function tooBig(size: number, maxBytes: number): { problem: string; fix: string } {
  return sizeProblem(`${newSessionId()}.json`, size, maxBytes);
}

export type JobState = 'queued' | 'running' | 'waiting' | 'done' | 'rejected';

export interface JobView {
  job: 'job-state@1';
  id: string;
  state: JobState;
  /** false while the job file still waits in the inbox */
  claimed: boolean;
  budget_class: string | null;
  goal: string | null;
  label: string | null;
  /** running: the step in progress; waiting: the step waiting for approval */
  step: string | null;
  outcome: string | null;
  /** done: result.json as written */
  result: unknown;
  /** rejected: why, as in its reason file */
  rejection: { problem: string; fix: string } | null;
  links: { self: string; events: string };
}

/** Read a JSON file, or null when it is absent or not JSON (being replaced, damaged). */
function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The job's state from the files, or null when the root has no such job (or `id` is not a job id). */
export function jobState(root: string, id: string, again = true): JobView | null {
  if (!isSessionId(id)) return null;
  const paths = daemonPaths(root);
  const files = sessionFiles(paths, id);
  // queued, running, waiting or done: as `pico jobs` reads it (src/jobs/list.ts)
  const info = jobInfo(root, id);
  if (info) {
    const claimed = info.where === 'session';
    const jobDoc = readJson(claimed ? files.job : info.path);
    return {
      job: 'job-state@1', id, state: info.state, claimed,
      budget_class: info.budget_class,
      goal: typeof jobDoc?.goal === 'string' ? jobDoc.goal : null,
      label: info.label, step: info.step, outcome: info.outcome,
      result: info.state === 'done' ? readJson(files.result) : null,
      rejection: null, links: jobLinks(id),
    };
  }
  const rejection = findRejection(paths.rejected, id);
  if (rejection) {
    return {
      job: 'job-state@1', id, state: 'rejected', claimed: false, budget_class: null, goal: null, label: null,
      step: null, outcome: null, result: null, rejection: { problem: rejection.problem, fix: rejection.fix }, links: jobLinks(id),
    };
  }
  // claimed between the two looks (the folder is made before the file leaves the inbox): look once more
  return again && existsSync(files.dir) ? jobState(root, id, false) : null;
}
