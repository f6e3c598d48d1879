/**
 * Working directories of the execution world: `sessions/<id>/work/<step>/`.
 *
 * Why: every run gets a directory it owns (mode 0700), inside the session it
 * belongs to, so anything it writes is session state on disk (design P1) and
 * can be inspected or deleted with the session. This module only creates the
 * folder; it never deletes one (sessions are removed as a whole, elsewhere).
 */
import { chmod, mkdir, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Create (if needed) and return the absolute, real path of the work dir for one step of a session. */
export async function makeWorkDir(root: string, sessionId: string, step: number | string): Promise<string> {
  if (!SAFE.test(sessionId) || sessionId.includes('..')) {
    throw new TypeError(`makeWorkDir: session id ${JSON.stringify(sessionId)} is not a plain folder name; pass the id from the session, not a path`);
  }
  const stepName = String(step);
  if (typeof step === 'number' ? !Number.isInteger(step) || step < 0 : !SAFE.test(stepName) || stepName.includes('..')) {
    throw new TypeError(`makeWorkDir: step ${JSON.stringify(step)} must be a non-negative integer or a plain name`);
  }
  const dir = join(resolve(root), 'sessions', sessionId, 'work', stepName);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  return realpath(dir);
}
