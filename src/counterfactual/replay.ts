/**
 * Counterfactual replay (design §6.7): run a finished session's REDUCE steps
 * again, on the tool outputs its blobs hold, under another policy (policy@1),
 * and set beside each step what the original run chose, whether it passed and
 * what it cost. The planning is not redone: the steps are those of the
 * session's last plan, so a goal-only session replays like an operator's one.
 *
 * Each step goes through the real `runStep` (selection, ladder, retries,
 * escalation) with real providers, into a scratch ledger that is removed
 * afterwards; the original session is only read. The floors judge the
 * measurements of the session's own policy snapshot, and each step starts
 * with the budget the original step started with. A model provider whose
 * weights are not on this machine is reported "not available here", not as a
 * failure. A pass is a ladder pass, not correctness — except on schemas with
 * a level-4 check (a cross-check, or extractive spans), which each step names.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderError, type ProviderAdapter } from '../runtime/provider.js';
import { resolveWeightsPath } from '../adapters/gguf-weights.js';
import { BlobStore } from '../ledger/blobs.js';
import type { EventOf, LedgerEvent } from '../ledger/events.js';
import { Ledger, readLedger } from '../ledger/ledger.js';
import { crossChecks } from '../crosschecks/index.js';
import { schemaFeatures } from '../ladder/schemas.js';
import type { ProviderManifest } from '../registry/manifest.js';
import { Budget } from '../runtime/budget.js';
import type { HeldFact } from '../runtime/fold.js';
import { parseJob } from '../runtime/job.js';
import type { PolicyOverride } from '../runtime/policy.js';
import type { Runtime } from '../root/runtime.js';
import { runStep, type StepContext } from '../runtime/step.js';
import { compactForModel } from '../agent/compact.js';

export const NOT_CORRECTNESS = 'a pass means the output passed the validation ladder; it is not correctness, except on steps marked level-4 (a cross-check or extractive spans re-derive the value from the input)';

/** One policy's result for one step. */
export interface StepRun {
  /** the provider that made the fact, or the last one tried; null when none was selected */
  provider: string | null;
  /** true passed, false failed, null: not known here (not run, or the provider is not available here) */
  passed: boolean | null;
  /** ms spent in provider calls of this step (every attempt); null when nothing was called */
  cost_ms: number | null;
  note: string | null;
}

export interface StepComparison {
  step: string;
  capability: string;
  schema: string;
  /** the schema has a level-4 check, so a pass there says the value is supported by the input */
  level4: boolean;
  original: StepRun;
  replayed: StepRun;
}

export interface SessionComparison {
  session: string;
  plan_source: string;
  /** the session was recorded under another composition: the providers replayed are today's */
  composition_differs: boolean;
  steps: StepComparison[];
}

/** Replay one finished session's REDUCE steps under `policy`. */
export async function counterfactualSession(rt: Runtime, sessionId: string, policy: PolicyOverride): Promise<SessionComparison> {
  const dir = rt.sessionDir(sessionId);
  const original = readLedger(dir);
  if (!original.some((e) => e.type === 'answer_sent')) throw new Error(`session ${sessionId} has not finished; counterfactual replay reads finished sessions`);
  const user = original.find((e): e is EventOf<'user_input'> => e.type === 'user_input');
  if (!user) throw new Error(`${dir}: the ledger has no user_input event`);
  const job = parseJob(user.job, `${dir} user_input.job`);
  const plans = original.filter((e): e is EventOf<'plan_created'> => e.type === 'plan_created');
  const plan = plans[plans.length - 1];
  const snapshot = original.find((e): e is EventOf<'policy_snapshot'> => e.type === 'policy_snapshot');
  const comp = original.find((e): e is EventOf<'composition'> => e.type === 'composition');
  const out: SessionComparison = {
    session: sessionId, plan_source: plan?.source ?? 'operator',
    composition_differs: comp?.hash !== rt.currentComposition().hash, steps: [],
  };
  if (!plan) return out;
  const blobs = new BlobStore(join(dir, 'blobs'));
  const scratch = mkdtempSync(join(tmpdir(), `pico-counterfactual-${sessionId}-`));
  const { ledger } = Ledger.open(scratch, sessionId);
  try {
    ledger.append({ type: 'user_input', text: user.text, trust: user.trust, budget_class: user.budget_class, job: user.job });
    const ctx: StepContext = {
      sessionId, root: rt.root, ledger, registry: rt.registry, adapterFor: availableOnly(rt), hooks: [],
      budget: new Budget(job.budget_class), measurements: snapshot?.measurements ?? {},
      runTool: async (tool) => { throw new Error(`counterfactual replay runs no tool (${tool.name}); it reduces recorded outputs`); },
      compact: compactForModel, goal: user.text, history: (p, s) => snapshot?.measurements[p]?.[s]?.pass_rate ?? null, policy,
    };
    const held = new Map<string, HeldFact>();
    for (const s of plan.steps) {
      const stepEvents = original.filter((e) => 'step' in e && e.step === s.step);
      const row: StepComparison = {
        step: s.step, capability: s.capability, schema: s.schema, level4: hasLevel4(rt, s.schema),
        original: runOf(stepEvents), replayed: { provider: null, passed: null, cost_ms: null, note: null },
      };
      out.steps.push(row);
      const started = stepEvents.find((e): e is EventOf<'step_started'> => e.type === 'step_started');
      if (!started) {
        row.replayed.note = 'not run in the original session';
        continue;
      }
      const recorded = stepEvents.find((e): e is EventOf<'tool_output'> => e.type === 'tool_output');
      if (s.tool && !recorded) {
        row.replayed.note = 'the tool gave no output in the original session; there is nothing to reduce';
        continue;
      }
      const from = ledger.all.length;
      // the budget as the original step found it, so the cost filter sees what it saw then
      const outcome = await runStep({ ...ctx, budget: new Budget(job.budget_class, started.spent) }, {
        step: s.step, tool: null, args: {}, capability: s.capability, schema: s.schema,
        from: recorded ? null : s.from,
        ...(recorded ? { input: { text: blobs.read(recorded), trust: started.trust, label: recorded.tool } } : {}),
      }, held);
      if (outcome.ok) held.set(s.step, outcome.fact);
      row.replayed = runOf(ledger.all.slice(from));
    }
    return out;
  } finally {
    ledger.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** What the events of one step say: who served it, whether a fact came, and the ms its provider calls took. */
function runOf(events: readonly LedgerEvent[]): StepRun {
  const calls = events.filter((e): e is EventOf<'provider_called'> => e.type === 'provider_called');
  const fact = events.find((e): e is EventOf<'fact_added'> => e.type === 'fact_added');
  const cost = calls.length ? calls.reduce((a, c) => a + c.duration_ms, 0) : null;
  if (fact) return { provider: fact.provider, passed: true, cost_ms: cost, note: null };
  if (!events.some((e) => e.type === 'step_started')) return { provider: null, passed: null, cost_ms: null, note: 'not run' };
  const unavailable = events.find((e) => 'error' in e && typeof e.error === 'string' && e.error.startsWith(UNAVAILABLE));
  if (unavailable && 'provider' in unavailable && !calls.some((c) => c.outcome === 'ok')) {
    return { provider: unavailable.provider as string | null, passed: null, cost_ms: null, note: 'not available here' };
  }
  const gap = events.find((e) => e.type === 'capability_gap');
  const last = calls[calls.length - 1];
  const failure = [...events].reverse().find((e) => e.type === 'step_failed' || e.type === 'capability_gap');
  return {
    provider: last?.provider ?? null, passed: false, cost_ms: cost,
    note: gap ? 'no provider selected' : failure && 'error' in failure ? String(failure.error).slice(0, 200) : null,
  };
}

const UNAVAILABLE = 'not available here';

/** The root's adapters, except that a local model whose weights file is missing fails as "not available here" without loading. */
function availableOnly(rt: Runtime): (p: ProviderManifest) => ProviderAdapter {
  return (p) => {
    const adapter = rt.adapterFor(p);
    if (p.kind !== 'gguf' || existsSync(resolveWeightsPath(rt.root, p.file))) return adapter;
    // nothing is loaded, so there is nothing to release
    return {
      kind: adapter.kind, isModel: adapter.isModel, identity: (m) => adapter.identity(m),
      invoke: async () => { throw new ProviderError('tool_failed', `${UNAVAILABLE}: the weights ${p.file} are not on this machine`); },
    };
  };
}

/** Whether a schema has a level-4 check: a deterministic cross-check, or extractive spans. */
function hasLevel4(rt: Runtime, schemaId: string): boolean {
  if (crossChecks[schemaId]) return true;
  try {
    return schemaFeatures(rt.registry.schema(schemaId)).hasExtractive;
  } catch {
    return false;
  }
}
