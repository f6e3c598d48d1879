/**
 * `pico approve SESSION [STEP] [--root DIR] [--json]` and
 * `pico deny SESSION [STEP] [--reason TEXT] [--root DIR] [--json]`:
 * a person decides one destructive step of one session.
 *
 * The command checks that the session's ledger holds an open
 * `approval_requested` for the step (STEP may be left out when exactly one
 * waits), then writes the decision file (src/approval/decisions.ts) with the OS user and
 * the time. It never appends to the ledger: the daemon's worker is its one
 * writer, and turns the file into `approval_granted` / `approval_denied` when
 * it resumes the session. Exit 0 on a decision written, 2 for a mistake (no
 * such session, nothing waits, already decided), with what to do instead.
 * The body both commands share (approve.ts, deny.ts); the decision files
 * themselves are src/approval/decisions.ts.
 */
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { isSessionId } from '../ledger/session-id.js';
import { readLedger } from '../ledger/ledger.js';
import { emit, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';
import { ApprovalError, isDecided, pendingApprovals, writeDecision, type Decision } from '../approval/decisions.js';

/** The person deciding: the OS user running the command. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

/** Shared by both commands: find the waiting step, write the decision. */
export function decideCommand(argv: string[], decision: Decision['decision']): number {
  const name = decision === 'granted' ? 'approve' : 'deny';
  const usage = `pico ${name} SESSION [STEP] [--root DIR]${decision === 'denied' ? ' [--reason TEXT]' : ''} [--json]`;
  const options = decision === 'denied' ? { ...rootOption, ...jsonOption, reason: { type: 'string' } } as const : { ...rootOption, ...jsonOption };
  const { values, positionals } = parse(argv, options, usage);
  const [session, step] = positionals;
  if (!session || positionals.length > 2) throw new UsageError(`expected SESSION and at most one STEP, got ${JSON.stringify(positionals)}\nusage: ${usage}`);
  if (!isSessionId(session)) throw new UsageError(`"${session}" is not a session id (like 20261129-113512-3fa9c01b2d4e: see pico status)\nusage: ${usage}`);
  const root = rootOf(values);
  const dir = join(root, 'sessions', session);
  if (!existsSync(join(dir, 'job.json'))) throw new UsageError(`no session ${session} under ${join(root, 'sessions')}; check the id and --root`);
  const open = pendingApprovals(readLedger(dir));
  // a request already decided by file but not yet resumed still counts as decided
  const undecided = open.filter((p) => !isDecided(dir, p.step));
  let target = step;
  if (target === undefined) {
    if (undecided.length !== 1) {
      throw new UsageError(undecided.length === 0
        ? `session ${session} waits for no approval (pico show ${session} --root ${root} shows its ledger)`
        : `session ${session} waits on ${undecided.length} steps (${undecided.map((p) => p.step).join(', ')}); name one: ${usage}`);
    }
    target = undecided[0]!.step;
  }
  const p = open.find((x) => x.step === target);
  if (!p) throw new UsageError(`step ${target} of session ${session} does not wait for approval${undecided.length ? ` (waiting: ${undecided.map((x) => x.step).join(', ')})` : ''}`);
  const reason = 'reason' in values && typeof values.reason === 'string' ? values.reason : null;
  const d: Decision = { decision, step: target, by: osUser(), at: new Date().toISOString(), reason };
  let path: string;
  try {
    path = writeDecision(dir, d);
  } catch (err) {
    if (err instanceof ApprovalError) throw new UsageError(err.message);
    throw err;
  }
  emit(values.json === true, { session, ...d, tool: p.tool, args: p.args, file: path }, () =>
    `${decision === 'granted' ? 'approved' : 'denied'}: step ${target} of ${session}${p.tool ? ` (${p.tool} ${JSON.stringify(p.args ?? {})})` : ''} by ${d.by}${reason ? ` (${reason})` : ''}; the daemon resumes the session`);
  return 0;
}
