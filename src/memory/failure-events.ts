/**
 * Which ledger events are failures, and under which kind: the one rule that
 * failure memory (ingest-events.ts) and the report page (src/report/fold.ts)
 * both count by, so the two never disagree.
 *
 * Why: a ledger records one failure more than once on purpose — a tool that
 * fails writes `tool_failed`, and the step that gives up because of it writes
 * `step_failed` with the same words, so a reader of the ledger sees where the
 * step ended. Counted as written, each systemctl failure on a box without
 * systemd showed up twice among the signatures, once as `tool_error` and once
 * as `unknown`; and every step a spent budget left unrun ("not run: …") added
 * the budget's failure again. And a person's `pico deny` is a decision, not a
 * fault: listed among the unresolved failures ("the real bug list") it was a
 * false alarm. So, read in ledger order, an event is not counted when it is:
 * - a `step_failed` closing a step that already has a failure counted;
 * - a `step_failed` saying "not run: X" where X is a failure already counted
 *   in the session (the budget, a breaker);
 * - a step an operator's cancel left unrun (`cancelled: true`);
 * - an `approval_denied` a person decided (its `by` names them; a request that
 *   timed out, or a run with no approver at all, still counts).
 * Everything else of FAILURE_KIND counts, under its kind. Pure: no database.
 */
import { FAILURE_KIND } from '../ledger/events.js';

type Event = Record<string, unknown> & { type: string };

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The failures of one session, read in ledger order. */
export class SessionFailures {
  private readonly steps = new Set<string>();
  private readonly details = new Set<string>();

  /** `counted`: the failures of this session counted already (an ingest resuming a grown ledger). */
  constructor(counted: Iterable<{ step: string | null; detail: string | null }> = []) {
    for (const c of counted) this.note(c.step, c.detail ?? '');
  }

  /** The failure kind `e` counts under, or null when it is no failure to count (see the module comment). */
  kindOf(e: Event): string | null {
    const kind = (FAILURE_KIND as Record<string, string>)[e.type];
    if (kind === undefined || e.cancelled === true) return null;
    if (e.type === 'approval_denied' && typeof e.by === 'string' && e.by !== 'timeout') return null;
    const step = str(e.step);
    const detail = detailOf(e);
    if (e.type === 'step_failed') {
      if (step !== null && this.steps.has(step)) return null;
      const notRun = /^not run: ([\s\S]*)$/.exec(detail);
      if (notRun && this.details.has(notRun[1]!)) return null;
    }
    this.note(step, detail);
    return kind;
  }

  private note(step: string | null, detail: string): void {
    if (step !== null) this.steps.add(step);
    this.details.add(detail);
  }
}

/** The words of a failure event: its error, else its detail. */
export function detailOf(e: Event): string {
  return str(e.error) ?? str(e.detail) ?? '';
}
