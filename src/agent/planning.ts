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
 *      whose prompt the runtime fits to its token budget (full → brief →
 *      title disclosure, or a named refusal) and whose output schema — so
 *      also its grammar — holds only those tools' calls;
 *   3. no playbook and no model planner: a `capability_gap` naming plan@1,
 *      and the job is declined.
 *
 * The proposed calls become steps (each tool's reducer and fact_schema) plus
 * an answer step; a call the registry cannot run is a validation failure of
 * the planner, fed back on a retry. This module decides nothing after the
 * plan: the loop runs it, and asks for one replan after a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventOf } from '../ledger/events.js';
import type { Registry } from '../registry/registry.js';
import type { ToolManifest } from '../registry/manifest.js';
import type { HeldFact } from '../runtime/fold.js';
import type { JobStep } from '../runtime/job.js';
import { runStep, type StepContext } from '../runtime/step.js';
import { checkStepsAgainstRegistry } from '../runtime/job-check.js';
import { select } from '../runtime/policy.js';
import { estimator, fitPrompt, modelCounter, rankTools, type RankedTool, type TokenCounter } from './index.js';
import { AGENT_DEFAULTS } from './settings.js';
import { planSchemaFor } from './plan-schema.js';
import { matchPlaybooks, type Playbook } from './playbooks.js';

export type PlanCreated = Omit<EventOf<'plan_created'>, 'seq' | 't' | 'session_id' | 'type'>;

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
  /** a replan: the step that failed, its failure kind, the tools to avoid, the calls already made */
  replan?: { after: string; kind: string; avoid: string[]; done: { tool: string; args: Record<string, unknown> }[] };
}

export type PlanResult =
  | { ok: true; created: PlanCreated; steps: JobStep[] }
  | { ok: false; reason: string };

export const PLAN_STEP = '@plan';
export const REPLAN_STEP = '@replan';
export const ANSWER_STEP = 'answer';

/** The tools a plan may use: those that say what their output reduces to, and are not destructive. */
export function plannableTools(registry: Registry): ToolManifest[] {
  return [...registry.tools.values()].filter((t) => t.fact_schema !== undefined && t.effect === 'read_only').sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The tools retrieval puts before a model planner for this goal (top-k, best first; never an avoided one). */
export function retrieve(goal: string, registry: Registry, k: number, avoid: readonly string[] = []): RankedTool[] {
  const catalog = plannableTools(registry).filter((t) => !avoid.includes(t.name));
  return catalog.length ? rankTools(goal, catalog, k) : [];
}

/** Make the session's plan; records every planner call and failure in the ledger through runStep. */
export async function planSession(pc: PlanningContext): Promise<PlanResult> {
  const settings = pc.settings ?? AGENT_DEFAULTS;
  const counter = pc.counter ?? estimator;
  const avoid = pc.replan?.avoid ?? [];
  const base = pc.replan ? REPLAN_STEP : PLAN_STEP;
  // a tool to avoid stays retrievable (with other arguments it may be right); the context says to
  // avoid it, and the loop stops a plan that repeats a call that already failed
  const retrieved = retrieve(pc.goal, pc.registry, settings.top_k);
  const matches = matchPlaybooks(pc.goal, pc.playbooks).filter((m) => !pc.playbooks.find((p) => p.id === m.id)!.steps.some((s) => avoid.includes(s.tool)));
  const common = { retrieved, playbooks: matches.map((m) => m.id), ...(pc.replan ? { replan: { after: pc.replan.after, kind: pc.replan.kind, avoid } } : {}) };
  const reasons: string[] = [];

  const only = pc.onlyProvider;
  // 1. the playbook planner, when a playbook matches
  if (matches.length > 0 && (!only || only.kind === 'code')) {
    const chosen = matches.map((m) => pc.playbooks.find((p) => p.id === m.id)!);
    // what the playbook planner needs of each: its id, slots and steps (intent and prose stay out)
    const text = JSON.stringify({ goal: pc.goal, playbooks: chosen.map((p) => ({ id: p.id, slots: p.slots, steps: p.steps })), avoid });
    const tools = [...new Set(chosen.flatMap((p) => p.steps.map((s) => s.tool)))].map((n) => pc.registry.tool(n));
    const out = await runPlanner(pc, `${base}`, text, 'planner:playbooks', tools, ['code']);
    if (out.ok) return toPlan(pc, out.fact, { ...common, source: 'playbook', prompt_tokens: counter.count(text), tokens_exact: counter.exact, level: null });
    reasons.push(`playbook planner: ${out.reason}`);
  } else {
    reasons.push(matches.length > 0 ? `a playbook matches, but ${only!.id} is not the playbook planner` : 'no playbook matches the goal');
  }
  if (only?.kind === 'code') return { ok: false, reason: reasons.join('; ') };

  // 2. a model planner over the retrieved tools
  const step = matches.length > 0 && !only ? `${base}.model` : base;
  if (retrieved.length === 0) {
    const error = `no local provider can plan "${pc.goal.slice(0, 80)}": ${reasons.join('; ')}, and no shipped tool's name, description or "when" line shares a word with it`;
    pc.step.ledger.append({
      type: 'capability_gap', step, provider: null, capability: 'plan@1', schema: 'plan@1', error, attempt: 0,
      rejected: [{ provider: '(retrieval)', filter: 'implements', reason: 'no tool matches the goal' }],
    });
    pc.step.ledger.commit();
    pc.missing.set(step, error);
    return { ok: false, reason: error };
  }
  const tools = retrieved.map((r) => pc.registry.tool(r.name));
  const avoidance = [...(pc.avoidance ?? []), ...avoidLines(pc.replan)].join('\n');
  const planner = await likelyPlanner(pc);
  const budget = { prompt_tokens: settings.prompt_tokens, reserve_tokens: settings.reserve_tokens, ...(planner?.contextTokens ? { context_tokens: planner.contextTokens } : {}) };
  const instructions = planInstructions(pc.root);
  const fit = fitPrompt({ instructions, goal: `Goal: ${pc.goal}`, ...(avoidance ? { avoidance } : {}), tools }, budget, planner?.counter ?? counter);
  if (!fit.ok) {
    pc.step.ledger.append({ type: 'breaker_tripped', step, provider: null, capability: 'plan@1', schema: 'plan@1', error: `planner prompt over its token budget: ${fit.message}`, attempt: 0, breaker: 'context_budget' });
    pc.step.ledger.commit();
    pc.missing.set(step, fit.message);
    return { ok: false, reason: fit.message };
  }
  const view = fit.text.slice(instructions.length).trimStart();
  const out = await runPlanner(pc, step, view, 'planner:tools', tools, ['gguf', 'http', 'shell']);
  if (out.ok) return toPlan(pc, out.fact, { ...common, source: 'model', prompt_tokens: fit.tokens, tokens_exact: fit.exact, level: fit.level });
  return { ok: false, reason: `${reasons.join('; ')}; model planner: ${out.reason}` };
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

/** The deterministic check of a proposed plan: every call runnable here (a repeated call is dropped later, not refused). */
export function checkCalls(value: unknown, registry: Registry): string | null {
  if (!Array.isArray(value)) return 'a plan is a JSON list of tool calls';
  for (const [i, c] of value.entries()) {
    const name = (c as { name?: unknown }).name;
    const tool = typeof name === 'string' ? registry.tools.get(name) : undefined;
    if (!tool) return `call ${i + 1}: unknown tool ${JSON.stringify(name)}`;
    if (!tool.fact_schema) return `call ${i + 1}: tool ${tool.name} names no fact_schema, so its output cannot be reduced`;
    // the step this call becomes must name what the registry knows, as an operator's step must
    const [problem] = checkStepsAgainstRegistry([{ step: `call ${i + 1}`, tool: tool.name, capability: tool.reducer, schema: tool.fact_schema }], registry);
    if (problem) return problem.problem;
    if (!registry.capability(tool.reducer).schemas.includes(tool.fact_schema)) return `call ${i + 1}: ${tool.reducer} does not produce ${tool.fact_schema}`;
  }
  return null;
}

/** A call's identity for loop detection: the tool and its canonical arguments. */
export function callKey(tool: string, args: Record<string, unknown>): string {
  return `${tool}(${JSON.stringify(Object.keys(args).sort().map((k) => [k, args[k]]))})`;
}

/** The plan the fact holds: one step per call (its tool's reducer and fact schema), then the answer. */
function toPlan(pc: PlanningContext, fact: HeldFact, meta: Omit<PlanCreated, 'steps' | 'provider'>): PlanResult {
  const proposed = fact.fact as { name: string; arguments: Record<string, unknown> }[];
  // the same call twice in one plan would only repeat itself (a small model's loop): keep the first
  const calls = proposed.filter((c, i) => proposed.findIndex((o) => callKey(o.name, o.arguments) === callKey(c.name, c.arguments)) === i);
  const taken = new Set<string>([...pc.held.keys(), ...pc.missing.keys(), ANSWER_STEP]);
  const steps: JobStep[] = [];
  for (const c of calls) {
    const tool = pc.registry.tool(c.name);
    let name = c.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 36);
    for (let n = 2; taken.has(name); n++) name = `${c.name.slice(0, 33)}_${n}`;
    taken.add(name);
    steps.push({ step: name, tool: tool.name, args: c.arguments, capability: tool.reducer, schema: tool.fact_schema! });
  }
  const created: PlanCreated = { ...meta, provider: fact.provider, steps: [], ...(calls.length < proposed.length ? { repeats_dropped: proposed.length - calls.length } : {}) };
  return { ok: true, created, steps };
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
