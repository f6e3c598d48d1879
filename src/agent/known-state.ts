/**
 * Whether a failed step found the machine as it is rather than a wrong plan: its tool failed for a
 * cause its manifest declares (no journal, no systemd as PID 1, a file that is not there), and the
 * plan still holds reads that have not run. Replanning then only swaps those reads for others —
 * the next playbook's failed units and whole-journal window for "is nginx running?", which read the
 * same absent source and never name the service — so the plan goes on as it was, and the answer
 * says the cause. A failure with no declared cause, or at the plan's last read, is replanned as
 * before.
 */
import type { EventOf, LedgerEvent } from '../ledger/events.js';
import { ANSWER_STEP } from './planning.js';

export function knownState(events: readonly LedgerEvent[], plan: readonly { step: string; tool: string | null }[], i: number): boolean {
  const failed = plan[i];
  if (!failed) return false;
  const last = events.findLast((e): e is EventOf<'tool_failed' | 'tool_empty' | 'tool_timeout'> => (e.type === 'tool_failed' || e.type === 'tool_empty' || e.type === 'tool_timeout') && e.step === failed.step);
  if (!last || last.type === 'tool_timeout' || !last.cause) return false;
  return plan.slice(i + 1).some((p) => p.tool !== null && p.step !== ANSWER_STEP);
}
