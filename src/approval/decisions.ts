/**
 * Human approval of destructive steps (design §5.4, §11.4): the decision store.
 *
 * A step whose tool is `effect: destructive` stops its session at
 * `approval_requested`; only a person decides, with `pico approve` or
 * `pico deny`. The daemon's worker is the one writer of a session's ledger,
 * so the CLI never appends to it: it writes a decision file,
 * `sessions/<id>/approvals/<step>.json` (atomic, mode 0600, with the OS user
 * and the time), and the daemon, seeing it, requeues the session; the worker
 * turns the file into `approval_granted` / `approval_denied` when the step
 * resumes. A decision is for one step of one session: there is no standing
 * approval, and nothing a model, a playbook or a cached plan produces can
 * write this file (they only ever write ledger events through the runtime).
 * An optional root setting, `approval.json` (`{"expire_after_s": N}`), lets an
 * unanswered request expire: it is then denied with `by: "timeout"`.
 *
 * Who decided is the kernel's word, not the file's: a decision file is read
 * through the one safe path (src/base/safe-open.ts) and `by` is the name of
 * its owner. A file that is a symlink (or lies under one), a FIFO or other
 * special file, a hard link, a file of a user the root does not admit, or one
 * writable beyond the root's mode is refused (DecisionRefused): the session
 * keeps waiting and the daemon says why. A refused file is not a decision, so
 * nothing a session, a tool or another user plants can approve a step.
 *
 * It does not run steps, resume sessions or parse arguments (the runtime,
 * the daemon and src/cli/decide.ts do).
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkFolder, parseJsonQuiet, readPlantedText, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { userName } from '../base/user-name.js';
import { z } from '../base/zod.js';
import { writeFileAtomicSync } from '../base/durable-file.js';
import type { LedgerEvent } from '../ledger/events.js';

export const APPROVALS_DIR = 'approvals';
export const APPROVAL_SETTINGS_FILE = 'approval.json';

export const decisionSchema = z.strictObject({
  decision: z.enum(['granted', 'denied']),
  step: z.string().min(1),
  by: z.string().min(1),
  at: z.string().min(1),
  reason: z.string().nullable(),
});
export type Decision = z.infer<typeof decisionSchema>;

export const settingsSchema = z.strictObject({ expire_after_s: z.number().positive().nullable().default(null) });
export type ApprovalSettings = z.infer<typeof settingsSchema>;

/** A parse failure in one line: each issue's field and message. */
function problem(err: unknown): string {
  return err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; ') : (err as Error).message;
}

/** A decision file or setting that cannot be used: names the file and the fix. */
export class ApprovalError extends Error {
  override name = 'ApprovalError';
}

/** A decision file the daemon will not honour (UnsafeFileError's reason): the session keeps waiting. */
export class DecisionRefused extends Error {
  override name = 'DecisionRefused';
  constructor(readonly file: string, readonly reason: string, message: string, readonly owner: number | null) {
    super(message);
  }
}

/** A decision file, or approval.json, is a few hundred bytes: a cap well above that. */
const DECISION_MAX_BYTES = 64 * 1024;

/** The root a session folder belongs to (<root>/sessions/<id>). */
const rootOf = (sessionDir: string): string => dirname(dirname(sessionDir));

/** The name a uid is shown by in a decision: its login name, or "uid N". */
function ownerName(uid: number): string {
  return userName(uid) ?? `uid ${uid}`;
}

/** What waits for a person: the request the ledger holds with no decision after it. */
export interface PendingApproval {
  step: string;
  tool: string | null;
  args: Record<string, unknown> | null;
  reason: string;
  /** when it was requested (the event's time) */
  since: string;
}

/** The path of one step's decision file. */
export function decisionPath(sessionDir: string, step: string): string {
  return join(sessionDir, APPROVALS_DIR, `${encodeURIComponent(step)}.json`);
}

/** The approval requests in a ledger that have no decision event yet (normally at most one). */
export function pendingApprovals(events: readonly LedgerEvent[]): PendingApproval[] {
  const open = new Map<string, PendingApproval>();
  for (const e of events) {
    if (e.type === 'approval_requested') open.set(e.step, { step: e.step, tool: e.tool ?? null, args: e.args ?? null, reason: e.reason, since: e.t });
    else if ((e.type === 'approval_granted' || e.type === 'approval_denied') && open.has(e.step)) open.delete(e.step);
  }
  // a session that answered waits for nothing
  return events.some((e) => e.type === 'answer_sent') ? [] : [...open.values()];
}

/**
 * Read one step's decision, or null when none was written. `by` is the file's owner, whatever the
 * file says. Throws DecisionRefused on a file that is not safe to honour, ApprovalError on a
 * damaged one.
 */
export function readDecision(sessionDir: string, step: string): Decision | null {
  const path = decisionPath(sessionDir, step);
  let f;
  try {
    f = readPlantedText(rootRules(rootOf(sessionDir)), path, { maxBytes: DECISION_MAX_BYTES, what: 'decision file' });
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new DecisionRefused(err.file, err.reason, `${err.message}; the step still waits for pico approve or pico deny`, err.owner);
    throw err;
  }
  if (f === null) return null;
  const json = parseJsonQuiet(f.text);
  let parsed: Decision;
  try {
    if ('problem' in json) throw new Error(json.problem);
    parsed = decisionSchema.parse(json.value);
  } catch (err) {
    throw new ApprovalError(`${path}: not a decision file (${problem(err)}); remove it and decide again with pico approve or pico deny`);
  }
  if (parsed.step !== step) throw new ApprovalError(`${path}: it decides step "${parsed.step}", not "${step}"; remove it and decide again with pico approve or pico deny`);
  return { ...parsed, by: ownerName(f.uid) };
}

/** True when the step has a decision file that is honoured (or damaged: writeDecision says so); a refused one decides nothing. */
export function isDecided(sessionDir: string, step: string): boolean {
  try {
    return readDecision(sessionDir, step) !== null;
  } catch (err) {
    if (err instanceof DecisionRefused) return false;
    if (err instanceof ApprovalError) return true;
    throw err;
  }
}

/** Why a step's decision file is refused, or null when there is none or it is honoured (or damaged: ApprovalError's). */
export function refusedDecision(sessionDir: string, step: string): DecisionRefused | null {
  try {
    readDecision(sessionDir, step);
    return null;
  } catch (err) {
    if (err instanceof DecisionRefused) return err;
    return null;
  }
}

/** Write a person's decision for one step; refuses a second decision for the same step. */
export function writeDecision(sessionDir: string, d: Decision): string {
  const path = decisionPath(sessionDir, d.step);
  if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
    const refused = refusedDecision(sessionDir, d.step);
    if (refused) throw new ApprovalError(`step ${d.step} has a decision file the daemon refuses (${refused.message}); remove ${path} and decide again`);
    throw new ApprovalError(`step ${d.step} of this session is already decided (${path}); a decision is final`);
  }
  try {
    checkFolder(rootRules(rootOf(sessionDir)), join(sessionDir, APPROVALS_DIR)); // never write through a planted link
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new ApprovalError(`${err.message}; then decide again`);
    throw err;
  }
  mkdirSync(join(sessionDir, APPROVALS_DIR), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(path, JSON.stringify(decisionSchema.parse(d), null, 2) + '\n', true, 0o600);
  return path;
}

/** The root's approval settings (approval.json), or the defaults: requests wait for ever. */
export function readApprovalSettings(root: string): ApprovalSettings {
  const path = join(root, APPROVAL_SETTINGS_FILE);
  let text: string;
  try {
    const f = readPlantedText(rootRules(root), path, { maxBytes: DECISION_MAX_BYTES, what: 'approval settings file' });
    if (f === null) return { expire_after_s: null };
    text = f.text;
  } catch (err) {
    if (err instanceof UnsafeFileError) throw new ApprovalError(`${err.message}; or remove it to let approvals wait for ever`);
    throw err;
  }
  try {
    const json = parseJsonQuiet(text);
    if ('problem' in json) throw new Error(json.problem);
    return settingsSchema.parse(json.value);
  } catch (err) {
    throw new ApprovalError(`${path}: ${problem(err)}; write {"expire_after_s": <seconds>} or remove it to let approvals wait for ever`);
  }
}

/**
 * The decision for a step requested at `since`: the person's file, else a timeout denial once
 * the setting's time has passed, else null (it still waits).
 */
export function decide(sessionDir: string, step: string, since: string, settings: ApprovalSettings, now = Date.now()): Decision | null {
  let d: Decision | null;
  try {
    d = readDecision(sessionDir, step);
  } catch (err) {
    if (!(err instanceof DecisionRefused)) throw err;
    d = null; // a refused file decides nothing: the step waits (the daemon reports the refusal)
  }
  if (d) return d;
  const s = settings.expire_after_s;
  if (s !== null && now - Date.parse(since) >= s * 1000) {
    return { decision: 'denied', step, by: 'timeout', at: new Date(now).toISOString(), reason: `no one decided within expire_after_s = ${s} s (${APPROVAL_SETTINGS_FILE})` };
  }
  return null;
}
