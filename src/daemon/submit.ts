/**
 * Submitting a job file into the inbox, following the spool convention.
 *
 * Write under a dot-name in the inbox (ignored by the daemon, and on the same
 * filesystem, so the rename is atomic), fdatasync, rename to
 * `<newSessionId()>.json`, fsync the inbox. The id is new for every call, so
 * the same file submitted twice is two jobs. The job is validated here with
 * the daemon's own rules, so a mistake is reported to the person submitting
 * rather than only to sessions/rejected/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { newSessionId } from '../ledger/session-id.js';
import { JobError, parseJob } from '../runtime/job.js';
import { describeProblems } from '../runtime/job-check.js';
import { unknownNames } from './known-names.js';
import { writeFileAtomic } from '../base/durable-file.js';
import { readNamedJson } from '../base/named-file.js';
import { DEFAULT_MAX_JOB_BYTES } from './inspect.js';
import { daemonPaths } from './paths.js';

export type SubmitResult = { ok: true; id: string; path: string } | { ok: false; problem: string; fix: string };

/** Validate `file` and drop it into `root`'s inbox as a new job. */
export async function submitJobFile(file: string, root: string): Promise<SubmitResult> {
  const read = readNamedJson(file, 'job file', DEFAULT_MAX_JOB_BYTES);
  if ('problem' in read) return { ok: false, problem: read.problem, fix: read.fix };
  try {
    const job = parseJob(read.value, file);
    const unknown = unknownNames(root, job);
    if (unknown.length > 0) return { ok: false, problem: `${file}: ${describeProblems(unknown)}`, fix: unknown.map((u) => u.fix).join('; ') };
  } catch (err) {
    if (err instanceof JobError) return { ok: false, problem: err.message, fix: err.fix };
    throw err;
  }
  const bytes = read.bytes;
  return { ok: true, ...(await dropIntoInbox(bytes, root)) };
}

/** Write bytes into the inbox under a new session id via temp name + fsync + rename. */
export async function dropIntoInbox(bytes: Uint8Array, root: string, id = newSessionId()): Promise<{ id: string; path: string }> {
  const { inbox } = daemonPaths(root);
  await mkdir(inbox, { recursive: true });
  const path = join(inbox, `${id}.json`);
  await writeFileAtomic(path, bytes, true);
  return { id, path };
}
