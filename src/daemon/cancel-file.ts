/**
 * The cancel request, `sessions/<id>/cancel.json`, and the result of a job
 * cancelled before it began.
 *
 * `pico cancel` and the daemon are separate processes (often separate
 * users' shells), so a cancel is a file, written whole (temp file, fsync,
 * rename) by the command and read by the daemon, which polls the jobs it
 * holds once a second, as it polls approval decisions. The file stays in
 * the session folder afterwards: it records who asked and when. A job that
 * never began is closed by its result file alone (its ledger is empty), in
 * the shape daemon recovery gives a session it cannot run (`closed_by`), so
 * `pico check` reads it as closed. A job that began is closed by the runtime
 * (the daemon's close run, or `pico cancel` itself when no daemon runs),
 * which writes its remaining steps as not run and answers from the facts
 * held. The request is read through the one safe path
 * (src/base/safe-open.ts): a symlink, a FIFO, a hard link, a file of a user
 * the root does not admit or one writable beyond the root's mode is no
 * request (refusedCancel says why), and reading never blocks. This module
 * reads and writes those two files; it does not decide when to cancel. It
 * lives with the daemon, which reads the request, so that the command's side
 * (src/jobs/cancel.ts) imports it from below and the daemon never imports
 * src/jobs/.
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseJsonQuiet, readPlantedText, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { writeFileAtomic } from '../base/durable-file.js';

export const CANCEL_FILE = 'cancel.json';

export interface CancelRequest {
  cancel: 'cancel@1';
  session_id: string;
  requested_at: string;
  /** uid of the process that asked */
  by_uid: number | null;
}

/** The reason a cancelled session's not-run steps carry. */
export function cancelReason(r: CancelRequest | null): string {
  return `cancelled by the operator (pico cancel${r ? ` at ${r.requested_at}` : ''})`;
}

/** Write the request atomically (durable: it must survive a daemon restart). */
export async function writeCancelRequest(sessionDir: string, id: string): Promise<CancelRequest> {
  const r: CancelRequest = { cancel: 'cancel@1', session_id: id, requested_at: new Date().toISOString(), by_uid: process.getuid?.() ?? null };
  await writeFileAtomic(join(sessionDir, CANCEL_FILE), JSON.stringify(r, null, 2) + '\n');
  return r;
}

/** A cancel request is a few hundred bytes. */
const CANCEL_MAX_BYTES = 16 * 1024;

/** Read the request file safely: its text and owner, null when absent; throws UnsafeFileError when refused. */
function readRequestText(sessionDir: string): { text: string; uid: number } | null {
  return readPlantedText(rootRules(dirname(dirname(sessionDir))), join(sessionDir, CANCEL_FILE), { maxBytes: CANCEL_MAX_BYTES, what: 'cancel request' });
}

/** True when a cancel was asked for this session: one lstat, then a safe read only when something is there. */
export function cancelRequested(sessionDir: string): boolean {
  if (lstatSync(join(sessionDir, CANCEL_FILE), { throwIfNoEntry: false }) === undefined) return false;
  try {
    return readRequestText(sessionDir) !== null;
  } catch (err) {
    if (err instanceof UnsafeFileError) return false; // not a request a person made: refusedCancel says why
    throw err;
  }
}

/** Why the session's cancel.json is not honoured, or null when there is none or it is. */
export function refusedCancel(sessionDir: string): UnsafeFileError | null {
  if (lstatSync(join(sessionDir, CANCEL_FILE), { throwIfNoEntry: false }) === undefined) return null;
  try {
    readRequestText(sessionDir);
    return null;
  } catch (err) {
    if (err instanceof UnsafeFileError) return err;
    throw err;
  }
}

/** The request, or a minimal one when its content is damaged (a damaged request still cancels: the person asked). */
export function readCancelRequest(sessionDir: string, id: string): CancelRequest {
  try {
    const f = readRequestText(sessionDir);
    const json = f === null ? null : parseJsonQuiet(f.text);
    const r = json && 'value' in json ? (json.value as CancelRequest) : null;
    // who asked is the file's owner, whatever it says
    if (r && r.cancel === 'cancel@1' && typeof r.requested_at === 'string') return { ...r, by_uid: f!.uid };
  } catch {
    // below
  }
  return { cancel: 'cancel@1', session_id: id, requested_at: new Date().toISOString(), by_uid: null };
}

/** Close a job that never began: result.json says `cancelled`, with no answer. */
export async function writeCancelledResult(sessionDir: string, id: string, closedBy: string, r: CancelRequest | null): Promise<string> {
  const path = join(sessionDir, 'result.json');
  const doc = {
    session_id: id,
    outcome: 'cancelled',
    answer: null,
    closed_by: closedBy,
    problem: `${cancelReason(r)} before it began; no step ran`,
    fix: `pico retry ${id} submits it again as a new job`,
    requested_at: r?.requested_at ?? null,
    at: new Date().toISOString(),
  };
  await writeFileAtomic(path, JSON.stringify(doc, null, 2) + '\n');
  return path;
}
