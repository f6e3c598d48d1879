/**
 * From the calls planners proposed to the plan the loop runs: each call
 * checked against the registry, one step per distinct call (a call two parts
 * share runs once and serves both), at most max_steps with each part's first
 * call kept before any part's second, then the answer step; and a call's
 * identity (tool and canonical arguments), which loop detection and a
 * replan's "already done" read too.
 */
import type { EventOf } from '../ledger/events.js';
import type { Registry } from '../registry/registry.js';
import type { JobStep } from '../runtime/job.js';
import { checkStepsAgainstRegistry } from '../runtime/job-check.js';
import { BREAKERS } from '../runtime/settings.js';

export const ANSWER_STEP = 'answer';

/** The plan event as the planner makes it (the ledger adds seq, time and session). */
export type PlanCreated = Omit<EventOf<'plan_created'>, 'seq' | 't' | 'session_id' | 'type'>;

/** What naming the steps needs: the registry, and the step names the session already holds. */
export interface PlanScope { registry: Registry; held: ReadonlyMap<string, unknown>; missing: ReadonlyMap<string, unknown> }

/** One call a planner proposed, and the part of the goal it serves. */
export interface PartCall { name: string; arguments: Record<string, unknown>; part: number }

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

/**
 * The plan the calls make: one step per call (its tool's reducer and fact schema), then the
 * answer. A call proposed twice (by one planner, a small model's loop, or by two parts) runs once
 * and serves every part that asked for it. Within max_steps, each part's first call is kept before
 * any part's second.
 */
export function toPlan(pc: PlanScope, provider: string | null, proposed: readonly PartCall[], meta: Omit<PlanCreated, 'steps' | 'provider'>): { ok: true; created: PlanCreated; steps: JobStep[] } {
  const byKey = new Map<string, PartCall & { parts: number[] }>();
  let repeats = 0;
  for (const c of proposed) {
    const k = callKey(c.name, c.arguments);
    const seen = byKey.get(k);
    if (!seen) byKey.set(k, { ...c, parts: [c.part] });
    else if (seen.parts.includes(c.part)) repeats++;
    else seen.parts.push(c.part);
  }
  let calls = [...byKey.values()];
  const room = BREAKERS.max_steps - 1;
  if (calls.length > room) {
    const rank = (c: (typeof calls)[number]) => calls.filter((o) => o.part === c.part).indexOf(c);
    const keep = new Set([...calls].sort((a, b) => rank(a) - rank(b) || calls.indexOf(a) - calls.indexOf(b)).slice(0, room));
    calls = calls.filter((c) => keep.has(c));
  }
  const taken = new Set<string>([...pc.held.keys(), ...pc.missing.keys(), ANSWER_STEP]);
  const steps: JobStep[] = [];
  const parts = meta.parts?.map((p) => ({ ...p, steps: [] as string[] }));
  for (const c of calls) {
    const tool = pc.registry.tool(c.name);
    let name = c.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 36);
    for (let n = 2; taken.has(name); n++) name = `${c.name.slice(0, 33)}_${n}`;
    taken.add(name);
    steps.push({ step: name, tool: tool.name, args: c.arguments, capability: tool.reducer, schema: tool.fact_schema! });
    for (const p of c.parts) parts?.[p]?.steps.push(name);
  }
  const created: PlanCreated = { ...meta, ...(parts ? { parts } : {}), provider, steps: [], ...(repeats > 0 ? { repeats_dropped: repeats } : {}) };
  return { ok: true, created, steps };
}

/**
 * A replan's parts keep their history: each part of the new plan holds the steps the same part of
 * the plan it replaces already ran (those kept) before its new ones, and the playbooks that served
 * it. The last plan_created is the one its readers take (follow-ups find a part's playbook there,
 * coverage a part's steps), so a replan that recorded only its fresh steps would lose both.
 */
export function carryParts(before: PlanCreated['parts'], after: PlanCreated['parts'], kept: ReadonlySet<string>): PlanCreated['parts'] {
  if (!before?.length || !after?.length) return after;
  return after.map((p, i) => {
    const was = before.find((b) => b.text === p.text) ?? (before.length === after.length ? before[i] : undefined);
    if (!was) return p;
    return {
      ...p, steps: [...was.steps.filter((s) => kept.has(s)), ...p.steps.filter((s) => !was.steps.includes(s))],
      playbooks: [...new Set([...was.playbooks, ...p.playbooks])], ...(was.source ? { source: was.source } : {}),
    };
  });
}
