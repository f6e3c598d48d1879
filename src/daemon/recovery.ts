/**
 * Crash recovery: find every claimed job that has not finished.
 *
 * A session is finished iff `sessions/<id>/result.json` exists and is whole
 * (a power cut can leave a renamed-in file with no data, or cut short; that
 * session is re-closed from its ledger, which is the truth). On start,
 * every session folder holding job.json without result.json is a claimed job
 * the previous daemon did not finish (SIGKILL, power loss, a forced stop);
 * it is queued again and the runtime resumes it from its last committed
 * event (a committed fact is never committed twice — that is the runtime's
 * promise; ours is to never lose or duplicate the job). A job.json that no
 * longer parses cannot be resumed, so its session is closed with an explicit
 * `declined` result naming the problem. Ordering follows the queue's rule
 * (class, then arrival); arrival of a recovered job is its claim time.
 * A session that waits for a person's approval has no result.json either;
 * the daemon keeps it off the queue until decided (src/approval/waiting.ts).
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { JobError, parseJob } from '../runtime/job.js';
import { isSessionId } from '../ledger/session-id.js';
import type { BudgetClass } from '../ledger/events.js';
import { writeFileAtomic } from '../base/durable-file.js';
import { isStorageError } from '../base/storage-error.js';
import { sessionFiles, type DaemonPaths } from './paths.js';

export interface Unfinished {
  id: string;
  budgetClass: BudgetClass;
  /** true when the ledger has events: the job was running when the daemon stopped (a claim makes it empty) */
  started: boolean;
  claimedAt: number;
}

export interface Closed {
  id: string;
  problem: string;
}

/** Scan the sessions folder; returns unfinished jobs in claim order and the sessions closed as unresumable. */
export async function findUnfinished(paths: DaemonPaths): Promise<{ unfinished: Unfinished[]; closed: Closed[] }> {
  const unfinished: Unfinished[] = [];
  const closed: Closed[] = [];
  let names: string[];
  try {
    names = await readdir(paths.sessions);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { unfinished, closed };
    throw err;
  }
  for (const id of names.filter(isSessionId)) {
    const f = sessionFiles(paths, id);
    // the result first: most sessions of a root have one, and then job.json need not be looked for
    if (isWholeResult(f.result) || !existsSync(f.job)) continue;
    let text: string;
    let claimedAt: number;
    try {
      text = await readFile(f.job, 'utf8');
      claimedAt = (await stat(f.job)).ctimeMs;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    try {
      const job = parseJob(JSON.parse(text), f.job);
      unfinished.push({ id, budgetClass: job.budget_class, started: hasContent(f.ledger), claimedAt });
    } catch (err) {
      const problem = err instanceof JobError ? err.message : `${f.job}: not valid JSON (${(err as Error).message})`;
      try {
        await closeUnresumable(paths, id, problem);
      } catch (e) {
        if (!isStorageError(e)) throw e;
        continue; // the disk refuses the result: the session stays claimed and is closed on a later start
      }
      closed.push({ id, problem });
    }
  }
  unfinished.sort((a, b) => a.claimedAt - b.claimedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { unfinished, closed };
}

/** Close a claimed session whose job can no longer be run, with an explicit declined result. */
export async function closeUnresumable(
  paths: DaemonPaths,
  id: string,
  problem: string,
  fix = 'the claimed job.json was changed after it was claimed; submit a corrected job as a new file',
  closedBy = 'daemon recovery',
): Promise<void> {
  const result = {
    session_id: id,
    outcome: 'declined',
    answer: null,
    closed_by: closedBy,
    problem,
    fix,
    at: new Date().toISOString(),
  };
  await writeFileAtomic(sessionFiles(paths, id).result, JSON.stringify(result, null, 2) + '\n');
}

/**
 * True when result.json is there and whole. Every result is an indented JSON object, so its
 * last line is a lone "}"; a file that is empty or ends otherwise was cut short (a power cut,
 * a disk that lied, an older writer) and its session is re-closed from the ledger. Only the
 * last bytes are read (a tiny file is parsed whole), so a start over many sessions stays quick.
 */
function isWholeResult(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 16));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const text = tail.toString('utf8').trimEnd();
    if (size <= 16) {
      const v = JSON.parse(text) as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    }
    return text.endsWith('\n}');
  } catch {
    return false; // not JSON, or not a readable file (a folder): not a whole result
  } finally {
    closeSync(fd);
  }
}

/** True when a file exists with content (an empty result is what a power cut leaves behind; an empty ledger is a claim's). */
function hasContent(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}
