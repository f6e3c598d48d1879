/**
 * A session's plan as the loop keeps it (design §10): the ledger form of the
 * steps, the answer step every goal-only plan ends with, the first plan of a
 * goal-only job (fresh from the planners, or reused from the trajectory
 * cache), and the one replan after a failed step with its loop check.
 *
 * Why here and not in the loop: the loop owns the order of things (plan or
 * run, step, replan, answer); what a plan is made of, and how a replan is
 * asked for from text-free input, belongs to the agent. Everything here
 * writes through the ledger the loop hands it; nothing decides when to run.
 * agentPlanner() fills the core's Planner seam (src/runtime/planner.ts) with
 * these functions; src/root/ hands it to the loop.
 */
import type { EventOf } from '../ledger/events.js';
import { FAILURE_KIND } from '../ledger/events.js';
import { knownState } from './known-state.js';
import type { Ledger } from '../ledger/ledger.js';
import type { HeldFact } from '../runtime/fold.js';
import type { JobStep } from '../runtime/job.js';
import { planSteps, type PlanSession, type Planner, type PlanStepEv } from '../runtime/planner.js';
import type { StepContext } from '../runtime/step.js';
import { cachedSteps, type CacheHit } from './cache.js';
import { ANSWER_STEP, callKey, plannableTools, planSession, type PlanResult } from './planning.js';
import type { Registry } from '../registry/registry.js';
import { decideCoverage } from './answer/coverage.js';
import { terms } from '../memory/terms.js';
import { windowLabel } from './goal/entities.js';
import { carryParts } from './plan-calls.js';
import type { Playbook } from './playbooks.js';
import type { Lexicon } from './goal/lexicon.js';
import { explain } from './goal/explain.js';
import { lookFurther, lookedFurther } from './followups.js';
import { followupNotes } from './followup-notes.js';

export { planSteps, type PlanStepEv };
type PlanStepSource = EventOf<'plan_created'>['source'];
/** The session as a planner reads it, with the playbooks a goal-only job is planned from. */
type PlanDeps = PlanSession & { playbooks?: readonly Playbook[]; lexicon?: Lexicon };

/** The agent's planner for the loop: these functions, planning from `playbooks` and the `lexicon` (loaded with the manifests). */
export function agentPlanner(playbooks: readonly Playbook[], lexicon?: Lexicon): Planner {
  // an offer of what can be checked instead is about the question when they share a word of substance (its stem)
  const topical = () => (offer: string, text: string): boolean => { const mine = new Set(terms(text)); return terms(offer).some((t) => mine.has(t)); };
  return {
    plannableTools, cacheHit, droppedUnplanned,
    // a check is named by what it reads (its tool's description up to the first comma or
    // bracket) and the values it was given, never by the tool's id
    explain: (ledger, held, planned, registry) => {
      const words = (tool: string, args: Record<string, unknown>): string => checkWords(registry, tool, args);
      const said = explain(ledger.all, held, planned, words, topical());
      return { ...said, notes: [...said.notes, ...followupNotes(ledger.all, held, playbooks, words)] };
    },
    cover: (ledger, _plan, registry) => {
      // decided once for these facts: a resumed answer step reads the decision already recorded
      const at = ledger.all.findLastIndex((e) => e.type === 'coverage');
      if (at >= 0 && !ledger.all.slice(at).some((e) => e.type === 'fact_added' || 'error' in e)) return;
      const coverage = decideCoverage(ledger.all, {
        check: (tool, args) => checkWords(registry, tool, args),
        destructive: (tool) => registry.tools.get(tool)?.effect === 'destructive',
        topical: topical(),
      });
      // made durable by the answer's own commit, which follows at once; lost in a crash, it is decided again
      ledger.append({ type: 'coverage', ...coverage });
    },
    reuse: (hit, registry) => {
      const steps = cachedSteps(hit, registry);
      return steps ? withAnswer(steps) : null;
    },
    fresh: (d, ...rest) => planFresh({ ...d, playbooks, ...(lexicon ? { lexicon } : {}) }, ...rest),
    replan: (d, ...rest) => replan({ ...d, playbooks, ...(lexicon ? { lexicon } : {}) }, ...rest),
    followups: (d, ctx, ledger, plan, held, missing) => lookFurther({ registry: d.registry, playbooks, goal: d.job.goal, step: ctx, held, missing }, ledger, plan),
  };
}

/**
 * A check in words: what its tool reads (the description up to the first comma or bracket) and the
 * values it was given, never the tool's id; an argument the description names in backticks reads
 * as its value ("the newest `keep` files" → "the newest 5 files").
 */
export function checkWords(registry: Registry, tool: string, args: Record<string, unknown>): string {
  const t = registry.tools.get(tool);
  if (!t) return 'a check';
  let what = t.description.split(/[,;(]|\.\s|\.$/)[0]!;
  const given: string[] = [];
  // a window and a level read as words ("since the last boot", "errors"), not as the tool's arguments
  const window = windowLabel(args);
  if (window) given.push(window);
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    if (what.includes(`\`${k}\``)) what = what.split(`\`${k}\``).join(String(v));
    else if (k === 'priority' && typeof v === 'string') given.push(LEVEL_WORDS[v] ?? `${v} and worse`);
    else if (!window || !['since', 'boot', 'until'].includes(k)) given.push(String(v));
  }
  what = what.replace(/`/g, '').trim();
  return `${what.charAt(0).toLowerCase()}${what.slice(1)}${given.length ? ` (${given.join(', ')})` : ''}`;
}

/** A log level as a person says it: the lines of that level and worse. */
const LEVEL_WORDS: Record<string, string> = { emerg: 'emergencies', alert: 'alerts and worse', crit: 'critical lines and worse', err: 'errors and worse', warning: 'warnings and worse', notice: 'notices and worse', info: 'every line but debug', debug: 'every line' };

/** The planner's memory lines as the policy snapshot recorded them. */
export function plannerLines(ledger: Ledger): string[] {
  const snap = ledger.all.find((e) => e.type === 'policy_snapshot');
  const m = snap && snap.type === 'policy_snapshot' ? snap.planner_memory : undefined;
  return m ? [...m.avoidance, ...m.known] : [];
}

/** The trajectory cache's hit as the policy snapshot recorded it. */
export function cacheHit(ledger: Ledger): CacheHit | null {
  const snap = ledger.all.find((e) => e.type === 'policy_snapshot');
  return snap && snap.type === 'policy_snapshot' ? snap.plan_cache ?? null : null;
}

/** Whether the session's cached plan was dropped and no fresh plan followed yet (a crash between the two). */
export function droppedUnplanned(ledger: Ledger): boolean {
  const last = ledger.all.findLastIndex((e) => e.type === 'plan_created');
  return last >= 0 && ledger.all.slice(last).some((e) => e.type === 'cache_dropped');
}

/** A planner's steps, then the answer step that reduces every one of them. */
export function withAnswer(steps: JobStep[], before: readonly PlanStepEv[] = []): PlanStepEv[] {
  const data = [...before.filter((s) => s.step !== ANSWER_STEP), ...planSteps(steps)];
  return [...data, { step: ANSWER_STEP, tool: null, args: {}, capability: 'answer@1', schema: 'answer@1', from: data.map((s) => s.step) }];
}

/** Plan the goal with the planners and record plan_created; null when planning failed (the ledger says why). */
export async function planFresh(
  d: PlanDeps, ctx: StepContext, ledger: Ledger, held: Map<string, HeldFact>, missing: Map<string, string>,
): Promise<{ plan: PlanStepEv[]; source: NonNullable<PlanStepSource> } | null> {
  const only = d.onlyProvider ? d.registry.providers.get(d.onlyProvider) : undefined;
  const planned = await planSession({
    registry: d.registry, playbooks: d.playbooks ?? [], goal: d.job.goal, step: ctx, held, missing, root: d.root,
    avoidance: plannerLines(ledger), ...(d.lexicon ? { lexicon: d.lexicon } : {}),
    ...(only ? { onlyProvider: { id: only.id, kind: only.kind } } : {}),
  });
  if (!planned.ok) return null;
  const plan = withAnswer(planned.steps);
  ledger.append({ type: 'plan_created', ...planned.created, steps: plan });
  ledger.commit();
  return { plan, source: planned.created.source ?? 'model' };
}

/**
 * One replan after step `i` failed, from text-free input only: which step, its failure kind, the
 * tool to avoid, the calls already made. Calls that already produced a fact are reused, not run
 * again; a call that already ran and failed, proposed again, is a loop: it stops the plan.
 */
export async function replan(
  d: PlanDeps, ctx: StepContext, ledger: Ledger, plan: PlanStepEv[], i: number, held: Map<string, HeldFact>, missing: Map<string, string>,
): Promise<{ plan?: PlanStepEv[]; loop?: string }> {
  if (knownState(ledger.all, plan, i)) return {}; // the machine as it is: the plan's other reads still run
  if (lookedFurther(ledger.all, plan[i]!.step)) return {}; // a second look that failed is said in the answer
  const failed = plan[i]!;
  const failure = [...ledger.all].reverse().find((e) => 'step' in e && e.step === failed.step && e.type in FAILURE_KIND && e.type !== 'step_failed');
  const kind = failure ? FAILURE_KIND[failure.type as keyof typeof FAILURE_KIND] : 'unknown';
  // every check that ran, before the failed one or (on a resume) after it: none is run again
  const ranAt = (p: PlanStepEv, j: number) => j <= i || held.has(p.step) || missing.has(p.step);
  const ran = plan.filter((p, j) => p.tool && ranAt(p, j));
  const done = ran.filter((p) => held.has(p.step)).map((p) => ({ tool: p.tool!, args: p.args }));
  const r: PlanResult = await planSession({
    registry: d.registry, playbooks: d.playbooks ?? [], goal: d.job.goal, step: ctx, held, missing, root: d.root, avoidance: plannerLines(ledger),
    ...(d.lexicon ? { lexicon: d.lexicon } : {}),
    replan: { after: failed.step, kind, avoid: [failed.tool!], done },
  });
  if (!r.ok) return {};
  const byKey = new Map(ran.map((p) => [callKey(p.tool!, p.args), p]));
  const fresh: JobStep[] = [];
  // a call proposed again names the step that already ran it, in the parts the replan records
  const reused = new Map<string, string>();
  for (const st of r.steps) {
    const before = byKey.get(callKey(st.tool!, st.args));
    if (!before) { fresh.push(st); continue; }
    if (held.has(before.step)) { reused.set(st.step, before.step); continue; } // already answered: reuse its fact
    const loop = `loop: the replan proposed ${st.tool} with the same arguments as step ${before.step}, which already failed; the plan stops here`;
    ledger.append({ type: 'breaker_tripped', step: st.step, provider: null, capability: st.capability, schema: st.schema, error: loop, attempt: 0, breaker: 'loop' });
    ledger.commit();
    return { loop };
  }
  const kept = plan.filter((p, j) => p.step !== ANSWER_STEP && ranAt(p, j));
  const next = withAnswer(fresh, kept);
  const before = ledger.all.findLast((e) => e.type === 'plan_created');
  const mapped = r.created.parts?.map((p) => ({ ...p, steps: [...new Set(p.steps.map((st) => reused.get(st) ?? st))] }));
  const parts = carryParts(before?.type === 'plan_created' ? before.parts : undefined, mapped, new Set(kept.map((p) => p.step)));
  ledger.append({ type: 'plan_created', ...r.created, ...(parts ? { parts } : {}), steps: next });
  ledger.commit();
  return { plan: next };
}
