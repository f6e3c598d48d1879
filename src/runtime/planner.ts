/**
 * The planner seam (design §10): how a goal-only job gets its plan.
 *
 * The loop owns the order of things — plan or run, step, replan once after a
 * failure, answer — and asks a Planner only for what a plan is made of: the
 * tools a plan may use, a plan reused from the trajectory cache, a fresh plan,
 * one replan. src/agent/ fills this seam (playbooks, retrieval, the model
 * planners, the cache) and src/root/ hands it in when it opens a root, so the
 * core never imports the agent. The ledger form of a plan's steps is the
 * loop's own (an operator's plan needs no planner), so it is written here.
 */
import type { EventOf } from '../ledger/events.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ToolManifest } from '../registry/manifest.js';
import type { Registry } from '../registry/registry.js';
import type { HeldFact } from './fold.js';
import type { JobStep } from './job.js';
import type { StepContext } from './step.js';

/** A plan step in the ledger's form (plan_created). */
export type PlanStepEv = EventOf<'plan_created'>['steps'][number];
/** Who made a plan (plan_created.source). */
export type PlanSource = NonNullable<EventOf<'plan_created'>['source']>;
/** The trajectory cache's entry for a goal, as the policy snapshot records it. */
export type CacheHit = NonNullable<EventOf<'policy_snapshot'>['plan_cache']>;

/** What a planner is told about its session: the loop's own inputs, never a tool's output. */
export interface PlanSession {
  root: string;
  registry: Registry;
  job: { goal: string };
  /** plan with this provider only (pico plan --provider) */
  onlyProvider?: string;
}

export interface Planner {
  /** The tools a plan may use (their reducers and schemas are measured for the policy snapshot). */
  plannableTools(registry: Registry): ToolManifest[];
  /** The trajectory cache's hit as the policy snapshot recorded it. */
  cacheHit(ledger: Ledger): CacheHit | null;
  /** Whether the session's cached plan was dropped and no fresh plan followed yet (a crash between the two). */
  droppedUnplanned(ledger: Ledger): boolean;
  /** A cache hit's steps as a plan ending in the answer step, or null when one of them no longer runs here. */
  reuse(hit: CacheHit, registry: Registry): PlanStepEv[] | null;
  /** Plan the goal and record plan_created; null when planning failed (the ledger says why). */
  fresh(d: PlanSession, ctx: StepContext, ledger: Ledger, held: Map<string, HeldFact>, missing: Map<string, string>): Promise<{ plan: PlanStepEv[]; source: PlanSource } | null>;
  /**
   * The answer's words about the goal (design §12), read from the ledger once the steps ran: a
   * decline in plain words when nothing was planned, sentences on the parts left or the windows
   * read, and whether some part of the goal has no fact (then the answer is partial). Optional: a
   * planner without it leaves the answer as the facts make it.
   */
  explain?(ledger: Ledger, held: ReadonlySet<string>, planned: boolean, registry: Registry): { decline: string | null; notes: string[]; unanswered: boolean };
  /** Record, once, before the answer step, whether each part of the goal is answered, partial or not checked (seam §2: a `coverage` event). */
  cover?(ledger: Ledger, plan: readonly PlanStepEv[], registry: Registry): void;
  /** Follow-ups (issue 31), asked before the answer step: the next round's read-only steps from the facts committed, recorded (plan_extended) and joined to the plan it returns; null when the facts call for none. */
  followups?(d: PlanSession, ctx: StepContext, ledger: Ledger, plan: readonly PlanStepEv[], held: Map<string, HeldFact>, missing: Map<string, string>): Promise<PlanStepEv[] | null>;
  /** One replan after step `i` failed, from text-free input only; `loop` names a call proposed again after it failed. */
  replan(d: PlanSession, ctx: StepContext, ledger: Ledger, plan: PlanStepEv[], i: number, held: Map<string, HeldFact>, missing: Map<string, string>): Promise<{ plan?: PlanStepEv[]; loop?: string }>;
}

/** Job steps in the ledger's form: every `from` spelled out. */
export function planSteps(steps: readonly JobStep[], before: readonly PlanStepEv[] = []): PlanStepEv[] {
  const out: PlanStepEv[] = [...before];
  for (const s of steps) {
    out.push({ step: s.step, tool: s.tool ?? null, args: s.args, capability: s.capability, schema: s.schema, from: s.tool ? [] : s.from ?? out.map((p) => p.step) });
  }
  return out;
}
