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
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newSessionId } from '../ledger/session-id.js';
import { JobError, parseJob } from '../runtime/job.js';
import { describeProblems } from '../runtime/job-check.js';
import { unknownNames } from './known-names.js';
import { writeFileAtomic } from '../base/durable-file.js';
import { decodeUtf8Strict, UTF8_FIX } from '../base/utf8.js';
import { DEFAULT_MAX_JOB_BYTES } from './inspect.js';
import { daemonPaths } from './paths.js';

export type SubmitResult = { ok: true; id: string; path: string } | { ok: false; problem: string; fix: string };

/** Validate `file` and drop it into `root`'s inbox as a new job. */
export async function submitJobFile(file: string, root: string): Promise<SubmitResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    return { ok: false, problem: `${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, fix: 'give the path of an existing job file' };
  }
  if (bytes.length > DEFAULT_MAX_JOB_BYTES) {
    return { ok: false, problem: `${file} is ${bytes.length} bytes, over the ${DEFAULT_MAX_JOB_BYTES}-byte limit`, fix: 'a job names its inputs by path (tool args); do not inline large data' };
  }
  const decoded = decodeUtf8Strict(bytes);
  if ('problem' in decoded) return { ok: false, problem: `${file}: ${decoded.problem}`, fix: UTF8_FIX };
  try {
    const job = parseJob(JSON.parse(decoded.text), file);
    const unknown = unknownNames(root, job);
    if (unknown.length > 0) return { ok: false, problem: `${file}: ${describeProblems(unknown)}`, fix: unknown.map((u) => u.fix).join('; ') };
  } catch (err) {
    if (err instanceof JobError) return { ok: false, problem: err.message, fix: err.fix };
    return { ok: false, problem: `${file} is not valid JSON: ${(err as Error).message}`, fix: 'fix the JSON syntax' };
  }
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
