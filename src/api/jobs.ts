/**
 * Jobs over the API: `POST /jobs` (submit) and `GET /jobs/ID` (its state).
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
 * A job's state comes from the files alone: its result.json (done), its
 * session folder and the daemon's status.json (running, waiting for a person,
 * queued), the inbox (queued, not claimed yet), or its reason file (rejected).
 * Ids are checked against the session id shape first, so no request names a
 * path outside sessions/. This module does not speak HTTP (routes.ts does).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspectEntry, sizeProblem } from '../daemon/inspect.js';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { dropIntoInbox } from '../daemon/submit.js';
import { readStatus } from '../daemon/status.js';
import { isSessionId, newSessionId } from '../ledger/session-id.js';
import { findRejection } from '../daemon/reject.js';

export type Submitted =
  | { ok: true; id: string }
  | { ok: false; code: 400 | 413 | 500; problem: string; fix: string };

/** Links a client follows from a job. */
export function jobLinks(id: string): { self: string; events: string } {
  return { self: `/jobs/${id}`, events: `/jobs/${id}/events` };
}

/** Judge `bytes` as the inbox would judge a file `<id>.json`; queue it when it passes. */
export async function submitBody(root: string, bytes: Buffer, maxBytes: number): Promise<Submitted> {
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
  const inInbox = join(paths.inbox, `${id}.json`);
  const claimed = existsSync(files.dir);
  const jobDoc = readJson(claimed ? files.job : inInbox);
  const base = {
    job: 'job-state@1' as const, id, claimed,
    budget_class: typeof jobDoc?.budget_class === 'string' ? jobDoc.budget_class : null,
    goal: typeof jobDoc?.goal === 'string' ? jobDoc.goal : null,
    label: typeof jobDoc?.label === 'string' ? jobDoc.label : null,
    step: null, outcome: null, result: null, rejection: null, links: jobLinks(id),
  };
  if (claimed) {
    const result = readJson(files.result);
    if (result) return { ...base, state: 'done', outcome: typeof result.outcome === 'string' ? result.outcome : null, result };
    let status = null;
    try {
      const r = readStatus(paths);
      status = r.state === 'never' ? null : r.status;
    } catch {
      // an unreadable status file: the job is at least claimed and not done
    }
    if (status?.running?.session === id) return { ...base, state: 'running', step: status.running.step };
    const w = status?.waiting?.find((x) => x.session === id);
    if (w) return { ...base, state: 'waiting', step: w.step };
    return { ...base, state: 'queued' };
  }
  if (existsSync(inInbox)) return { ...base, state: 'queued' };
  const rejection = findRejection(paths.rejected, id);
  if (rejection) return { ...base, state: 'rejected', rejection: { problem: rejection.problem, fix: rejection.fix } };
  // claimed between the two looks (the folder is made before the file leaves the inbox): look once more
  return again && existsSync(files.dir) ? jobState(root, id, false) : null;
}
