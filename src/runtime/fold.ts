/**
 * Session state as a fold over the ledger — never a mutable side file
 * (design §2). The loop uses it to resume after a crash: a step with a
 * committed fact or a recorded give-up is done; any other step is re-run.
 */
import type { BudgetSpent, EventOf, LedgerEvent, Measurement } from '../ledger/events.js';
import type { Trust } from '../base/trust.js';

export interface HeldFact {
  step: string;
  schema: string;
  provider: string;
  trust: Trust;
  fact: unknown;
  seq: number;
  confidence: number | null;
}

export interface SessionState {
  compositionHash: string | null;
  machine: string | null;
  userInput: EventOf<'user_input'> | null;
  measurements: Record<string, Record<string, Measurement>> | null;
  planned: boolean;
  /** the plan the session follows: the last plan_created's steps (after a replan, the whole new plan) */
  plan: EventOf<'plan_created'>['steps'] | null;
  /** who made that plan (operator for ledgers written before plans had a source) */
  planSource: NonNullable<EventOf<'plan_created'>['source']> | null;
  /** a replan happened (the loop replans at most once) */
  replanned: boolean;
  /** the steps follow-ups added (plan_extended) */
  followups: Set<string>;
  /** committed facts by step (one per step at most) */
  facts: Map<string, HeldFact>;
  /** steps that gave up, with the reason named in the answer */
  missing: Map<string, string>;
  answered: EventOf<'answer_sent'> | null;
  /** set when a budget or breaker stopped the session: no further step starts */
  stopped: string | null;
  /** an estimate of what earlier runs spent, for a resumed budget */
  spent: BudgetSpent;
  lastSeq: number;
}

/** Fold events into the state a resumed loop needs. */
export function foldSession(events: readonly LedgerEvent[]): SessionState {
  const s: SessionState = {
    compositionHash: null, machine: null, userInput: null, measurements: null, planned: false, plan: null, planSource: null, replanned: false, followups: new Set(),
    facts: new Map(), missing: new Map(), answered: null, stopped: null,
    spent: { wall_ms: 0, model_calls: 0, cpu_ms: 0 }, lastSeq: -1,
  };
  for (const e of events) {
    s.lastSeq = e.seq;
    switch (e.type) {
      case 'composition': s.compositionHash = e.hash; s.machine = e.machine; break;
      case 'user_input': s.userInput = e; break;
      case 'policy_snapshot': s.measurements = e.measurements; break;
      case 'plan_created':
        s.planned = true;
        s.plan = e.steps;
        s.planSource = e.source ?? 'operator';
        if (e.replan) s.replanned = true;
        break;
      case 'plan_extended':
        s.plan = extendPlan(s.plan ?? [], e.steps);
        for (const st of e.steps) s.followups.add(st.step);
        break;
      case 'tool_output': s.spent.wall_ms += e.duration_ms; break;
      case 'provider_called':
        s.spent.wall_ms += e.duration_ms;
        if (e.model_call) s.spent.model_calls++;
        break;
      case 'fact_added':
        s.facts.set(e.step, { step: e.step, schema: e.schema, provider: e.provider, trust: e.trust, fact: e.fact, seq: e.seq, confidence: e.confidence });
        s.missing.delete(e.step);
        break;
      case 'step_failed': case 'capability_gap': case 'budget_exhausted': case 'approval_denied':
        if (!s.facts.has(e.step)) s.missing.set(e.step, e.error);
        break;
      case 'answer_sent': s.answered = e; break;
      default: break;
    }
    if (e.type === 'budget_exhausted' || (e.type === 'breaker_tripped' && (e.breaker === 'max_steps' || e.breaker === 'loop'))) s.stopped = e.error;
  }
  return s;
}

/** True when the step needs no (more) work. */
export function stepDone(s: SessionState, step: string): boolean {
  return s.facts.has(step) || s.missing.has(step);
}

/** Follow-up steps join a plan before its closing reducer (the answer step), which then reduces them too. */
export function extendPlan<S extends { step: string; tool: string | null; from: string[] }>(plan: readonly S[], steps: readonly S[]): S[] {
  const last = plan[plan.length - 1];
  return last && last.tool === null ? [...plan.slice(0, -1), ...steps, { ...last, from: [...last.from, ...steps.map((x) => x.step)] }] : [...plan, ...steps];
}
