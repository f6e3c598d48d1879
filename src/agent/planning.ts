/**
 * Planning a goal-only job (design §10): the goal becomes a plan, made by a
 * `plan@1` provider through the ordinary step machinery, so a planner is
 * selected, called, validated, retried and escalated like any provider and
 * every byte it saw is in the ledger.
 *
 * What a planner sees is trusted only (P7): the operator's goal (T0), the
 * tool and playbook manifests (T2), the text-free failure-memory avoidance
 * block and, on a replan, which step failed, how, and which tools to avoid —
 * never a tool's output. The order is deterministic code first (P3):
 *
 *   1. the playbooks that match the goal → the `code` playbook planner;
 *   2. otherwise (or when it cannot fill one) the tools retrieval ranks top-k
 *      (BM25 over names, descriptions and `when` lines) → a model planner,
 *      where one is provisioned, whose prompt the runtime fits to its token
 *      budget (full → brief → title disclosure, or a named refusal) and whose
 *      output schema — so also its grammar — holds only those tools' calls;
 *   3. no model planner, or it failed: the retrieval planner
 *      (retrieval-planner.ts) — the retrieved tools whose words and schemas
 *      cover the part's subject, with the arguments its entities give;
 *   4. nothing covers the part: a `capability_gap` naming plan@1, and the
 *      part is declined in words.
 *
 * Each part is recorded with who planned it (`source`), what it is about
 * (`subject`), the words that selected its playbook (`matched`), what it
 * asks of the facts (`ask`) and the change it requests (`act`), seam §1.
 * The window a part names is the window every call of it reads: a
 * playbook's fixed window ("this boot") gives way to "the boot before".
 *
 * The proposed calls become steps (each tool's reducer and fact_schema) plus
 * an answer step; a call the registry cannot run is a validation failure of
 * the planner, fed back on a retry. This module decides nothing after the
 * plan: the loop runs it, and asks for one replan after a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from '../registry/registry.js';
import type { ToolManifest } from '../registry/manifest.js';
import type { HeldFact } from '../runtime/fold.js';
import type { JobStep } from '../runtime/job.js';
import { runStep, type StepContext } from '../runtime/step.js';
import { select } from '../runtime/policy.js';
import { estimator, fitPrompt, modelCounter, rankTools, type RankedTool, type TokenCounter } from './index.js';
import { AGENT_DEFAULTS } from './settings.js';
import { planSchemaFor } from './plan-schema.js';
import type { Playbook } from './playbooks.js';
import type { SlotEntities } from './extractors.js';
import { goalReader, type GoalReader } from './goal/reader.js';
import { EMPTY_LEXICON, type Lexicon } from './goal/lexicon.js';
import { loadLexicon } from './goal/load.js';
import type { GoalPart } from './goal/index.js';
import { retrievalCalls, selectionCalls, withWindow, type RetrievalScope } from './retrieval-plan.js';
import { cannotAct, cannotAnswerGeneral, cannotCheck, cannotCheckText, workingRequest } from './declines.js';
import { callKey, checkCalls, toPlan, type PartCall, type PlanCreated } from './plan-calls.js';
import { folderSource } from '../registry/load.js';

export { ANSWER_STEP, callKey, checkCalls, type PlanCreated } from './plan-calls.js';

export interface PlanningContext {
  registry: Registry;
  playbooks: readonly Playbook[];
  goal: string;
  /** the step machinery, as the loop uses it */
  step: StepContext;
  held: Map<string, HeldFact>;
  missing: Map<string, string>;
  root: string;
  settings?: { top_k: number; prompt_tokens: number; reserve_tokens: number };
  counter?: TokenCounter;
  /** text-free avoidance lines from failure memory (the policy snapshot holds them) */
  avoidance?: readonly string[];
  /** plan with this provider only (pico plan --provider): its kind decides the phase */
  onlyProvider?: { id: string; kind: string };
  /** the admin's lexicon (manifests/lexicon/); absent, the root's is read */
  lexicon?: Lexicon;
  /** a replan: the step that failed, its failure kind, the tools to avoid, the calls already made */
  replan?: { after: string; kind: string; avoid: string[]; done: { tool: string; args: Record<string, unknown> }[] };
}

export type PlanResult =
  | { ok: true; created: PlanCreated; steps: JobStep[] }
  /** `plain`: what a person reads — each part that could not be served, and why, without jargon */
  | { ok: false; reason: string; plain?: string };

export const PLAN_STEP = '@plan';
/** The planner a retrieval plan names (agent code, not a provider: it makes no call of its own) */
export const RETRIEVAL_PLANNER = 'retrieval-planner';
export const REPLAN_STEP = '@replan';

/** The tools a plan may use: those that say what their output reduces to, and are not destructive. */
export function plannableTools(registry: Registry): ToolManifest[] {
  return [...registry.tools.values()].filter((t) => t.fact_schema !== undefined && t.effect === 'read_only').sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The tools retrieval puts before a model planner for this goal (top-k, best first; never an avoided one). */
export function retrieve(goal: string, registry: Registry, k: number, avoid: readonly string[] = []): RankedTool[] {
  const catalog = plannableTools(registry).filter((t) => !avoid.includes(t.name));
  return catalog.length ? rankTools(goal, catalog, k) : [];
}

/**
 * What retrieval ranks for each part of a goal, as planning reads it (the goal reader over the
 * lexicon): for `pico plan` and `pico eval --goals` when no plan was made, so a failed plan still
 * shows what the planner was given.
 */
export function retrievedParts(goal: string, registry: Registry, playbooks: readonly Playbook[], k: number, root: string, lexicon?: Lexicon): { text: string; retrieved: RankedTool[] }[] {
  const reader = readerFor(registry, playbooks, lexicon, root);
  const tools = plannableTools(registry);
  return reader.understand(goal).parts.map((p) => ({ text: p.text, retrieved: p.action ? [] : reader.rank(p, tools, k) }));
}

/** What planning one part of the goal gave. */
interface PartPlan {
  calls: { name: string; arguments: Record<string, unknown> }[];
  record: NonNullable<PlanCreated['parts']>[number];
  source?: 'playbook' | 'model' | 'retrieval';
  provider?: string | null;
  prompt_tokens?: number;
  tokens_exact?: boolean;
  level?: PlanCreated['level'];
  /** the technical reason a part got no call (the ledger has it; the answer says `record.unchecked`) */
  reason?: string;
  /** no playbook served the part, and retrieval found tools: a model planner is asked */
  needsModel?: boolean;
}

/** The goal reader for this registry, playbooks and lexicon (the root's, when the runtime hands none in). */
export function readerFor(registry: Registry, playbooks: readonly Playbook[], lexicon?: Lexicon, root?: string): GoalReader {
  const lex = lexicon ?? (root ? lexiconOf(root) : EMPTY_LEXICON);
  const tools = [...registry.tools.values()].filter((t) => t.fact_schema !== undefined).sort((a, b) => (a.name < b.name ? -1 : 1));
  return goalReader(lex, tools, playbooks);
}

/** The root's lexicon (manifests/lexicon/), or an empty one when it has none or it does not load. */
function lexiconOf(root: string): Lexicon {
  const loaded = loadLexicon(folderSource(root));
  return loaded.issues.length ? EMPTY_LEXICON : loaded.lexicon;
}

/**
 * Make the session's plan; records every planner call and failure in the ledger through runStep.
 *
 * The goal is read once (goal/): each part is planned on its own — a request to act only through
 * a playbook whose destructive tool makes that change to that object; a question through the
 * playbooks that fit it, then a model planner over the tools retrieval ranks for it — and the plan
 * is their union (a call two parts share runs once) within max_steps, each step recorded under
 * its part. A part nothing can serve is recorded with the reason in plain words.
 */
export async function planSession(pc: PlanningContext): Promise<PlanResult> {
  const avoid = pc.replan?.avoid ?? [];
  const base = pc.replan ? REPLAN_STEP : PLAN_STEP;
  const reader = readerFor(pc.registry, pc.playbooks, pc.lexicon, pc.root);
  // when the goal was asked, as the ledger recorded it: a replay reads "yesterday evening" the same
  const asked = pc.step.ledger.all.find((e) => e.type === 'user_input');
  const now = asked ? new Date(asked.t) : new Date();
  const understood = reader.understand(pc.goal, now);
  const multi = understood.parts.length > 1;
  const planned: PartPlan[] = [];
  for (const part of understood.parts) {
    planned.push(await planPart(pc, reader, part, multi ? `${base}.${part.index + 1}` : base, multi ? part.text : pc.goal, avoid));
  }
  const calls: PartCall[] = planned.flatMap((p, part) => p.calls.map((c) => ({ ...c, part })));
  const want = planned.map((plan, index) => ({ plan, index })).filter((w) => w.plan.needsModel);
  if (want.length > 0) {
    const served = planned.some((p) => p.calls.length > 0 || p.record.playbooks.length > 0);
    const step = !multi && planned[0]!.record.playbooks.length > 0 && !pc.onlyProvider ? `${base}.model` : multi && served ? `${base}.model` : base;
    const text = want.length === planned.length ? pc.goal : want.map((w) => w.plan.record.text).join('; ');
    const byModel = await planByModel(pc, want, step, text);
    calls.push(...byModel);
    // the model planner failed or proposed nothing: the retrieval planner takes its parts (a replan
    // whose model failed keeps the plan it has: the loop goes on with it)
    for (const w of byModel.length > 0 || pc.onlyProvider || pc.replan ? [] : want) {
      const r = retrievalCalls(scopeOf(pc, reader, avoid), understood.parts[w.index]!, w.plan.record.retrieved);
      if (r.length === 0) continue;
      delete w.plan.record.unchecked;
      w.plan.source = 'retrieval';
      w.plan.record.source = 'retrieval';
      w.plan.record.matched = [...new Set(r.flatMap((c) => c.covers))];
      calls.push(...r.map((c) => ({ name: c.name, arguments: c.arguments, part: w.index })));
    }
  }
  // the window a part names is the window each of its calls reads
  for (const c of calls) c.arguments = withWindow(c.arguments, pc.registry.tools.get(c.name)?.input_schema, understood.parts[c.part]?.entities.window ?? null);
  if (calls.length === 0) {
    const plain = planned.map((p) => p.record.unchecked).filter((x): x is string => !!x);
    return { ok: false, reason: planned.map((p) => p.reason).filter(Boolean).join('; ') || 'no call was planned', plain: plain.join(' ') };
  }
  const first = planned.find((p) => p.provider) ?? planned[0]!;
  const retrieved: RankedTool[] = [];
  for (const p of planned) for (const r of p.record.retrieved) if (!retrieved.some((x) => x.name === r.name)) retrieved.push(r);
  for (const p of planned) if (p.source && p.calls.length + calls.filter((c) => planned[c.part] === p).length > 0) p.record.source = p.source;
  const meta: Omit<PlanCreated, 'steps' | 'provider'> = {
    source: planned.some((p) => p.source === 'model') ? 'model' : planned.some((p) => p.source === 'retrieval') ? 'retrieval' : 'playbook',
    retrieved, playbooks: [...new Set(planned.flatMap((p) => p.record.playbooks))],
    prompt_tokens: planned.reduce((n, p) => n + (p.prompt_tokens ?? 0), 0), tokens_exact: planned.every((p) => p.tokens_exact ?? true),
    level: planned.find((p) => p.level)?.level ?? null,
    ...(pc.replan ? { replan: { after: pc.replan.after, kind: pc.replan.kind, avoid } } : {}),
    parts: planned.map((p) => p.record),
  };
  return toPlan(pc, first.provider ?? (meta.source === 'retrieval' ? RETRIEVAL_PLANNER : null), calls, meta);
}

/** Plan one part of the goal (the whole goal when it has one part). */
async function planPart(pc: PlanningContext, reader: GoalReader, part: GoalPart, step: string, goalText: string, avoid: readonly string[]): Promise<PartPlan> {
  const settings = pc.settings ?? AGENT_DEFAULTS;
  const counter = pc.counter ?? estimator;
  const only = pc.onlyProvider;
  const e = part.entities;
  const entities: SlotEntities = {
    unit: e.unit, path: e.path, since: e.window?.since ?? null, boot: e.window?.boot ?? null, priority: e.priority, sort: e.sort, keep: e.keep, port: e.port,
  };
  const act = part.action ? { act: { verb: part.action.verb, object: part.action.object || null } } : {};
  const ask = part.ask.kind !== 'state' ? { ask: part.ask } : {};
  // a tool to avoid stays retrievable (with other arguments it may be right); the context says to
  // avoid it, and the loop stops a plan that repeats a call that already failed
  const retrieved = part.action ? [] : reader.rank(part, plannableTools(pc.registry), settings.top_k);
  const record: PartPlan['record'] = {
    text: part.text, steps: [], retrieved, playbooks: [], ...(e.window ? { window: e.window.label } : {}),
    ...(part.subject ? { subject: part.subject } : {}), ...ask, ...act,
  };
  const gap = (error: string, plain: string, offers: string[] = []): PartPlan => {
    pc.step.ledger.append({
      type: 'capability_gap', step, provider: null, capability: 'plan@1', schema: 'plan@1', error, attempt: 0,
      rejected: [{ provider: '(retrieval)', filter: 'implements', reason: part.action ? 'no tool makes this change' : 'no tool matches the goal' }],
      plain, ...(offers.length ? { offers } : {}),
    });
    pc.step.ledger.commit();
    pc.missing.set(step, error);
    return { calls: [], record: { ...record, unchecked: plain, ...(offers.length ? { offers } : {}) }, reason: error };
  };
  if (pc.missing.has(step) && !pc.held.has(step) && !pc.held.has(`${step}.model`)) {
    // planned before a crash and given up: the ledger already says why
    const offers = part.action ? reader.offers(part) : [];
    return { calls: [], record: { ...record, unchecked: part.action ? cannotAct(part.action) : cannotCheck(part), ...(offers.length ? { offers } : {}) }, reason: pc.missing.get(step)! };
  }

  // a request to act: only a playbook whose destructive tool makes this change to this object
  let pool: Playbook[];
  if (part.action) {
    const tool = reader.actTool(part);
    if (!tool) return gap(`no tool here can ${part.action.act} "${part.action.head.join(' ') || part.action.object}" (no destructive tool names both)`, cannotAct(part.action, workingRequest(reader, part, pc.playbooks)), reader.offers(part));
    pool = pc.playbooks.filter((p) => p.steps.some((s) => s.tool === tool.name));
    if (pool.length === 0) return gap(`tool ${tool.name} would ${part.action.act} "${part.action.object}", but no playbook runs it`, cannotAct(part.action), reader.offers(part));
  } else {
    pool = pc.playbooks.filter((p) => p.steps.every((s) => pc.registry.tools.get(s.tool)?.effect !== 'destructive'));
  }
  // a question about the world in general is not answered with this machine's figures
  if (!part.action && part.general && !e.unit && !e.path) {
    return gap(`the goal asks about "${part.general}" in general, not about this machine`, cannotAnswerGeneral(part));
  }
  // a question about something no tool looks at is not answered with a neighbouring fact
  // (a file's extension is the path's, not a topic: "how big is backup.tar")
  const ext = e.path && /\.([A-Za-z0-9]+)$/.exec(e.path)?.[1]?.toLowerCase();
  if (!part.action && part.focus && part.focus.unknown.some((w) => w !== ext) && !(part.focus.subject && e.unit)) {
    return gap(`the goal asks about "${part.focus.text}", and no tool, playbook or lexicon entry knows "${part.focus.unknown.join('", "')}"`, cannotCheck(part));
  }
  const unspoken = part.action ? [] : reader.unspoken(part);
  if (unspoken.length > 0) return gap(`the goal asks about "${unspoken.join(' ')}", which no tool or playbook speaks of`, `I could not check "${part.text}": nothing on this machine looks at ${unspoken.join(' ')}.`);
  const unmeasured = part.action ? null : reader.unmeasured(part);
  if (unmeasured) return gap(`the goal asks for ${unmeasured}, and no read-only tool speaks of both`, `I could not check "${part.text}": no tool here ${unmeasured.startsWith('that ') ? 'can tell' : 'measures'} ${unmeasured}.`);
  const uncovered = part.action ? [] : reader.uncovered(part);
  if (uncovered.length > 0 && uncovered.length === part.reading.groups.length && !e.unit && !e.path) {
    return gap(`the goal is about ${uncovered.join(', ')}, which no tool or playbook speaks of`, `I could not check "${part.text}": nothing on this machine looks at ${uncovered.join(' or ')}.`);
  }
  pool = pool.filter((p) => !p.steps.some((s) => avoid.includes(s.tool)));
  const scored = reader.match(part, pool);
  const matches = part.action && scored.length === 0 ? pool.map((p) => ({ id: p.id })) : scored;
  record.playbooks = matches.map((m) => m.id);
  const best = scored[0];
  if (best && best.words.length) record.matched = best.words;
  const reasons: string[] = [];

  // 1. the playbook planner, when a playbook fits
  if (matches.length > 0 && (!only || only.kind === 'code')) {
    const chosen = matches.map((m) => pc.playbooks.find((p) => p.id === m.id)!);
    // what the playbook planner needs of each: its id, slots and steps (intent and prose stay out)
    const text = JSON.stringify({ goal: goalText, entities, playbooks: chosen.map((p) => ({ id: p.id, slots: p.slots, steps: p.steps })), avoid });
    const tools = [...new Set(chosen.flatMap((p) => p.steps.map((s) => s.tool)))].map((n) => pc.registry.tool(n));
    const out = await runPlanner(pc, step, text, 'planner:playbooks', tools, ['code']);
    if (out.ok) {
      // the words that selected the playbook that was filled
      const used = (out.fact.fact as PartPlan['calls']).map((c) => c.name);
      const filled = scored.find((m) => pc.playbooks.find((p) => p.id === m.id)!.steps.every((st) => used.includes(st.tool)));
      if (filled?.words.length) record.matched = filled.words;
      const calls = [...out.fact.fact as PartPlan['calls'], ...selectionCalls(scopeOf(pc, reader, avoid), part, used, retrieved)];
      return { calls, record, source: 'playbook', provider: out.fact.provider, prompt_tokens: counter.count(text), tokens_exact: counter.exact, level: null };
    }
    reasons.push(`playbook planner: ${out.reason}`);
  } else {
    reasons.push(matches.length > 0 ? `a playbook matches, but ${only!.id} is not the playbook planner` : 'no playbook matches the goal');
  }
  if (part.action) return { calls: [], record: { ...record, unchecked: `${cannotAct(part.action)}` }, reason: reasons.join('; ') };
  if (only?.kind === 'code') return { calls: [], record: { ...record, unchecked: cannotCheck(part) }, reason: reasons.join('; ') };

  // 2. a model planner, where one is provisioned, asked once for every part no playbook served (planSession)
  if (retrieved.length > 0 && hasModelPlanner(pc)) return { calls: [], record, needsModel: true, reason: reasons.join('; ') };
  // 3. the retrieval planner: the tools that cover the part's subject, with its entities as arguments
  const calls = only ? [] : retrievalCalls(scopeOf(pc, reader, avoid), part, retrieved);
  if (calls.length > 0) {
    delete record.matched;
    const covers = [...new Set(calls.flatMap((c) => c.covers))];
    return { calls: calls.map((c) => ({ name: c.name, arguments: c.arguments })), record: { ...record, ...(covers.length ? { matched: covers } : {}) }, source: 'retrieval', provider: RETRIEVAL_PLANNER, reason: reasons.join('; ') };
  }
  if (retrieved.length > 0 && only) return { calls: [], record, needsModel: true, reason: reasons.join('; ') };
  const error = `no local provider can plan "${goalText.slice(0, 80)}": ${reasons.join('; ')}, and ${pc.replan ? 'no tool that covers what it asks about is left to run' : "no shipped tool's words or schemas cover what it asks about"}`;
  return gap(error, cannotCheck(part), reader.offers(part));
}

/** What the retrieval planner is handed for this session (a replan's tools to avoid, and the calls already made). */
function scopeOf(pc: PlanningContext, reader: GoalReader, avoid: readonly string[]): RetrievalScope {
  const done = new Set((pc.replan?.done ?? []).map((d) => callKey(d.tool, d.args)));
  return { registry: pc.registry, reader, plannable: plannableTools(pc.registry), avoid, done: (tool, args) => done.has(callKey(tool, args)) };
}

/** Whether a model planner could plan here (a non-code plan@1 provider, or the one `pico plan --provider` names). */
function hasModelPlanner(pc: PlanningContext): boolean {
  if (pc.onlyProvider) return pc.onlyProvider.kind !== 'code';
  return [...pc.registry.providers.values()].some((p) => p.kind !== 'code' && p.implements.includes('plan@1'));
}

/**
 * One model planner call for the parts no playbook served, over the tools retrieval ranked for
 * them: the whole goal when no part was served otherwise (as a goal of one part always is), else
 * those parts' words. A call is recorded under the first of those parts that retrieved its tool.
 */
async function planByModel(pc: PlanningContext, want: { plan: PartPlan; index: number }[], step: string, goalText: string): Promise<PartCall[]> {
  const settings = pc.settings ?? AGENT_DEFAULTS;
  const counter = pc.counter ?? estimator;
  const retrieved: RankedTool[] = [];
  for (const w of want) for (const r of w.plan.record.retrieved) if (!retrieved.some((x) => x.name === r.name)) retrieved.push(r);
  const unchecked = (why: string) => {
    for (const w of want) { w.plan.record.unchecked = cannotCheckText(w.plan.record.text); w.plan.reason = `${w.plan.reason ?? ''}; model planner: ${why}`; }
  };
  const tools = retrieved.map((r) => pc.registry.tool(r.name));
  const avoidance = [...(pc.avoidance ?? []), ...avoidLines(pc.replan)].join('\n');
  const planner = await likelyPlanner(pc);
  const budget = { prompt_tokens: settings.prompt_tokens, reserve_tokens: settings.reserve_tokens, ...(planner?.contextTokens ? { context_tokens: planner.contextTokens } : {}) };
  const instructions = planInstructions(pc.root);
  const fit = fitPrompt({ instructions, goal: `Goal: ${goalText}`, ...(avoidance ? { avoidance } : {}), tools }, budget, planner?.counter ?? counter);
  if (!fit.ok) {
    pc.step.ledger.append({ type: 'breaker_tripped', step, provider: null, capability: 'plan@1', schema: 'plan@1', error: `planner prompt over its token budget: ${fit.message}`, attempt: 0, breaker: 'context_budget' });
    pc.step.ledger.commit();
    pc.missing.set(step, fit.message);
    unchecked(fit.message);
    return [];
  }
  const view = fit.text.slice(instructions.length).trimStart();
  const out = await runPlanner(pc, step, view, 'planner:tools', tools, ['gguf', 'http', 'shell']);
  const first = want[0]!.plan;
  first.prompt_tokens = fit.tokens;
  first.tokens_exact = fit.exact;
  first.level = fit.level;
  if (!out.ok) { unchecked(out.reason); return []; }
  first.source = 'model';
  first.provider = out.fact.provider;
  return (out.fact.fact as PartPlan['calls']).map((c) => {
    const owner = want.find((w) => w.plan.record.retrieved.some((r) => r.name === c.name)) ?? want[0]!;
    owner.plan.source = 'model';
    return { ...c, part: owner.index };
  });
}

/**
 * The model planner the policy will most likely pick, with its own tokenizer (the model loads for
 * it, as it would for the call), so the prompt budget is counted in that model's tokens; null when
 * no model planner is installed (the estimator counts, and the step records the gap).
 */
async function likelyPlanner(pc: PlanningContext): Promise<{ counter: TokenCounter; contextTokens?: number } | null> {
  const sel = select(pc.registry.providers.values(), {
    capability: pc.registry.capability('plan@1'), schemaId: 'plan@1', inputTrust: 'T0', inputBytes: 0,
    remainingMs: Number.MAX_SAFE_INTEGER, measurements: pc.step.measurements, isModel: (p) => pc.step.adapterFor(p).isModel,
  });
  const first = sel.candidates.find((p) => p.kind !== 'code' && (!pc.onlyProvider || p.id === pc.onlyProvider.id));
  const adapter = first ? pc.step.adapterFor(first) : undefined;
  if (!first || !adapter?.tokenizer) return null;
  try {
    const counter = modelCounter(await adapter.tokenizer(first, pc.root));
    return { counter, ...(first.kind === 'gguf' ? { contextTokens: first.context_size } : {}) };
  } catch {
    return null; // the call itself will fail and say why
  }
}

/** One planner step: the recorded context in, a checked list of calls out. */
async function runPlanner(pc: PlanningContext, step: string, text: string, label: string, tools: ToolManifest[], kinds: ('code' | 'gguf' | 'http' | 'shell')[]): Promise<{ ok: true; fact: HeldFact } | { ok: false; reason: string }> {
  const held = pc.held.get(step);
  if (held) return { ok: true, fact: held };
  const gaveUp = pc.missing.get(step);
  if (gaveUp !== undefined) return { ok: false, reason: gaveUp };
  const out = await runStep(pc.step, {
    step, tool: null, args: {}, capability: 'plan@1', schema: 'plan@1', from: null, ...(pc.onlyProvider ? { onlyProvider: pc.onlyProvider.id } : {}),
    input: { text, trust: 'T0', label }, schemaHandle: planSchemaFor(tools), providerKinds: kinds,
    check: (value) => checkCalls(value, pc.registry),
  }, pc.held);
  if (out.ok) pc.held.set(step, out.fact);
  else pc.missing.set(step, out.reason);
  return out.ok ? { ok: true, fact: out.fact } : { ok: false, reason: out.reason };
}

/** Text-free steering for a replan: which step failed and how, which tools to avoid. */
function avoidLines(replan: PlanningContext['replan']): string[] {
  if (!replan) return [];
  const lines = [`Step ${replan.after} failed (${replan.kind}).`];
  if (replan.avoid.length) lines.push(`Avoid: ${replan.avoid.join(', ')}.`);
  if (replan.done.length) lines.push(`Already done: ${replan.done.map((d) => d.tool).join(', ')}.`);
  return lines;
}

/** The planner instructions: the body of prompts/plan.md (what a model planner's system message holds). */
export function planInstructions(root: string): string {
  const path = join(root, 'prompts', 'plan.md');
  if (!existsSync(path)) return PLAN_INSTRUCTIONS;
  const text = readFileSync(path, 'utf8');
  const end = text.indexOf('\n---', 4);
  return text.startsWith('---') && end > 0 ? text.slice(text.indexOf('\n', end + 1) + 1).trim() : text.trim();
}

/** Used when a root has no prompts/plan.md. */
export const PLAN_INSTRUCTIONS = 'Plan the tool calls that answer the goal. Use only the tools listed. Reply with a JSON list: [{"name": TOOL, "arguments": {...}}].';
