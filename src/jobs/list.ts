/**
 * The jobs of a root, read from its files: what `pico jobs`, `pico cancel`,
 * `pico retry` and the loopback API's GET /jobs/ID know about a job.
 *
 * A job's state is where its files are, never a ledger scan:
 *   - an entry in sessions/inbox/ (not a dot-name, not *.tmp)   → queued
 *   - sessions/<id>/ with a whole result.json                    → done (outcome from it)
 *   - sessions/<id>/job.json without a result                    → running when the daemon's
 *     status.json names it running, waiting when its waiting list (or, with no daemon, the
 *     ledger's open approval request) names it, otherwise queued (it runs, or resumes, when
 *     the daemon reaches it).
 * The age is the submit time, which a session id carries (to the second), so a listing of
 * thousands of sessions stats no file for it. Only what the filter needs is read: done jobs'
 * results are not opened when the filter asks for queued ones. Job and result files are
 * opened through the one safe path (src/base/safe-open.ts): a FIFO or a link planted in the
 * inbox or a session folder is shown without its fields, never opened for a blocking read or
 * followed. This module reads; it never
 * writes, and it does not decide what a cancel or a retry does (cancel.ts, retry.ts).
 */
import { closeSync, existsSync, fstatSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openPlanted, parseJsonQuiet, readPlantedText, rootRules, type RootRules } from '../base/safe-open.js';
import { isSessionId } from '../ledger/session-id.js';
import { isIgnoredName } from '../daemon/inspect.js';
import { daemonPaths, sessionFiles, type DaemonPaths } from '../daemon/paths.js';
import { readStatus, type DaemonStatus } from '../daemon/status.js';
import { readApprovalSettings } from '../approval/decisions.js';
import { waitingOn } from '../approval/waiting.js';
import { CANCEL_FILE } from '../daemon/cancel-file.js';

/** How much of a result.json's head is read for its outcome. */
const HEAD_BYTES = 512;

export const JOB_STATES = ['queued', 'running', 'waiting', 'done'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobInfo {
  id: string;
  /** interactive | attended | background | batch; null when the job file does not parse (an inbox entry the daemon will reject) */
  budget_class: string | null;
  state: JobState;
  /** done jobs: answered | partial | declined | cancelled */
  outcome: string | null;
  goal: string | null;
  label: string | null;
  submitted_at: string;
  /** inbox: not claimed yet (path is the entry); session: claimed (path is the session folder) */
  where: 'inbox' | 'session';
  path: string;
  /** running: the step in flight (from status.json); waiting: the step that waits for approval */
  step: string | null;
  /** a `pico cancel` was asked for and has not taken effect yet */
  cancel_requested: boolean;
}

/** What a listing reads once: the daemon's status (null: no daemon runs). */
interface Context {
  paths: DaemonPaths;
  daemon: DaemonStatus | null;
  approvals: ReturnType<typeof readApprovalSettings> | null;
}

function context(root: string): Context {
  const paths = daemonPaths(root);
  let daemon: DaemonStatus | null = null;
  try {
    const r = readStatus(paths);
    if (r.state === 'running') daemon = r.status;
  } catch {
    // an unreadable status file reads as "no daemon": `pico status` reports it
  }
  return { paths, daemon, approvals: null };
}

/** Job and result files are small documents; a cap far above them. */
const JOB_MAX_BYTES = 64 * 1024 * 1024;

/** The safe-read rules of the root a file at <root>/sessions/<folder>/<file> belongs to. */
const rulesFor = (file: string): RootRules => rootRules(dirname(dirname(dirname(file))));

/** The submit time a session id carries ("20261129-113512-…" → 2026-11-29T11:35:12Z), else the file's mtime. */
function submittedAt(id: string, file: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(id);
  if (m) return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z`;
  try {
    return statSync(file).mtime.toISOString();
  } catch {
    return new Date(0).toISOString();
  }
}

/** goal, label and class of a job file, or nulls when it does not parse. */
function readJobFields(file: string): { goal: string | null; label: string | null; budget_class: string | null } {
  try {
    const f = readPlantedText(rulesFor(file), file, { maxBytes: JOB_MAX_BYTES, what: 'job file' });
    const json = f === null ? null : parseJsonQuiet(f.text);
    if (json === null || !('value' in json)) throw new Error('no job');
    const j = json.value as Record<string, unknown>;
    const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    const plan = Array.isArray(j.plan) ? (j.plan as Record<string, unknown>[]) : [];
    const first = plan[0] ? `${str(plan[0].step) ?? '?'}: ${str(plan[0].tool) ?? str(plan[0].capability) ?? ''}` : null;
    return { goal: str(j.goal) ?? str(j.label) ?? first, label: str(j.label), budget_class: str(j.budget_class) };
  } catch {
    return { goal: null, label: null, budget_class: null };
  }
}

/**
 * The outcome a result.json holds, or null when it is absent, empty or cut short (not finished:
 * recovery re-closes it). Every writer puts `outcome` in the first lines and ends the file with a
 * lone "}", so the head and the last bytes answer without reading the facts between.
 */
function readOutcome(file: string): string | null {
  let fd: number;
  try {
    const f = openPlanted(rulesFor(file), file, { maxBytes: JOB_MAX_BYTES, what: 'result file' });
    if (f === null) return null;
    fd = f.fd;
  } catch {
    return null; // refused (a link, a FIFO, another user's): not a result this listing believes
  }
  let text: string;
  try {
    const size = fstatSync(fd).size;
    if (size > HEAD_BYTES * 2) {
      const head = Buffer.alloc(HEAD_BYTES);
      const tail = Buffer.alloc(16);
      readSync(fd, head, 0, HEAD_BYTES, 0);
      readSync(fd, tail, 0, 16, size - 16);
      const m = /"outcome": "([a-z_]+)"/.exec(head.toString('utf8'));
      if (m && tail.toString('utf8').trimEnd().endsWith('\n}')) return m[1]!;
    }
    text = readFileSync(fd, 'utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  try {
    const r = JSON.parse(text) as { outcome?: unknown };
    return typeof r.outcome === 'string' ? r.outcome : null;
  } catch {
    return null;
  }
}

/** A session folder's job, or null when the folder holds no job.json. `want`: skip reading what the filter does not need. */
function sessionJob(ctx: Context, id: string, want: JobState | undefined): JobInfo | null {
  const f = sessionFiles(ctx.paths, id);
  // a whole result first: most sessions of a long-lived root are done, and the filter may skip them unread
  const hasResult = existsSync(f.result);
  if (hasResult && want !== undefined && want !== 'done') return null;
  const outcome = hasResult ? readOutcome(f.result) : null;
  if (!existsSync(f.job)) return null;
  let state: JobState;
  let step: string | null = null;
  if (outcome !== null) state = 'done';
  else if (ctx.daemon?.running?.session === id) {
    state = 'running';
    step = ctx.daemon.running.step;
  } else if (ctx.daemon) {
    const w = ctx.daemon.waiting?.find((x) => x.session === id);
    state = w ? 'waiting' : 'queued';
    step = w?.step ?? null;
  } else {
    // no daemon: a started ledger may stop at an approval request (read only for unfinished sessions, which are few)
    let started = false;
    try {
      started = statSync(f.ledger).size > 0;
    } catch {
      // a claim without a ledger: not begun
    }
    const w = started ? waitingOn(f.dir, (ctx.approvals ??= readApprovalSettings(ctx.paths.root))) : null;
    state = w ? 'waiting' : 'queued';
    step = w?.step ?? null;
  }
  if (want !== undefined && want !== state) return null;
  return {
    id, ...readJobFields(f.job), state, outcome, submitted_at: submittedAt(id, f.job), where: 'session', path: f.dir, step,
    cancel_requested: state !== 'done' && existsSync(join(f.dir, CANCEL_FILE)),
  };
}

/** An inbox entry as a queued job. */
function inboxJob(ctx: Context, name: string): JobInfo {
  const path = join(ctx.paths.inbox, name);
  const id = name.replace(/\.json$/, '');
  return { id, ...readJobFields(path), state: 'queued', outcome: null, submitted_at: submittedAt(id, path), where: 'inbox', path, step: null, cancel_requested: false };
}

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Every job of the root (optionally only those in `filter.state`), oldest first. */
export function listJobs(root: string, filter: { state?: JobState } = {}): JobInfo[] {
  const ctx = context(root);
  const out: JobInfo[] = [];
  for (const id of names(ctx.paths.sessions).filter(isSessionId)) {
    const j = sessionJob(ctx, id, filter.state);
    if (j) out.push(j);
  }
  if (filter.state === undefined || filter.state === 'queued') {
    for (const name of names(ctx.paths.inbox)) if (!isIgnoredName(name) && name.endsWith('.json')) out.push(inboxJob(ctx, name));
  }
  return out.sort((a, b) => (a.submitted_at < b.submitted_at ? -1 : a.submitted_at > b.submitted_at ? 1 : a.id < b.id ? -1 : 1));
}

/** One job by id (its session folder, or its inbox entry `<id>.json`), or null when the root has no such job. */
export function jobInfo(root: string, id: string): JobInfo | null {
  const ctx = context(root);
  if (isSessionId(id)) {
    const j = sessionJob(ctx, id, undefined);
    if (j) return j;
  }
  const name = `${id}.json`;
  if (!id.includes('/') && !isIgnoredName(name) && existsSync(join(ctx.paths.inbox, name))) return inboxJob(ctx, name);
  return null;
}
