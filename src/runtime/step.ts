/**
 * One step, through the six phases (design §4):
 * SELECT → PREPARE → EXECUTE → REDUCE → VALIDATE → COMMIT.
 *
 * EXECUTE runs the step's tool through the execution world (or gathers the
 * earlier facts a `from` step reduces); REDUCE calls the selected provider on
 * exactly the input recorded in the ledger; VALIDATE runs the ladder; COMMIT
 * appends the fact and fdatasyncs before anything else happens. A provider
 * that fails validation is retried with the error fed back (providers whose
 * output is text; a pure code provider would only repeat itself), then its
 * `escalates_to` chain is followed; when nothing is left the step gives up
 * with `step_failed`, and the answer names it as missing. Every outcome is
 * an event; nothing here decides what step comes next (the loop does). A
 * destructive tool runs only after `approval_requested` and a person's grant
 * (StepContext.approval); with no decision yet the step reports `waiting`.
 */
import type { ProviderAdapter } from './provider.js';
import { ProviderError } from './provider.js';
import { digestBytes } from '../ledger/canonical.js';
import type { Ledger } from '../ledger/ledger.js';
import type { EventOf, NewEvent } from '../ledger/events.js';
import { runLadder } from '../ladder/index.js';
import { EVENT_OF, type LadderResult, type SchemaHandle } from '../ladder/types.js';
import type { CapabilityManifest, ProviderManifest, ToolManifest } from '../registry/manifest.js';
import type { Registry } from '../registry/registry.js';
import { weakest, type Trust } from '../base/trust.js';
import { Budget, clipToBudget, clippedNote, STOP_RESERVE_MS, withoutClippedNote } from './budget.js';
import type { HeldFact } from './fold.js';
import { HookRejection, runHooks, type Hook, type Phase } from './hooks.js';
import { select } from './policy.js';
import { BREAKERS } from './settings.js';
import { assertVisible, coveredParts, factsInput, rebuildView, sentenceOf, type FactInput } from './view.js';

/** How a step gets its tool output: run the tool live, or (in replay) from the recorded ledger. */
export type ToolRunner = (tool: ToolManifest, args: Record<string, unknown>, step: string, opts?: { approved?: boolean }) => Promise<{ output: string; exitCode: number | null; durationMs: number; truncated: boolean }>;

/** What an input_compacted event records besides the step, the provider and the text kept. */
export type CompactionFields = Pick<EventOf<'input_compacted'>, 'kind' | 'budget_tokens' | 'original_bytes' | 'original_tokens' | 'kept_tokens' | 'cut' | 'failure_lines' | 'json_cuts'>;

/**
 * Context for small models (design §9), a seam the agent fills: a tool output over a model's
 * token budget, compacted (failure lines, head and tail kept; JSON keeps its structure), or null
 * when it is shown as it is.
 */
export type Compactor = (input: string) => { text: string; fields: CompactionFields } | null;

export interface StepContext {
  sessionId: string;
  root: string;
  ledger: Ledger;
  registry: Registry;
  adapterFor: (p: ProviderManifest) => ProviderAdapter;
  hooks: readonly Hook[];
  budget: Budget;
  measurements: Record<string, Record<string, import('../ledger/events.js').Measurement>>;
  runTool: ToolRunner;
  /** how a tool output too long for a model is cut for it (the agent's compaction) */
  compact: Compactor;
  goal: string;
  /** pass rate per provider id for the confidence signal */
  history: (provider: string, schema: string) => number | null;
  /** select under another policy (counterfactual replay only; the live loop never sets it) */
  policy?: import('./policy.js').PolicyOverride;
  /**
   * A person's decision on a destructive step requested at `since` (src/approval/), or null while
   * none is made: the step then stops its session, waiting. Absent: no approver is configured,
   * and a destructive step is denied.
   */
  approval?: ApprovalDecider;
}

/** Only a person's decision (or the expiry setting) answers this; no model or plan can. */
export type ApprovalDecider = (step: string, since: string) => { decision: 'granted' | 'denied'; by: string; at: string; reason: string | null } | null;

export interface StepSpec {
  step: string;
  tool: string | null;
  args: Record<string, unknown>;
  capability: string;
  schema: string;
  /** fact steps this step reduces (null for a tool step) */
  from: string[] | null;
  /** when set, only this provider may serve the step (pico call --provider) */
  onlyProvider?: string;
  /** input given directly (pico call, a planner's context): recorded like a tool output, under `label` */
  input?: DirectInput;
  /** the schema to validate against instead of the registered `schema` (a planner's schema narrowed to the retrieved tools); facts still name `schema` */
  schemaHandle?: SchemaHandle;
  /** only providers of these kinds may serve the step (the playbook planner, or model planners) */
  providerKinds?: readonly ProviderManifest['kind'][];
  /** a deterministic check after the ladder (a plan's steps against the registry): an error message fails the attempt as validation_failed, retried with the message fed back */
  check?: (value: unknown) => string | null;
  /**
   * Nothing that changes the world follows before the next commit: the plan's last step (the
   * answer follows), or a step whose successor only reduces facts already held or runs a
   * read-only, idempotent tool. Its fact is then made durable by that next commit (at the
   * latest the answer's), not one of its own.
   */
  shareCommit?: boolean;
}

export interface DirectInput {
  text: string;
  trust: Trust;
  label: string;
}

export type StepOutcome = { ok: true; fact: HeldFact } | { ok: false; reason: string; waiting?: true };

/** Run one step to a committed fact or a recorded give-up. */
export async function runStep(ctx: StepContext, spec: StepSpec, held: Map<string, HeldFact>): Promise<StepOutcome> {
  const { ledger } = ctx;
  const capability = ctx.registry.capability(spec.capability);
  const schema = spec.schemaHandle ?? ctx.registry.schema(spec.schema);
  const tool = spec.tool ? ctx.registry.tool(spec.tool) : null;
  if (!capability.schemas.includes(spec.schema)) {
    return giveUp(ctx, spec, 'step_failed', `capability ${spec.capability} does not produce schema ${spec.schema} (it produces ${capability.schemas.join(', ')})`);
  }
  const schemaJson = (id: string) => ctx.registry.schemas.get(id)?.json;
  const facts: FactInput[] = [];
  const missing: string[] = [];
  for (const s of spec.from ?? []) {
    const f = held.get(s);
    if (f) facts.push({ step: s, seq: f.seq, schema: f.schema, trust: f.trust, fact: f.fact, ...sentenceOf(schemaJson(f.schema)) });
    else missing.push(s);
  }
  // Trust of the step's input: the tool's declared output trust, or the weakest of the facts it reads.
  const trust: Trust = spec.input ? spec.input.trust : tool ? tool.trust_out : weakest(facts.map((f) => f.trust));
  const toolLabel = spec.input?.label ?? tool?.name ?? null;
  // Spent so far, through the clock: the loop's budget check and the cost filter below see this
  // number, and a replay sees the recorded one, so both decide the same way again.
  const spent = ledger.clock.measured(ledger.nextSeq, 'spent', ctx.budget.spent());
  ledger.append({ type: 'step_started', step: spec.step, tool: toolLabel, trust, capability: spec.capability, schema: spec.schema, spent });
  const phase = (p: Phase, provider: string | null, payload: unknown) =>
    runHooks(ctx.hooks, { sessionId: ctx.sessionId, step: spec.step, phase: p, capability: spec.capability, schema: spec.schema, provider, payload });

  try {
    // PREPARE: the tool's arguments (checked against its input schema by the tool runner).
    const args = tool ? (phase('PREPARE', null, spec.args) as Record<string, unknown>) : {};
    let approved = false;
    if (tool?.effect === 'destructive') {
      const gate = approvalGate(ctx, spec, tool, args);
      if (gate !== true) return gate;
      approved = true;
    }
    // EXECUTE: run the tool, or gather the facts this step reduces.
    let input: string;
    if (spec.input) {
      ledger.append({ type: 'tool_output', step: spec.step, tool: spec.input.label, ...ledger.blobs.keep(spec.input.text), exit_code: null, duration_ms: 0, truncated: false });
      input = spec.input.text;
    } else if (tool) {
      // The budget is a ceiling: the tool's own limit is cut to what is left of it.
      const clip = clipToBudget(tool, ctx.budget.wallLeft(spent));
      try {
        const run = await ctx.runTool(clip.manifest, args, spec.step, approved ? { approved } : undefined);
        // An EXECUTE hook may change the tool's output before it is recorded, never after.
        run.output = phase('EXECUTE', null, run.output) as string;
        ledger.append({
          type: 'tool_output', step: spec.step, tool: tool.name, ...ledger.blobs.keep(run.output),
          exit_code: run.exitCode, duration_ms: ctx.ledger.clock.measured(ledger.nextSeq, 'duration_ms', Math.round(run.durationMs)),
          truncated: run.truncated,
        });
        input = run.output;
      } catch (err) {
        if (err instanceof ProviderError) {
          // the tool runner names the tool already (src/tools/run.ts); a runner that does not gets the name here, once
          const said = err.message.startsWith(`tool ${tool.name}: `) ? err.message : `tool ${tool.name}: ${err.message}`;
          return giveUp(ctx, spec, err.type, `${said}${timeoutNote(ctx, err.type, clip.clippedTo)}`, { tool: tool.name, detailTrust: 'T1', ...(err.detail?.cause ? { cause: err.detail.cause } : {}) });
        }
        throw err;
      }
    } else {
      // A facts step's input is what the ledger holds; a hook may observe it (a change would be
      // unlogged and is caught by the visibility check before the call).
      input = phase('EXECUTE', null, factsInput(ctx.goal, facts, missing, coveredParts(ledger.all, ledger.all.length))) as string;
    }
    const inputBytes = Buffer.byteLength(input, 'utf8');

    // SELECT: the policy's candidates for this capability, schema, input size and trust.
    const sel = select(ctx.registry.providers.values(), {
      capability, schemaId: spec.schema, inputTrust: trust, inputBytes,
      remainingMs: Math.max(0, ctx.budget.limits.wall_ms - spent.wall_ms),
      measurements: ctx.measurements, isModel: (p) => ctx.adapterFor(p).isModel, ...(ctx.policy ? { policy: ctx.policy } : {}),
    });
    let candidates = sel.candidates;
    if (spec.onlyProvider) candidates = candidates.filter((p) => p.id === spec.onlyProvider);
    if (spec.providerKinds) candidates = candidates.filter((p) => spec.providerKinds!.includes(p.kind));
    candidates = phase('SELECT', null, candidates) as ProviderManifest[];
    if (candidates.length === 0) {
      const rejected = spec.onlyProvider
        ? sel.rejected.filter((r) => r.provider === spec.onlyProvider).concat(ctx.registry.providers.has(spec.onlyProvider) ? [] : [{ provider: spec.onlyProvider, filter: 'implements' as const, reason: 'no such provider' }])
        : spec.providerKinds
          ? sel.rejected.concat(sel.candidates.filter((p) => !spec.providerKinds!.includes(p.kind)).map((p) => ({ provider: p.id, filter: 'implements' as const, reason: `a ${p.kind} provider; this step takes only ${spec.providerKinds!.join(' or ')} providers` })))
          : sel.rejected;
      const why = rejected.length ? rejected.map((r) => `${r.provider}: ${r.reason}`).join('; ') : `no provider implements ${spec.capability}`;
      ledger.append({
        type: 'capability_gap', step: spec.step, provider: null, capability: spec.capability, schema: spec.schema,
        error: `no local provider can serve ${spec.capability} -> ${spec.schema} for ${trust} input of ${inputBytes} bytes: ${why}`,
        attempt: 0, rejected,
      });
      ledger.commit();
      return { ok: false, reason: `no local provider for ${spec.capability} -> ${spec.schema}` };
    }

    // REDUCE + VALIDATE per provider, following escalates_to.
    const tried = new Set<string>();
    let provider: ProviderManifest | undefined = candidates[0];
    const failures: string[] = [];
    while (provider) {
      tried.add(provider.id);
      const result = await tryProvider(ctx, spec, provider, capability, schema, trust, input, tool || spec.input ? null : spec.from ?? [], phase);
      if (result.ok) return result;
      failures.push(`${provider.id}: ${result.reason}`);
      const next = provider.escalates_to.map((id) => candidates.find((c) => c.id === id) ?? sel.candidates.find((c) => c.id === id) ?? null).find((c) => c && !tried.has(c.id)) ?? undefined;
      if (next) {
        ledger.append({ type: 'escalated', step: spec.step, from: provider.id, to: next.id, reason: result.reason });
        ledger.commit();
      }
      provider = next;
    }
    return giveUp(ctx, spec, 'step_failed', `no provider produced a valid ${spec.schema}: ${failures.join('; ')}`);
  } catch (err) {
    if (err instanceof HookRejection) {
      ledger.append({ type: 'hook_rejected', step: spec.step, provider: null, capability: spec.capability, schema: spec.schema, error: err.message, attempt: 0, phase: err.phase, hook: err.hook });
      return giveUp(ctx, spec, 'step_failed', `hook ${err.hook} rejected the step at ${err.phase}: ${err.message}`);
    }
    throw err;
  }
}

/** One provider's attempts at a step: call, ladder, retry with feedback, commit. */
async function tryProvider(
  ctx: StepContext, spec: StepSpec, provider: ProviderManifest, capability: CapabilityManifest, schema: SchemaHandle,
  trust: Trust, input: string, from: string[] | null, phase: (p: Phase, provider: string | null, payload: unknown) => unknown,
): Promise<{ ok: true; fact: HeldFact } | { ok: false; reason: string }> {
  const { ledger } = ctx;
  const adapter = ctx.adapterFor(provider);
  const identity = adapter.identity(provider);
  const maxAttempts = provider.kind === 'code' ? 1 : BREAKERS.max_retries_per_step;
  let feedback: string | null = null;
  let reason = 'not attempted';
  // Context for small models: a tool output over the model's token budget is compacted for it
  // (failure lines, head and tail kept; JSON keeps its structure), and the ledger says what was cut.
  if (adapter.isModel && from === null) input = compactForModel(ctx, spec.step, identity, input);
  const inputBytes = Buffer.byteLength(input, 'utf8');
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const failure = (type: Exclude<NewEvent['type'], never>, error: string, extra: Record<string, unknown> = {}) => {
      ledger.append({ type, step: spec.step, provider: identity, capability: spec.capability, schema: spec.schema, error, attempt, ...extra } as NewEvent);
      ledger.commit();
      reason = error;
      feedback = error;
    };
    if (adapter.isModel && inputBytes > BREAKERS.max_bytes_to_model) {
      failure('breaker_tripped', `input of ${inputBytes} bytes is over max_bytes_to_model ${BREAKERS.max_bytes_to_model}`, { breaker: 'max_bytes_to_model' });
      break;
    }
    if (adapter.isModel && ctx.budget.spent().model_calls >= ctx.budget.limits.model_calls) {
      failure('budget_exhausted', `model call budget of ${ctx.budget.limits.model_calls} for this class is spent`, { spent: ctx.budget.spent(), limit: 'model_calls' });
      break;
    }
    // The budget is a ceiling: no attempt (a retry, an escalation) starts once the wall budget is
    // spent, and one that starts gets at most what is left. A code provider runs in-process in
    // milliseconds and has no limit to cut; it may still reduce what a tool already returned.
    const now = ledger.clock.measured(ledger.nextSeq, 'spent', ctx.budget.spent());
    if (provider.kind !== 'code' && ctx.budget.wallLeft(now) <= STOP_RESERVE_MS) {
      failure('budget_exhausted', `the ${ctx.budget.budgetClass} wall budget of ${ctx.budget.limits.wall_ms} ms is spent (${now.wall_ms} ms, less than ${STOP_RESERVE_MS} ms left); no further attempt starts`, { spent: now, limit: 'wall_ms' });
      break;
    }
    const clip = clipToBudget(provider, ctx.budget.wallLeft(now));
    // The visibility invariant: what we send must be exactly what the ledger can rebuild.
    const rebuilt = rebuildView(ledger.all, ledger.blobs, spec.step, from, identity, attempt, (id) => ctx.registry.schemas.get(id)?.json);
    assertVisible({ input, feedback }, rebuilt, spec.step, provider.id);

    const ac = new AbortController();
    const started = performance.now();
    let outcome: 'ok' | 'failed' | 'timeout' = 'ok';
    let response: Awaited<ReturnType<ProviderAdapter['invoke']>> | null = null;
    let fault: ProviderError | null = null;
    // A timeout is a fact about the machine's clock, not the provider's answer: a replay takes it
    // (and its message) from the record instead of racing the limit again on another day's load.
    // Its error is the recorded one whole: the budget note's figure came from that day's clock too.
    const recordedTimeout = ledger.clock.measured(ledger.nextSeq, 'outcome', null) === 'timeout'
      ? String(ledger.clock.measured(ledger.nextSeq + 1, 'error', '')) : null;
    try {
      if (recordedTimeout !== null) throw new ProviderError('tool_timeout', withoutClippedNote(recordedTimeout));
      response = await adapter.invoke(clip.manifest, {
        capability: spec.capability, schemaId: spec.schema, schema: schema.json, input, feedback,
        attempt, root: ctx.root, signal: ac.signal,
      });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      fault = err;
      outcome = err.type === 'tool_timeout' ? 'timeout' : 'failed';
    } finally {
      if (adapter.isModel) ctx.budget.countModelCall();
      if (adapter.release && provider.kind === 'gguf' && provider.residency === 'cold') await adapter.release(provider);
    }
    const durationMs = ctx.ledger.clock.measured(ledger.nextSeq, 'duration_ms', Math.round(performance.now() - started));
    const outputBlob = response?.kind === 'text' ? ledger.blobs.put(response.text).ref : null;
    ledger.append({
      type: 'provider_called', step: spec.step, provider: identity, capability: spec.capability, schema: spec.schema,
      duration_ms: durationMs, outcome, attempt, input_sha256: digestBytes(input), input_bytes: inputBytes,
      output_blob: outputBlob, model_call: adapter.isModel,
    });
    if (fault || !response) {
      const type = fault?.type ?? 'tool_failed';
      failure(type, recordedTimeout ?? `${fault?.message ?? 'provider returned nothing'}${timeoutNote(ctx, type, clip.clippedTo)}`, { detail_trust: 'T1' });
      continue;
    }
    response = phase('REDUCE', provider.id, response) as typeof response;
    const ladder: LadderResult = runLadder(
      response.kind === 'value' ? { value: response.value } : { text: response.text },
      schema,
      { source: input, history: ctx.history(provider.id, spec.schema), ...(response.confidence !== undefined ? { providerConfidence: response.confidence } : {}) },
    );
    phase('VALIDATE', provider.id, ladder);
    if (!ladder.ok) {
      failure(EVENT_OF[ladder.kind], ladder.error, { fixes: ladder.fixes, detail_trust: trust });
      continue;
    }
    const problem = spec.check?.(ladder.value) ?? null;
    if (problem !== null) {
      failure('validation_failed', problem, { fixes: ladder.fixes, detail_trust: trust });
      continue;
    }
    // The confidence gate (level 5): below the manifest's floor nothing is committed; the value goes
    // back once with the repairs it needed named (a text provider can write it cleanly), then escalates.
    if (provider.confidence_floor !== null && ladder.confidence !== null && ladder.confidence < provider.confidence_floor) {
      const needed = ladder.fixes.length ? `; it needed these repairs: ${ladder.fixes.slice(0, 4).join('; ')} — answer again with plain JSON that needs none` : '';
      failure('critic_rejected', `confidence ${ladder.confidence.toFixed(2)} is below this provider's floor ${provider.confidence_floor}${needed}`, { fixes: ladder.fixes });
      continue;
    }
    const value = phase('COMMIT', provider.id, ladder.value);
    const [ev] = ledger.append({
      type: 'fact_added', step: spec.step, provider: identity, capability: capability.id, schema: spec.schema,
      fact: value, trust, confidence: ladder.confidence, duration_ms: durationMs,
      valid_until: validUntil(schema, ledger.nextTime()), subject: subjectOf(schema, value),
      fixes: ladder.fixes,
    });
    // Durable before anything changes the world (a tool that is not read-only and idempotent),
    // and before the answer is published: otherwise it shares the next step's fdatasync.
    if (!spec.shareCommit) ledger.commit();
    return { ok: true, fact: { step: spec.step, schema: spec.schema, provider: identity, trust, fact: value, seq: ev!.seq, confidence: ladder.confidence } };
  }
  return { ok: false, reason };
}

/** The tool output a model is shown: as it is when it fits (ctx.compact says null), else compacted and recorded. */
function compactForModel(ctx: StepContext, step: string, provider: string, input: string): string {
  const cut = ctx.compact(input);
  if (!cut) return input;
  ctx.ledger.append({ type: 'input_compacted', step, provider, ...ctx.ledger.blobs.keep(cut.text), ...cut.fields });
  return cut.text;
}

/** The budget note after a timeout whose limit had been cut to the budget (budget.ts clippedNote); nothing after any other fault. */
function timeoutNote(ctx: StepContext, type: string, clippedTo: number | null): string {
  return type === 'tool_timeout' ? clippedNote(ctx.budget.budgetClass, clippedTo) : '';
}

/**
 * A destructive step asks once (approval_requested: the tool, its checked arguments, why), then
 * runs only on a person's grant, recorded as approval_granted for this step alone; a denial is
 * the step's give-up; no decision yet stops the session here, waiting (nothing more runs).
 */
function approvalGate(ctx: StepContext, spec: StepSpec, tool: ToolManifest, args: Record<string, unknown>): true | StepOutcome {
  const { ledger } = ctx;
  let req = ledger.all.find((e) => e.type === 'approval_requested' && e.step === spec.step);
  if (!req) {
    [req] = ledger.append({ type: 'approval_requested', step: spec.step, reason: `tool ${tool.name} is destructive: a person must approve this call`, tool: tool.name, args });
    ledger.commit();
  }
  if (!ctx.approval) {
    return giveUp(ctx, spec, 'approval_denied', `tool ${tool.name} is destructive and no approver is configured; destructive steps always stop for a person`, { tool: tool.name });
  }
  const d = ctx.approval(spec.step, req!.t);
  if (d === null) return { ok: false, reason: `waiting for a person to approve tool ${tool.name}`, waiting: true };
  if (d.decision === 'denied') {
    const why = d.by === 'timeout' ? `approval expired: ${d.reason}` : `denied by ${d.by}${d.reason ? `: ${d.reason}` : ''}`;
    return giveUp(ctx, spec, 'approval_denied', `tool ${tool.name}: ${why}`, { tool: tool.name, by: d.by, decidedAt: d.at });
  }
  if (!ledger.all.some((e) => e.type === 'approval_granted' && e.step === spec.step)) {
    ledger.append({ type: 'approval_granted', step: spec.step, by: d.by, decided_at: d.at });
    ledger.commit();
  }
  return true;
}

/** Record that a step gives up, durably. */
function giveUp(
  ctx: StepContext, spec: StepSpec, type: 'step_failed' | 'tool_failed' | 'tool_timeout' | 'tool_empty' | 'approval_denied',
  error: string, extra: { tool?: string; detailTrust?: Trust; by?: string; decidedAt?: string; cause?: { id: string; plain: string } } = {},
): StepOutcome {
  ctx.ledger.append({
    type, step: spec.step, provider: null, capability: spec.capability, schema: spec.schema, error, attempt: 0,
    ...(extra.tool ? { tool: extra.tool } : {}), ...(extra.detailTrust ? { detail_trust: extra.detailTrust } : {}),
    ...(extra.cause && (type === 'tool_failed' || type === 'tool_empty') ? { cause: extra.cause } : {}),
    ...(extra.by ? { by: extra.by } : {}), ...(extra.decidedAt ? { decided_at: extra.decidedAt } : {}),
  } as NewEvent);
  if (type !== 'step_failed' && type !== 'approval_denied') {
    ctx.ledger.append({ type: 'step_failed', step: spec.step, provider: null, capability: spec.capability, schema: spec.schema, error, attempt: 0 });
  }
  ctx.ledger.commit();
  return { ok: false, reason: error };
}

/** The subject a fact is about: the schema's `x-subject` field, else a `host` field. */
function subjectOf(schema: SchemaHandle, value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const key = typeof schema.json['x-subject'] === 'string' ? (schema.json['x-subject'] as string) : 'host';
  const v = (value as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : null;
}

/** Until when a fact holds: the schema's `x-valid-for-s` seconds after it was observed, else null. */
function validUntil(schema: SchemaHandle, observedAt: string): string | null {
  const secs = schema.json['x-valid-for-s'];
  if (typeof secs !== 'number') return null;
  return new Date(Date.parse(observedAt) + secs * 1000).toISOString();
}
