/**
 * Follow-ups (design §10, issue 31): the second look, chosen from what the
 * first one found. Before the answer step the loop asks the planner seam for
 * follow-ups; this module answers, per part of the goal, with the read-only
 * steps the facts call for and the facts (ledger seq) that caused each,
 * records them as plan_extended and joins them to the plan, which the loop
 * runs within the same budget — at most two rounds, counted here. A follow-up
 * that fails is said in the answer, never replanned around (lookedFurther).
 *
 * Who decides, and from what (P3, P7):
 *   - a part a playbook served: deterministic code — the served playbooks'
 *     rules (followup-rules.ts) evaluated over the part's facts, the steps'
 *     arguments taken from those facts and checked against the tool's
 *     input_schema. No model reads a fact.
 *   - a part a model planned (no playbook fits it): the rules of every
 *     playbook whose REFs that part's facts can answer are evaluated the same
 *     way by code, and those that hold make a menu; a model planner provisioned
 *     for plan@1 picks from it (followup-model.ts), reading only the goal (T0)
 *     and the menu's tool names and words (T2), under a grammar of the menu's
 *     tools alone. The arguments are still code's, from the facts.
 * A part that asks to act, to list, count, test membership or show lines is
 * not looked further into; neither is an operator's plan (the loop asks only
 * for planned goals). A call already in the plan is never added twice, and
 * the plan never grows past max_steps.
 */
import type { EventOf, LedgerEvent } from '../ledger/events.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Registry } from '../registry/registry.js';
import { extendPlan, type HeldFact } from '../runtime/fold.js';
import type { PlanStepEv } from '../runtime/planner.js';
import { BREAKERS } from '../runtime/settings.js';
import { checkValue, compileSchema } from '../ladder/schemas.js';
import type { SchemaHandle } from '../ladder/types.js';
import type { ToolManifest } from '../registry/manifest.js';
import { conditions, holds, splitRef, toolsRead, valuesAt, type Followup } from './followup-rules.js';
import { pickByModel } from './followup-model.js';
import type { Playbook } from './playbooks.js';
import { ANSWER_STEP, callKey, type PlanningContext } from './planning.js';

type Created = Extract<LedgerEvent, { type: 'plan_created' }>;
/** Follow-ups for one part of the goal (plan_extended without its round). */
type Extension = Omit<EventOf<'plan_extended'>, 'seq' | 't' | 'session_id' | 'type' | 'round'>;
type Because = Extension['because'][number];

/** What deciding follow-ups needs of the session: what planning it needs, less how to plan. */
export type FollowupContext = Pick<PlanningContext, 'registry' | 'playbooks' | 'goal' | 'step' | 'held' | 'missing'>;

/** Rounds of follow-ups before the answer: a second look, and one more from what it found. */
export const FOLLOWUP_ROUNDS = 2;
/** Asks of a part that a second look does not serve: a selection or a request to act (seam §1). */
const NOT_LOOKED_INTO = new Set(['list', 'count', 'member', 'show']);

/** One part of the goal as follow-ups read it: its index, its steps (planned, then added), who served it. */
interface PartView {
  index: number | null;
  planned: string[];
  steps: string[];
  /** the steps each round of follow-ups added to it (index 0: round 1) */
  rounds: string[][];
  playbooks: string[];
  byModel: boolean;
}

/** A rule that holds on a part's facts: the call it adds and the facts that caused it. */
interface Candidate { tool: string; args: Record<string, unknown>; why: string; because: Omit<Because, 'adds'>[] }

/** The parts of the session's plan, with the steps follow-ups already added to each. */
export function partViews(events: readonly LedgerEvent[]): PartView[] {
  const created = [...events].reverse().find((e): e is Created => e.type === 'plan_created');
  if (!created) return [];
  const extended = events.filter((e): e is Extract<LedgerEvent, { type: 'plan_extended' }> => e.type === 'plan_extended');
  const added = (part: number | null) => extended.flatMap((e) => (e.part === part ? e.steps.map((s) => s.step) : []));
  const rounds = (part: number | null) => [1, 2].map((r) => extended.flatMap((e) => (e.part === part && e.round === r ? e.steps.map((s) => s.step) : [])));
  const byModel = created.source === 'model';
  if (!created.parts?.length) {
    const planned = created.steps.filter((s) => s.tool !== null).map((s) => s.step);
    return [{ index: null, planned, steps: [...planned, ...added(null)], rounds: rounds(null), playbooks: created.playbooks ?? [], byModel }];
  }
  const views: PartView[] = [];
  created.parts.forEach((p, i) => {
    const rec = p as typeof p & { act?: unknown; ask?: { kind?: string }; source?: string };
    if (rec.unchecked || rec.act || (rec.ask?.kind && NOT_LOOKED_INTO.has(rec.ask.kind))) return;
    // a goal of one part records its follow-ups with part null, as a plan without parts does (seam §5)
    const index = created.parts!.length === 1 ? null : i;
    views.push({ index, planned: p.steps, steps: [...p.steps, ...added(index)], rounds: rounds(index), playbooks: p.playbooks, byModel: rec.source ? rec.source === 'model' : byModel && p.playbooks.length === 0 });
  });
  return views;
}

/** The part's steps by tool, first in plan order (a REF reads that one's fact). */
function stepsByTool(part: PartView, plan: readonly PlanStepEv[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of plan) if (s.tool && part.steps.includes(s.step) && !out.has(s.tool)) out.set(s.tool, s.step);
  return out;
}

/**
 * The playbooks that served a part: matched for it and every step of theirs planned. A plan reused
 * from the trajectory cache records no match, so any playbook whose steps it holds served it; a
 * part a model planned was served by none (its menu is every playbook's, for the model to pick).
 */
function servedBy(part: PartView, plan: readonly PlanStepEv[], playbooks: readonly Playbook[]): Playbook[] {
  if (part.byModel) return [];
  const tools = new Set(plan.filter((s) => part.planned.includes(s.step)).map((s) => s.tool));
  const pool = part.playbooks.length ? playbooks.filter((p) => part.playbooks.includes(p.id)) : playbooks;
  return pool.filter((p) => p.followups && p.steps.every((s) => tools.has(s.tool)));
}

const inputSchemas = new WeakMap<ToolManifest, SchemaHandle>();

/** A rule evaluated on a part's facts: the call it adds, or null when it does not hold or its arguments cannot be filled. */
function evaluate(rule: Followup, tools: Map<string, string>, held: ReadonlyMap<string, HeldFact>, registry: Registry): Candidate | null {
  const factOf = (tool: string) => { const step = tools.get(tool); return step ? held.get(step) : undefined; };
  const because: Candidate['because'] = [];
  for (const c of conditions(rule)) {
    const f = factOf(splitRef(c.fact).tool);
    if (!f || !holds(c, f.fact)) return null;
    because.push({ step: f.step, seq: f.seq, field: c.fact, why: rule.why });
  }
  const args: Record<string, unknown> = {};
  for (const [k, a] of Object.entries(rule.add.args)) {
    if (typeof a !== 'object') { args[k] = a; continue; }
    const { tool, path } = splitRef(a.fact);
    const f = factOf(tool);
    const [v, ...more] = f ? valuesAt(f.fact, path) : [];
    if (more.length > 0 || (typeof v !== 'string' && typeof v !== 'number')) return null;
    args[k] = v;
  }
  // the tool's input_schema checks values that came from a fact, as it checks a planner's
  const tool = registry.tools.get(rule.add.tool);
  if (!tool || tool.effect !== 'read_only' || !tool.fact_schema) return null;
  let schema = inputSchemas.get(tool);
  if (!schema) { schema = compileSchema(tool.input_schema, `tool:${tool.name}/input`); inputSchemas.set(tool, schema); }
  if (checkValue(schema, args) !== null) return null;
  return { tool: tool.name, args, why: rule.why, because };
}

/**
 * The follow-ups of round `round` for every part of the goal that calls for one: the steps to add
 * (named apart from every step the session has) and, for each, the facts that caused it. The model
 * path records its own planner step; the code path writes nothing.
 */
export async function decideFollowups(fc: FollowupContext, ledger: Ledger, plan: readonly PlanStepEv[], round: number): Promise<Extension[]> {
  if (round > FOLLOWUP_ROUNDS) return [];
  const taken = new Set(plan.filter((s) => s.tool).map((s) => callKey(s.tool!, s.args)));
  const names = new Set<string>([...plan.map((s) => s.step), ...fc.held.keys(), ...fc.missing.keys(), ANSWER_STEP]);
  let room = BREAKERS.max_steps - 1 - plan.filter((s) => s.tool).length;
  const parts = partViews(ledger.all);
  const out: Extension[] = [];
  for (const part of parts) {
    if (room <= 0) break;
    const tools = stepsByTool(part, plan);
    const served = servedBy(part, plan, fc.playbooks);
    // a part no playbook served, planned by a model: a menu of every playbook's rules its facts can
    // answer, each offered once — in round 1 those on the planned steps' facts, then those on the
    // facts the last round added (a rule the model passed over is not offered again)
    const fresh = new Set(round === 1 ? part.planned : part.rounds[round - 2] ?? []);
    const rules = served.length
      ? served.flatMap((p) => p.followups!)
      : part.byModel ? fc.playbooks.flatMap((p) => (p.followups ?? []).filter((r) => toolsRead(r).every((t) => tools.has(t)) && toolsRead(r).some((t) => fresh.has(tools.get(t)!)))) : [];
    const found = new Map<string, Candidate[]>();
    for (const rule of rules) {
      const c = evaluate(rule, tools, fc.held, fc.registry);
      if (!c) continue;
      const key = callKey(c.tool, c.args);
      if (taken.has(key)) continue;
      found.set(key, [...(found.get(key) ?? []), c]);
    }
    if (found.size === 0) continue;
    let picked = [...found.keys()];
    let source: Extension['source'] = 'playbook';
    let provider: string | null = null;
    if (!served.length) {
      // the menu is by tool (the model names a tool; code fills each call of it): every reason it is offered for
      const whys = new Map<string, Set<string>>();
      for (const c of [...found.values()].flat()) whys.set(c.tool, (whys.get(c.tool) ?? new Set()).add(c.why));
      const menu = [...whys].map(([tool, why]) => ({ tool, why: [...why] }));
      const looked = [...tools.keys()];
      const step = `@followups.${round}${part.index === null ? '' : `.${part.index + 1}`}`;
      const choice = await pickByModel({ registry: fc.registry, step: fc.step, held: fc.held, missing: fc.missing }, step, fc.goal, looked, menu);
      if (!choice) continue;
      picked = picked.filter((k) => choice.tools.includes(found.get(k)![0]!.tool));
      source = 'model';
      provider = choice.provider;
    }
    const steps: PlanStepEv[] = [];
    const because: Because[] = [];
    for (const key of picked.slice(0, room)) {
      const cs = found.get(key)!;
      const { tool, args } = cs[0]!;
      const t = fc.registry.tool(tool);
      let name = tool;
      for (let n = 2; names.has(name); n++) name = `${tool}_${n}`;
      names.add(name);
      taken.add(key);
      steps.push({ step: name, tool, args, capability: t.reducer, schema: t.fact_schema!, from: [] });
      for (const c of cs) for (const b of c.because) because.push({ ...b, adds: name });
    }
    if (steps.length === 0) continue;
    room -= steps.length;
    out.push({ steps, because, source, provider, part: part.index });
  }
  return out;
}

/**
 * The next round of follow-ups, recorded (one plan_extended per part) and joined to the plan before
 * its answer step; null when the facts call for none, or the rounds are spent.
 */
export async function lookFurther(fc: FollowupContext, ledger: Ledger, plan: readonly PlanStepEv[]): Promise<PlanStepEv[] | null> {
  const round = 1 + ledger.all.reduce((n, e) => (e.type === 'plan_extended' ? Math.max(n, e.round) : n), 0);
  const added = await decideFollowups(fc, ledger, plan, round);
  if (added.length === 0) return null;
  for (const x of added) ledger.append({ type: 'plan_extended', round, ...x });
  ledger.commit();
  return extendPlan(plan, added.flatMap((x) => x.steps));
}

/** Whether a step was added by a follow-up: a second look that failed is said, never replanned around. */
export function lookedFurther(events: readonly LedgerEvent[], step: string): boolean {
  return events.some((e) => e.type === 'plan_extended' && e.steps.some((x) => x.step === step));
}
