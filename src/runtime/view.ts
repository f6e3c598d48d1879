/**
 * What a provider sees, rebuilt from the ledger (design P12: provider-visible
 * means logged). Before every provider call the loop rebuilds the input and
 * the retry feedback from the recorded events and blobs alone, and asserts
 * they equal what it is about to send. A difference is a bug in the runtime
 * and stops the session rather than letting an unlogged input through.
 */
import { canonicalJson } from '../ledger/canonical.js';
import type { LedgerEvent } from '../ledger/events.js';
import type { BlobStore } from '../ledger/blobs.js';
import type { Trust } from '../base/trust.js';

export interface FactInput {
  step: string;
  seq: number; // of its fact_added event: an answer sentence's source
  schema: string;
  trust: Trust;
  fact: unknown;
  /** the schema's `x-sentence` (how the fact reads in an answer), beside the fact when it has one */
  sentence?: unknown;
}

/** The `x-sentence` of a schema, to go beside its fact in the answer step's input (none: nothing). */
export const sentenceOf = (json: Record<string, unknown> | undefined): { sentence?: unknown } => (json && 'x-sentence' in json ? { sentence: json['x-sentence'] } : {});

/** The input text of a step that reduces earlier facts (the answer step), with the goal's recorded coverage (seam §2). */
export function factsInput(goal: string, facts: FactInput[], missing: string[], parts?: unknown[]): string {
  return canonicalJson({ goal, facts, missing, ...(parts ? { parts } : {}) });
}

/** The parts of the coverage recorded after the last fact before `seq`, or undefined. */
export const coveredParts = (events: readonly LedgerEvent[], seq: number): unknown[] | undefined => ((e) => (e?.type === 'coverage' ? e.parts : undefined))(events.slice(0, seq).findLast((e) => e.type === 'coverage' || e.type === 'fact_added'));

export interface ProviderView {
  input: string;
  feedback: string | null;
}

export class VisibilityError extends Error {
  override name = 'VisibilityError';
}

/**
 * Rebuild a step's provider input and feedback from the ledger.
 * `from` names the fact steps (null for a tool step); `plan` gives their order.
 */
export function rebuildView(
  events: readonly LedgerEvent[],
  blobs: BlobStore,
  step: string,
  from: string[] | null,
  provider: string,
  attempt: number,
  schemaJson: (id: string) => Record<string, unknown> | undefined = () => undefined,
): ProviderView {
  let startedAt = -1;
  for (const e of events) if (e.type === 'step_started' && e.step === step) startedAt = e.seq;
  if (startedAt < 0) throw new VisibilityError(`step ${step} has no step_started event`);
  const current = events.slice(startedAt);
  let input: string;
  if (from === null) {
    const out = [...current].reverse().find((e) => e.type === 'tool_output' && e.step === step);
    if (!out || out.type !== 'tool_output') throw new VisibilityError(`step ${step} has no tool_output event to rebuild the input from`);
    // a model reads the output as compacted for it, when it was (input_compacted holds that text)
    const compacted = [...current].reverse().find((e) => e.type === 'input_compacted' && e.step === step && e.provider === provider);
    input = compacted && compacted.type === 'input_compacted' ? blobs.read(compacted) : blobs.read(out);
  } else {
    const user = events.find((e) => e.type === 'user_input');
    if (!user || user.type !== 'user_input') throw new VisibilityError('the ledger has no user_input event');
    const facts: FactInput[] = [];
    const missing: string[] = [];
    for (const s of from) {
      const f = [...events].reverse().find((e) => e.type === 'fact_added' && e.step === s);
      if (f && f.type === 'fact_added') facts.push({ step: s, seq: f.seq, schema: f.schema, trust: f.trust, fact: f.fact, ...sentenceOf(schemaJson(f.schema)) });
      else missing.push(s);
    }
    input = factsInput(user.text, facts, missing, coveredParts(events, startedAt));
  }
  let feedback: string | null = null;
  if (attempt > 1) {
    const fail = [...current].reverse().find((e) => 'error' in e && 'provider' in e && e.provider !== undefined && (e as { step?: string }).step === step);
    if (fail && 'error' in fail && (fail as { provider: string | null }).provider === provider) feedback = fail.error;
  }
  return { input, feedback };
}

/** Assert the view about to be sent equals the one rebuilt from the ledger. */
export function assertVisible(sent: ProviderView, rebuilt: ProviderView, step: string, provider: string): void {
  if (sent.input !== rebuilt.input) {
    throw new VisibilityError(`step ${step}, provider ${provider}: the input about to be sent differs from the input rebuilt from the ledger (${sent.input.length} vs ${rebuilt.input.length} chars); refusing to call an unlogged input`);
  }
  if (sent.feedback !== rebuilt.feedback) {
    throw new VisibilityError(`step ${step}, provider ${provider}: the retry feedback differs from the ledger's last failure`);
  }
}
