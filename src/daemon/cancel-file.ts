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
 * held. This module reads and writes those two files; it does not decide
 * when to cancel. It lives with the daemon, which reads the request, so that
 * the command's side (src/jobs/cancel.ts) imports it from below and the
 * daemon never imports src/jobs/.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

/** True when a cancel was asked for this session (one stat). */
export function cancelRequested(sessionDir: string): boolean {
  return statSync(join(sessionDir, CANCEL_FILE), { throwIfNoEntry: false }) !== undefined;
}

/** The request, or a minimal one when the file is damaged (a damaged request still cancels: the person asked). */
export function readCancelRequest(sessionDir: string, id: string): CancelRequest {
  try {
    const r = JSON.parse(readFileSync(join(sessionDir, CANCEL_FILE), 'utf8')) as CancelRequest;
    if (r.cancel === 'cancel@1' && typeof r.requested_at === 'string') return r;
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
