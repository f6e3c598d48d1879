/**
 * The "why" measure of `pico eval --goals` (issue 31): for a goal that asks
 * why, whether its answer names a cause — a second look that found
 * something, said in the answer — rather than restating the symptom.
 *
 * A goal asks why when its goal file marks a part `"why": true`, or the
 * agent recorded a part's ask as `why` (seam §1). Such a goal is run whole,
 * on this machine's live tools, and its ledger says what the follow-ups
 * read: a cause is named when one follow-up's fact holds a finding (FOUND:
 * the biggest folders, a journal's size, a unit's ending or lines, stall
 * figures, the memory holders, the throttle bits) — a fact that says only
 * "unknown here" (no systemd, no PSI, not a Pi) names none. The figure is
 * this machine's: a healthy box calls for no second look.
 */
import type { LedgerEvent } from '../../ledger/events.js';

type Fact = Record<string, unknown>;
const some = (v: unknown) => Array.isArray(v) && v.length > 0;

/** Per second-look schema: whether its fact found something to name. */
export const FOUND: Record<string, (f: Fact) => boolean> = {
  'folder_sizes@1': (f) => some(f.largest),
  'journal_disk@1': (f) => f.journal === 'present',
  'log_files@1': (f) => some(f.files),
  'unit_log@1': (f) => f.systemd === true && (f.result !== null || some(f.lines)),
  'pressure@1': (f) => f.available === true,
  'memory_holders@1': (f) => some(f.programs),
  'throttling@1': (f) => f.source !== null,
};

export interface CauseRead {
  /** the agent recorded a part asking why */
  asksWhy: boolean;
  /** rounds of follow-ups, steps they added, and whether one of them named a cause */
  rounds: number;
  looked: string[];
  named: boolean;
}

/** What a whole session's ledger says of its second look. */
export function readCause(events: readonly LedgerEvent[]): CauseRead {
  const created = events.find((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created');
  const asksWhy = (created?.parts ?? []).some((p) => (p as { ask?: { kind?: string } }).ask?.kind === 'why');
  const ext = events.filter((e): e is Extract<LedgerEvent, { type: 'plan_extended' }> => e.type === 'plan_extended');
  const added = new Set(ext.flatMap((e) => e.steps.map((s) => s.step)));
  const named = events.some((e) => e.type === 'fact_added' && added.has(e.step) && (FOUND[e.schema]?.(e.fact as Fact) ?? false));
  return { asksWhy, rounds: Math.max(0, ...ext.map((e) => e.round)), looked: ext.flatMap((e) => e.steps.map((s) => s.tool ?? s.step)), named };
}
