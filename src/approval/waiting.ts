/**
 * The daemon's list of sessions that wait for a person (design §11.4).
 *
 * A session whose destructive step has no decision is not queued, not
 * handed to the worker and not resumed at start: it sits on disk, using no
 * CPU, until `pico approve` / `pico deny` writes its decision file (or the
 * expiry setting passes). The daemon polls this list once a second (a stat
 * per waiting session) and requeues what was decided; the worker then turns
 * the file into the ledger event. A decision file the daemon refuses (a
 * symlink, a FIFO, another user's, too loosely writable: decisions.ts) leaves
 * the session here, and `onRefused` hears of it once per file and reason, so
 * the daemon can say why. It does not write ledgers or results.
 */
import { join } from 'node:path';
import type { BudgetClass } from '../ledger/events.js';
import { readLedger } from '../ledger/ledger.js';
import { decide, pendingApprovals, readApprovalSettings, refusedDecision, type ApprovalSettings, type DecisionRefused, type PendingApproval } from './decisions.js';

export interface WaitingSession {
  session: string;
  budgetClass: BudgetClass;
  step: string;
  tool: string | null;
  since: string;
  /** why the decision file there is refused (the session still waits), when one is */
  refused?: string;
}

/** The approval a session on disk waits for (its ledger's open request with no decision yet), or null. */
export function waitingOn(sessionDir: string, settings: ApprovalSettings): PendingApproval | null {
  let events;
  try {
    events = readLedger(sessionDir);
  } catch {
    return null; // a damaged or missing ledger waits for nothing: the runtime closes it on resume
  }
  for (const p of pendingApprovals(events)) {
    try {
      if (decide(sessionDir, p.step, p.since, settings) === null) return p;
    } catch {
      return null; // a damaged decision file: the resume reports it and closes the session
    }
  }
  return null;
}

export class WaitingList {
  private readonly waiting = new Map<string, WaitingSession>();
  readonly settings: ApprovalSettings;
  /** refusals already told (session, step, file, reason), so each is told once */
  private readonly told = new Set<string>();
  /** told of each refused decision file once (the daemon logs it and shows it in status) */
  onRefused: (w: WaitingSession, refusal: DecisionRefused) => void = () => undefined;

  /** `settings`: the approval settings already known (the daemon's, when the root has no approval.json); else read from `root` */
  constructor(private readonly sessionsDir: string, root: string, settings?: ApprovalSettings) {
    this.settings = settings ?? readApprovalSettings(root);
  }

  add(w: WaitingSession): void {
    this.waiting.set(w.session, w);
  }

  /** Take a session off the list (it was cancelled); false when it was not on it. */
  remove(session: string): boolean {
    for (const k of [...this.told]) if (k.startsWith(`${session}\0`)) this.told.delete(k);
    return this.waiting.delete(session);
  }

  get size(): number {
    return this.waiting.size;
  }

  list(): WaitingSession[] {
    return [...this.waiting.values()].sort((a, b) => (a.since < b.since ? -1 : 1));
  }

  /** Tell onRefused of a refused decision file of `w`, once per file and reason. */
  private tellRefusal(w: WaitingSession): void {
    const r = refusedDecision(join(this.sessionsDir, w.session), w.step);
    if (!r) return;
    const key = `${w.session}\0${w.step}\0${r.file}\0${r.reason}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    w.refused = r.message;
    this.onRefused(w, r);
  }

  /** The sessions decided since the last look (removed from the list). */
  decided(now = Date.now()): WaitingSession[] {
    const out: WaitingSession[] = [];
    for (const w of this.waiting.values()) {
      let d;
      try {
        d = decide(join(this.sessionsDir, w.session), w.step, w.since, this.settings, now);
      } catch {
        d = true; // a damaged decision file: resume it, and the runtime says what is wrong
      }
      if (d) out.push(w);
      else this.tellRefusal(w);
    }
    for (const w of out) this.remove(w.session);
    return out;
  }
}
