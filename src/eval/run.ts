/**
 * Running one case file under every harness mode, through one model seam.
 *
 * Per case, at most: one unconstrained call (read by `raw`, `extract` and
 * `ladder`, and the first attempt of `retry`), up to two retry calls (only
 * when the ladder refused, each with the error fed back), and one call
 * decoded under the case's grammar. The seam (`Caller`) is a live provider
 * through the adapters, or a cassette (cassette.ts); with recorded text
 * (`--recorded`) no call is made and the case's `input` is the output.
 *
 * Each call's time is the model's wall time, measured here and recorded, so a
 * replay reproduces the table exactly; the harness's own (sub-millisecond)
 * parsing time is not counted. A provider fault on a call (timeout, empty
 * output, output too long) is that call's refusal, with its message; a fault
 * on the very first call of a run means the provider cannot run at all, and
 * the run stops with that message. Scoring is src/eval/score.ts, the table table.ts.
 */
import type { EvalCase } from './cases.js';
import { extractAnswer, ladderAnswer, LIVE_ONLY, MAX_RETRIES, rawAnswer, type Mode, type ModeAnswer } from './modes.js';
import { renderCase, renderRetry, type Messages, type PromptVariant } from './prompt.js';
import { isRight } from './score.js';

export type Purpose = 'free' | 'retry-1' | 'retry-2' | 'grammar';

export interface CallOutcome {
  text: string | null;
  /** the provider fault, when there is no text */
  error: string | null;
  ms: number;
  prompt_tokens: number | null;
}

/** One model call as the seam sees it. */
export type Caller = (c: EvalCase, purpose: Purpose, messages: Messages, constrained: boolean, feedback: string | null) => Promise<CallOutcome>;

export interface ModeResult {
  answer: ModeAnswer;
  right: boolean;
  model_calls: number;
  ms: number;
  prompt_tokens: number | null;
}

export interface CaseResult {
  id: string;
  category: string;
  capability: string;
  schemaId: string;
  modes: Partial<Record<Mode, ModeResult>>;
}

/** A provider that cannot run at all (first call failed): the run stops. */
export class ProviderUnavailable extends Error {
  override name = 'ProviderUnavailable';
}

/** Sum of prompt tokens, unknown when any call's is unknown. */
function tokens(calls: CallOutcome[]): number | null {
  let n = 0;
  for (const c of calls) {
    if (c.prompt_tokens === null) return null;
    n += c.prompt_tokens;
  }
  return n;
}

/** A mode's result from the calls it used and the answer it reached. */
function result(c: EvalCase, answer: ModeAnswer, calls: CallOutcome[]): ModeResult {
  return { answer, right: isRight(c, answer), model_calls: calls.length, ms: calls.reduce((s, x) => s + x.ms, 0), prompt_tokens: tokens(calls) };
}

/** A call that produced no text: a crash, not a refusal. */
function fault(out: CallOutcome): ModeAnswer {
  return { ok: false, classified: false, error: out.error ?? 'no output' };
}

/** The ladder's answer to a call, or the call's fault. */
function laddered(c: EvalCase, out: CallOutcome): ModeAnswer {
  return out.text === null ? fault(out) : ladderAnswer(out.text, c);
}

/** Score recorded text (the case's `input`) under the modes that need no model. */
export function scoreRecorded(c: EvalCase, modes: Mode[]): CaseResult {
  const text = c.input ?? '';
  const out: CaseResult = { id: c.id, category: c.category, capability: c.capability, schemaId: c.schemaId, modes: {} };
  const none: CallOutcome[] = [];
  for (const m of modes) {
    if (LIVE_ONLY.includes(m)) continue;
    const answer = m === 'raw' ? rawAnswer(text) : m === 'extract' ? extractAnswer(text) : ladderAnswer(text, c);
    out.modes[m] = result(c, answer, none);
  }
  return out;
}

/** Run one case through the seam under the given modes. */
export async function runCase(c: EvalCase, modes: Mode[], variant: PromptVariant, call: Caller): Promise<CaseResult> {
  const out: CaseResult = { id: c.id, category: c.category, capability: c.capability, schemaId: c.schemaId, modes: {} };
  const first = renderCase(c, variant);
  const needsFree = modes.some((m) => m !== 'grammar');
  if (needsFree) {
    const free = await call(c, 'free', first, false, null);
    const text = free.text;
    if (modes.includes('raw')) out.modes.raw = result(c, text === null ? fault(free) : rawAnswer(text), [free]);
    if (modes.includes('extract')) out.modes.extract = result(c, text === null ? fault(free) : extractAnswer(text), [free]);
    const answer = laddered(c, free);
    if (modes.includes('ladder')) out.modes.ladder = result(c, answer, [free]);
    if (modes.includes('retry')) {
      const used = [free];
      let last = free;
      let current = answer;
      for (let i = 1; i <= MAX_RETRIES && !current.ok; i++) {
        const error = current.ok ? '' : current.error;
        last = await call(c, `retry-${i}` as Purpose, renderRetry(first, last.text ?? '', error, variant), false, error);
        used.push(last);
        current = laddered(c, last);
      }
      out.modes.retry = result(c, current, used);
    }
  }
  if (modes.includes('grammar')) {
    const g = await call(c, 'grammar', first, true, null);
    out.modes.grammar = result(c, laddered(c, g), [g]);
  }
  return out;
}
