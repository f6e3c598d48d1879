/**
 * The serial loop of one session (design §4): budget check → next step →
 * run → commit, until the plan is done or a budget or breaker stops it; then
 * the answer, with what is held and what is missing named.
 *
 * A session folder holds `job.json`; the ledger is the state. Opening an
 * existing ledger resumes: committed steps are skipped, the step that was in
 * flight is re-run, and a session that already answered is only re-closed
 * (result.json rewritten). If the composition changed since the session
 * began, resuming would mix two configurations in one ledger, so the session
 * is closed instead, with an explicit outcome naming why. A destructive step
 * without a person's decision stops the loop with outcome `waiting` (no
 * answer, no result.json); the next run resumes there with the decision
 * (src/approval/ owns the decisions; this loop only stops and resumes).
 */
import type { Logger } from 'pino';
import type { Clock } from '../ledger/clock.js';
import { writeComposition, COMPOSITION_FILE, COMPOSITIONS_DIR } from '../ledger/composition.js';
import { join } from 'node:path';
import type { AnswerSentence, EventOf, Measurement } from '../ledger/events.js';
import { Ledger } from '../ledger/ledger.js';
import type { Registry } from '../registry/registry.js';
import type { ProviderAdapter } from './provider.js';
import type { ProviderManifest } from '../registry/manifest.js';
import { weakest } from '../base/trust.js';
import { Budget } from './budget.js';
import { foldSession, stepDone, type HeldFact, type SessionState } from './fold.js';
import type { Hook } from './hooks.js';
import type { Job } from './job.js';
import { RESULT_FILE, resultFromEvents, writeResult, type SessionResultDoc } from './result.js';
import { BREAKERS } from './settings.js';
import { runStep, type ApprovalDecider, type Compactor, type DirectInput, type StepContext, type ToolRunner } from './step.js';
import { planSteps, type CacheHit, type Planner, type PlanStepEv } from './planner.js';

export type Measure = (providers: string[], schemas: string[]) => Record<string, Record<string, Measurement>>;

export interface LoopDeps {
  root: string;
  sessionId: string;
  sessionDir: string;
  job: Job;
  registry: Registry;
  adapterFor: (p: ProviderManifest) => ProviderAdapter;
  hooks: readonly Hook[];
  /** the composition document as written beside the ledger, and its hash */
  compositionText: string;
  compositionHash: string;
  machine: string;
  measure: Measure;
  runTool: ToolRunner;
  /** how a tool output too long for a model is cut for it (the agent's compaction, handed in by src/root/) */
  compact: Compactor;
  clock: Clock;
  signal: AbortSignal;
  log: Logger;
  onEvent?: (e: import('../ledger/events.js').LedgerEvent) => void;
  /** inputs given directly per step (pico call), instead of a tool */
  inputs?: Record<string, DirectInput>;
  /** serve every step with this provider only (pico call --provider) */
  onlyProvider?: string;
  /** leave result.json to the caller, who gets the document in LoopResult.result (the daemon writes it), and the answer's fdatasync, which it does first */
  deferResult?: boolean;
  /**
   * close the session instead of running it: every step not yet done is written as failed,
   * "not run: <this reason>", and the answer is sent from the facts held (the daemon closes a
   * session this way when the worker keeps dying on it)
   */
  closeReason?: string;
  /** the close is an operator's cancel (pico cancel): the answer goes out as `cancelled`, with the facts held */
  cancelled?: boolean;
  /** how a goal-only job gets its plan (the agent's planner, handed in by src/root/ with the playbooks it loaded) */
  planner: Planner;
  /** plan, record plan_created, and stop before the first step (pico plan: a dry run) */
  planOnly?: boolean;
  /** what memory tells a planner about this goal (read once, recorded in the policy snapshot) */
  plannerMemory?: (goal: string) => { avoidance: string[]; known: string[] };
  /** the trajectory cache's entry for this goal (read once, recorded in the policy snapshot) */
  planCache?: (goal: string) => CacheHit | null;
  /** a person's decisions on destructive steps (the daemon's); absent, such a step is denied */
  approval?: ApprovalDecider;
}


export interface LoopResult {
  sessionId: string;
  /** waiting: a destructive step waits for a person; no answer and no result.json yet */
  outcome: 'answered' | 'partial' | 'declined' | 'cancelled' | 'interrupted' | 'waiting';
  answer: string | null;
  resultPath: string | null;
  /** the step that waits for approval (outcome waiting) */
  waitingStep?: string;
  /** the result document, when the caller writes result.json itself (deferResult) */
  result?: SessionResultDoc;
}

/** Run (or resume) one session to its answer, or until the signal asks it to stop. */
export async function runLoop(deps: LoopDeps): Promise<LoopResult> {
  const { ledger, torn, damaged } = Ledger.open(deps.sessionDir, deps.sessionId, deps.clock);
  let d = deps;
  if (d.onEvent) ledger.onAppend = d.onEvent;
  try {
    if (torn) d.log.warn({ session: d.sessionId, torn }, 'torn last ledger line set aside; resuming from the last complete event');
    if (damaged) {
      // damage is not what a crash leaves: the session is closed on its intact prefix, never resumed
      const reason = `the ledger was damaged at line ${damaged.line} (${damaged.problem}); its first ${ledger.all.length} events were kept and the rest (${damaged.bytes} bytes) set aside as ${damaged.savedAs}`;
      d.log.error({ session: d.sessionId, damaged }, `session ${d.sessionId} is closed: ${reason}`);
      d = { ...d, closeReason: d.closeReason ?? reason };
    }
    let state = foldSession(ledger.all);
    if (!state.answered) {
      if (ledger.all.length === 0 || state.compositionHash === null) writePreamble(d, ledger, state);
      else if (state.compositionHash !== d.compositionHash) closeChangedComposition(d, ledger, state);
      else {
        completePreamble(d, ledger, state);
        ledger.append({ type: 'resumed', after_seq: state.lastSeq, reason: 'the session had no answer when the runtime (re)started; committed steps are kept, the step in flight is re-run' });
        ledger.commit();
        d.log.info({ session: d.sessionId, after_seq: state.lastSeq }, 'session resumed');
      }
      state = foldSession(ledger.all);
    }
    if (!state.answered) {
      const run = await runSteps(d, ledger, state);
      if (run.interrupted) return { sessionId: d.sessionId, outcome: 'interrupted', answer: null, resultPath: null };
      if (run.waiting) {
        d.log.info({ session: d.sessionId, step: run.waiting }, 'session waits for approval');
        return { sessionId: d.sessionId, outcome: 'waiting', answer: null, resultPath: null, waitingStep: run.waiting };
      }
      sendAnswer(d, ledger, foldSession(ledger.all), run.budget, run.plan);
    }
    ledger.close({ commit: !d.deferResult });
    const doc = resultFromEvents(d.sessionId, ledger.all);
    if (d.deferResult) return { sessionId: d.sessionId, outcome: doc.outcome, answer: doc.answer, resultPath: join(d.sessionDir, RESULT_FILE), result: doc };
    const resultPath = writeResult(d.sessionDir, doc);
    return { sessionId: d.sessionId, outcome: doc.outcome, answer: doc.answer, resultPath };
  } finally {
    ledger.close();
  }
}

/** Events 0..3: composition, the operator's input, the policy snapshot, the plan. */
function writePreamble(d: LoopDeps, ledger: Ledger, state: SessionState): void {
  if (ledger.all.length === 0) {
    writeComposition(d.sessionDir, d.compositionText, d.compositionHash, join(d.root, 'sessions', COMPOSITIONS_DIR));
    ledger.append({ type: 'composition', hash: d.compositionHash, machine: d.clock.measured(0, 'machine', d.machine), config: COMPOSITION_FILE });
  }
  completePreamble(d, ledger, state);
}

function completePreamble(d: LoopDeps, ledger: Ledger, state: SessionState): void {
  const job = d.job;
  if (!state.userInput) {
    ledger.append({ type: 'user_input', text: job.goal, trust: 'T0', budget_class: job.budget_class, job: job as unknown as Record<string, unknown> });
  }
  if (!state.measurements) {
    // Only the pairs the plan can use: providers of a step's capability that may produce its schema
    // (for a goal-only job: the planners and every plannable tool's reducer and schema).
    const pairs = job.plan
      ? job.plan.map((s) => ({ capability: s.capability, schema: s.schema }))
      : [{ capability: 'plan@1', schema: 'plan@1' }, { capability: 'answer@1', schema: 'answer@1' }, ...d.planner.plannableTools(d.registry).map((t) => ({ capability: t.reducer, schema: t.fact_schema! }))];
    const measurements: Record<string, Record<string, Measurement>> = {};
    for (const schema of [...new Set(pairs.map((s) => s.schema))].sort()) {
      const caps = new Set(pairs.filter((s) => s.schema === schema).map((s) => s.capability));
      const providers = [...d.registry.providers.values()]
        .filter((p) => p.implements.some((c) => caps.has(c)) && (!p.schemas || p.schemas.includes(schema)))
        .map((p) => p.id).sort();
      if (providers.length === 0) continue;
      const live = d.measure(providers, [schema]);
      for (const p of providers) {
        (measurements[p] ??= {})[schema] = live[p]?.[schema] ?? { pass_rate: null, n: 0, p50_ms: null, p90_ms: null, source: 'none' };
      }
    }
    const seq = ledger.nextSeq;
    const memory = job.plan ? undefined : d.clock.measured(seq, 'planner_memory', d.plannerMemory?.(job.goal) ?? { avoidance: [], known: [] });
    // a replay answers with the recorded snapshot; one written before the cache existed has no entry (null), never a live read
    const replaying = d.clock.measured<unknown>(seq, 'measurements', undefined) !== undefined;
    const cache = job.plan || !d.planCache ? undefined : replaying ? d.clock.measured(seq, 'plan_cache', null) : d.planCache(job.goal);
    ledger.append({
      type: 'policy_snapshot', measurements: d.clock.measured(seq, 'measurements', measurements), source: 'memory/episodic.db',
      ...(memory ? { planner_memory: memory } : {}), ...(cache !== undefined ? { plan_cache: cache } : {}),
    });
  }
  if (!state.planned && job.plan) {
    ledger.append({ type: 'plan_created', steps: planSteps(job.plan), source: 'operator', provider: null });
  }
  // No fdatasync of its own: the first committed fact makes these durable too. A crash before it
  // leaves only the claimed job.json, and the session starts again from scratch.
}

/** Resuming under another composition is impossible: close with an explicit outcome. */
function closeChangedComposition(d: LoopDeps, ledger: Ledger, state: SessionState): void {
  const reason = `the composition changed since this session started (${state.compositionHash} -> ${d.compositionHash}): manifests, schemas, prompts or code differ, so it cannot be resumed; resubmit the job`;
  for (const s of state.plan ?? (d.job.plan ? planSteps(d.job.plan) : [])) {
    if (!stepDone(state, s.step)) {
      ledger.append({ type: 'step_failed', step: s.step, provider: null, capability: s.capability, schema: s.schema, error: reason, attempt: 0 });
    }
  }
  ledger.commit();
  d.log.warn({ session: d.sessionId }, reason);
}

/** Run every step not yet done (planning first, for a goal-only job); says whether the signal interrupted it. */
async function runSteps(d: LoopDeps, ledger: Ledger, state: SessionState): Promise<{ interrupted: boolean; waiting?: string; budget: Budget; plan: PlanStepEv[] }> {
  const budget = new Budget(d.job.budget_class, state.spent);
  const held = new Map<string, HeldFact>(state.facts);
  const missing = new Map(state.missing);
  let stopped = state.stopped ?? d.closeReason ?? null;
  let started = 0;
  const ctx: StepContext = {
    sessionId: d.sessionId, root: d.root, ledger, registry: d.registry, adapterFor: d.adapterFor, hooks: d.hooks,
    budget, measurements: state.measurements ?? {}, runTool: d.runTool, compact: d.compact, goal: d.job.goal,
    history: (p, s) => state.measurements?.[p]?.[s]?.pass_rate ?? null,
    ...(d.approval ? { approval: d.approval } : {}),
  };
  // PLAN OR RUN: an operator's plan runs as written; a goal-only job is planned first.
  let plan: PlanStepEv[] = state.plan ?? [];
  let source = state.planSource;
  let replanned = state.replanned;
  if (!state.planned && stopped) {
    // a goal-only session closed before it was planned: planning is what did not run
    if (!missing.has('@plan')) {
      ledger.append({ type: 'step_failed', step: '@plan', provider: null, capability: 'plan@1', schema: 'plan@1', error: `not run: ${stopped}`, attempt: 0, ...(d.cancelled ? { cancelled: true as const } : {}) });
      ledger.commit();
    }
    return { interrupted: false, budget, plan };
  }
  if (!state.planned) {
    if (d.signal.aborted) return { interrupted: true, budget, plan };
    // TRY THE CACHE FIRST: a plan that answered this goal with these tools, no planner called
    const hit = d.onlyProvider ? null : d.planner.cacheHit(ledger);
    const reused = hit ? d.planner.reuse(hit, d.registry) : null;
    if (hit && reused) {
      plan = reused;
      source = 'cache';
      ledger.append({ type: 'plan_created', steps: plan, source: 'cache', provider: null, cache: { entry: hit.entry, key: hit.key } });
      ledger.commit();
    } else {
      const fresh = await d.planner.fresh(d, ctx, ledger, held, missing);
      if (!fresh) return { interrupted: !!d.planOnly, budget, plan };
      ({ plan, source } = fresh);
    }
  } else if (source === 'cache' && d.planner.droppedUnplanned(ledger)) {
    const fresh = await d.planner.fresh(d, ctx, ledger, held, missing);
    if (fresh) ({ plan, source } = fresh);
  }
  if (d.planOnly) return { interrupted: true, budget, plan };
  // a run that stopped between a failed step and its replan (a crash) replans on resume
  const failedAt = plan.findIndex((p) => p.tool !== null && missing.has(p.step) && !state.followups.has(p.step));
  if (failedAt >= 0 && source !== 'operator' && !replanned && !stopped && !d.signal.aborted) {
    replanned = true;
    const r = await d.planner.replan(d, ctx, ledger, plan, failedAt, held, missing);
    if (r.loop) stopped = r.loop;
    else if (r.plan) plan = r.plan;
  }
  for (let i = 0; i < plan.length; i++) {
    const s = plan[i]!;
    if (held.has(s.step) || missing.has(s.step)) continue;
    if (d.signal.aborted) return { interrupted: true, budget, plan };
    // LOOK FURTHER: before the answer step, the planner adds (and records) the reads the facts call for, a round at a time
    const further = i === plan.length - 1 && s.tool === null && !stopped && source !== 'operator' ? await d.planner.followups?.(d, ctx, ledger, plan, held, missing) : null;
    if (further) { plan = further; i--; continue; }
    const fail = (type: 'budget_exhausted' | 'breaker_tripped', error: string, extra: Record<string, unknown>) => {
      ledger.append({ type, step: s.step, provider: null, capability: s.capability, schema: s.schema, error, attempt: 0, ...extra } as Parameters<Ledger['append']>[0]);
      ledger.commit();
      missing.set(s.step, error);
    };
    if (stopped) {
      missing.set(s.step, stopped);
      ledger.append({ type: 'step_failed', step: s.step, provider: null, capability: s.capability, schema: s.schema, error: `not run: ${stopped}`, attempt: 0, ...(d.cancelled ? { cancelled: true as const } : {}) });
      ledger.commit();
      continue;
    }
    const spent = d.clock.measured(ledger.nextSeq, 'spent', budget.spent());
    const over = Budget.over(spent, budget.limits);
    if (over) {
      stopped = `80% of the ${d.job.budget_class} budget's ${over} is spent (${spent[over as keyof typeof spent]} of ${budget.limits[over as keyof typeof budget.limits]})`;
      fail('budget_exhausted', stopped, { spent, limit: over });
      continue;
    }
    if (started >= BREAKERS.max_steps) {
      stopped = `max_steps breaker: ${BREAKERS.max_steps} steps ran in this session`;
      fail('breaker_tripped', stopped, { breaker: 'max_steps' });
      continue;
    }
    // COVERAGE, DECIDED ONCE (seam §2), recorded before the answer reads it
    if (!s.tool && s.schema === 'answer@1' && !d.job.plan) d.planner.cover?.(ledger, plan, d.registry);
    started++;
    d.log.debug({ session: d.sessionId, step: s.step, capability: s.capability, schema: s.schema }, 'step started');
    const t0 = performance.now();
    const input = d.inputs?.[s.step];
    const next = plan[i + 1];
    const out = await runStep(ctx, {
      step: s.step, tool: s.tool, args: s.args, capability: s.capability, schema: s.schema, from: input || s.tool ? null : s.from,
      ...(input ? { input } : {}), ...(d.onlyProvider ? { onlyProvider: d.onlyProvider } : {}),
      // a crash before the shared commit re-runs this step and the one after it; what comes next
      // only reduces held facts or reads the world again (a read-only, idempotent tool), so
      // nothing outside the session saw either: nothing is lost and nothing is done twice
      shareCommit: !next || !next.tool || readsOnly(d.registry, next.tool),
    }, held);
    // STOP HERE, WAITING: a destructive step with no decision yet; it resumes from the ledger
    if (!out.ok && out.waiting) return { interrupted: false, waiting: s.step, budget, plan };
    if (out.ok) held.set(s.step, out.fact);
    else missing.set(s.step, out.reason);
    d.log.debug({ session: d.sessionId, step: s.step, ok: out.ok, duration_ms: Math.round(performance.now() - t0) }, out.ok ? 'step committed' : 'step gave up');
    // A CACHED PLAN'S FIRST STEP GAVE UP: drop the entry and plan afresh (the failed step leaves the plan)
    if (!out.ok && i === 0 && source === 'cache' && !stopped && !d.signal.aborted) {
      const hit = d.planner.cacheHit(ledger);
      ledger.append({ type: 'cache_dropped', entry: hit?.entry ?? '', key: hit?.key ?? '', step: s.step, reason: out.reason.slice(0, 500) });
      ledger.commit();
      const fresh = await d.planner.fresh(d, ctx, ledger, held, missing);
      if (fresh) {
        ({ plan, source } = fresh);
        i = -1;
      }
      continue;
    }
    // REPLAN ONCE: a planned tool step that failed past its retries and escalation
    // (a person's denial is not a failure to plan around: the plan goes on without the step)
    const denied = !out.ok && !!s.tool && d.registry.tools.get(s.tool)?.effect === 'destructive';
    if (!out.ok && s.tool && !denied && source !== 'operator' && !replanned && !stopped && !d.signal.aborted) {
      replanned = true;
      const r = await d.planner.replan(d, ctx, ledger, plan, i, held, missing);
      if (r.loop) stopped = r.loop;
      else if (r.plan) plan = r.plan;
    }
  }
  return { interrupted: false, budget, plan };
}

/** A tool that changes nothing and reads the same when run again: running it twice after a crash is invisible. */
function readsOnly(registry: Registry, tool: string): boolean {
  const t = registry.tools.get(tool);
  return t !== undefined && t.effect === 'read_only' && t.idempotent;
}

/** The answer: the last answer@1 fact's text, or a plain listing; outcome by what is missing. */
function sendAnswer(d: LoopDeps, ledger: Ledger, state: SessionState, budget: Budget, plan: readonly PlanStepEv[]): void {
  // a session that has no plan (planning failed) names what planning said instead
  const planning = plan.length === 0 ? [...state.missing].filter(([step]) => step.startsWith('@')).map(([step, why]) => `${step} (plan@1): ${why}`) : [];
  // a follow-up looks further: what it could not read is said in the answer, and never makes the outcome worse
  const missing = [...plan.filter((s) => !state.facts.has(s.step) && !state.followups.has(s.step)).map((s) => `${s.step} (${s.schema}): ${state.missing.get(s.step) ?? 'not run'}`), ...planning];
  const last = plan[plan.length - 1];
  const answerFact = last ? state.facts.get(last.step) : undefined;
  const dataFacts = plan.filter((s) => s.step !== last?.step && state.facts.has(s.step));
  const held = [...state.facts.values()].filter((f) => plan.some((s) => s.step === f.step));
  const coverage = ledger.all.some((e) => e.type === 'coverage'); // seam §2: the renderer said every part from it
  let text: string, said: AnswerSentence[];
  let outcome: EventOf<'answer_sent'>['outcome'];
  if (answerFact && last?.schema === 'answer@1' && typeof (answerFact.fact as { text?: unknown }).text === 'string') {
    text = (answerFact.fact as { text: string }).text; // a writer naming no sentences (a model) made it from every fact it read
    said = [...(answerFact.fact as { sentences?: AnswerSentence[] }).sentences ?? [{ text, from: dataFacts.map((s) => ({ step: s.step, seq: state.facts.get(s.step)!.seq })) }]];
  } else {
    said = held.map((f) => ({ text: `${f.step} (${f.schema}, ${f.trust}): ${JSON.stringify(f.fact)}`, from: [{ step: f.step, seq: f.seq }] }));
    text = said.map((x) => x.text).join('\n');
  }
  const add = (fixed: string, line: string): string => { said.push({ text: line, from: [], fixed }); return line; };
  // a goal-only job's words come from its planner: plain, per part of the goal (jargon stays in the ledger)
  const words = d.job.plan || !d.planner.explain ? null : d.planner.explain(ledger, new Set(state.facts.keys()), plan.length > 0, d.registry);
  // a fact from a tool run that did part of the work (a declared partial exit code) answers in part, and says so (coverage says it itself)
  const cut = !coverage && plan.some((s) => { const o = ledger.all.findLast((e) => e.type === 'tool_output' && e.step === s.step); return !state.followups.has(s.step) && state.facts.has(s.step) && o?.type === 'tool_output' && !!o.exit_code; });
  const cutNote = cut ? ['This answer is partial: a check could not read everything it was asked to, so it covers only what it could read.'] : [];
  // with coverage, every part answered is an answer, whatever check beside them read nothing
  if ((missing.length === 0 || (coverage && answerFact && !words?.unanswered)) && plan.length > 0) outcome = words?.unanswered || cut ? 'partial' : 'answered';
  else if (d.cancelled) outcome = 'cancelled';
  else if (held.length > 0 && (dataFacts.length > 0 || plan.length === 1)) outcome = 'partial';
  else outcome = 'declined';
  if (outcome === 'declined') {
    const reason = `nothing could be established: ${missing.join('; ')}`;
    ledger.append({ type: 'declined', reason, missing });
    if (!(coverage && answerFact && text)) { said.length = 0; text = add('declined', words?.decline ?? (words?.notes.length ? words.notes.join('\n') : `I cannot answer "${d.job.goal}" with what runs on this machine. ${missing.join('. ')}.`)); }
  } else if (words && outcome !== 'cancelled') {
    text = [text, ...words.notes.map((n) => add('explain', n)), ...cutNote.map((n) => add('partial-read', n))].filter((t) => t.length > 0).join('\n');
  } else if (outcome === 'partial') {
    text = [text, ...cutNote.map((n) => add('partial-read', n)), ...(missing.length ? [add('missing', `(partial answer — missing: ${missing.join('; ')})`)] : [])].join('\n');
  } else if (outcome === 'cancelled') {
    text = `${text ? `${text}\n` : ''}${add('cancelled', `(cancelled by the operator; ${held.length > 0 ? 'partial answer from the facts held — ' : 'nothing was established — '}missing: ${missing.join('; ')})`)}`;
  }
  if (d.job.sample) text = `${text ? `${text}\n` : ''}${add('sample', `(sample data from ${d.job.sample}, not this machine)`)}`;
  const trust = weakest(held.map((f) => f.trust), 'T0');
  const spent = d.clock.measured(ledger.nextSeq, 'spent', budget.spent());
  ledger.append({ type: 'answer_sent', outcome, text, missing, trust, spent, ...(said.length ? { sentences: said } : {}) });
  // durable now, or by the caller that publishes the answer (deferResult: the daemon syncs it first)
  if (!d.deferResult) ledger.commit();
  d.log.debug({ session: d.sessionId, outcome, missing: missing.length }, 'answer sent');
}
