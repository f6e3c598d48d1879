/**
 * Steps as a person follows them: which step is running, and one line when
 * it starts, when a provider attempt ends, and when it commits or fails.
 *
 * Why: the ledger says everything, but event by event; someone waiting on a
 * run wants "s1 started", "s1 committed by tiny in 2.3 s" or "s1 failed: why".
 * This module reads ledger events loosely (objects as `pico run` gets them,
 * or parsed lines as `pico watch` reads them), keeps the start time of the
 * step in flight (from the events' own `t`, so a watch shows the same
 * durations as the run), and turns progress reports into the live text.
 * It prints nothing (view.ts does) and never writes anything.
 */
import type { ProviderProgress } from '../adapters/progress.js';

type Ev = Record<string, unknown>;

/** The failure events of one attempt (the ladder's and the provider's), as opposed to a step's end. */
const ATTEMPT_FAILURES = new Set([
  'grammar_failed', 'validation_failed', 'range_failed', 'crosscheck_failed', 'critic_rejected',
  'tool_failed', 'tool_timeout', 'tool_empty', 'breaker_tripped', 'budget_exhausted', 'hook_rejected',
]);
/** Events after which a step is over without a fact. */
const STEP_FAILURES = new Set(['step_failed', 'capability_gap', 'approval_denied']);

/** How many characters of a failure's reason a step line shows before it says where the rest is. */
export const REASON_CHARS = 300;

/** Seconds for a person: 850 ms, 2.3 s, 41 s. */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** One line of `text`, cut at `max` characters with where to read the rest. */
export function bounded(text: string, max: number, rest: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${flat.length - max} more characters: ${rest})`;
}

export class StepTracker {
  private readonly started = new Map<string, number>();
  /** the step that started and has not ended yet */
  current: string | null = null;

  /** `rest`: the command that shows a cut reason whole (e.g. `pico show ID --root R --full`). */
  constructor(private readonly rest: string) {}

  /** Milliseconds since `step` started, measured between ledger times; null when it is not known. */
  private since(step: string, e: Ev): number | null {
    const t0 = this.started.get(step);
    const t1 = typeof e.t === 'string' ? Date.parse(e.t) : NaN;
    return t0 === undefined || Number.isNaN(t1) ? null : Math.max(0, t1 - t0);
  }

  /** What a step is doing, for `pico watch` beside an event line: " (committed in 2.3 s)", or "". */
  suffix(e: Ev): string {
    const step = typeof e.step === 'string' ? e.step : null;
    if (step === null) return '';
    const ms = this.since(step, e);
    const took = ms === null ? '' : ` in ${seconds(ms)}`;
    if (e.type === 'fact_added') return ` (step committed${took})`;
    if (STEP_FAILURES.has(String(e.type))) return ` (step failed${took})`;
    return '';
  }

  /** Note an event; returns the line a person reads for it, or null when it is not about a step. */
  line(e: Ev): string | null {
    const step = typeof e.step === 'string' ? e.step : null;
    if (step === null) return null;
    const type = String(e.type);
    const why = (): string => bounded(String(e.error ?? e.reason ?? ''), REASON_CHARS, this.rest);
    if (type === 'step_started') {
      if (typeof e.t === 'string') this.started.set(step, Date.parse(e.t));
      this.current = step;
      return `${step} started: ${e.tool ? `tool ${String(e.tool)}` : 'from facts'} → ${String(e.capability)} (${String(e.schema)})`;
    }
    const took = (): string => {
      const ms = this.since(step, e);
      return ms === null ? '' : ` in ${seconds(ms)}`;
    };
    if (type === 'provider_called') {
      // a good attempt is told by the commit line; a failed one is worth its own (a retry follows)
      if (e.outcome === 'ok') return null;
      return `${step}   ${String(e.provider)} attempt ${String(e.attempt)}: ${String(e.outcome)} in ${seconds(Number(e.duration_ms))}`;
    }
    if (ATTEMPT_FAILURES.has(type)) return `${step}   ${e.provider ? `${String(e.provider)} ` : ''}${type}: ${why()}`;
    if (type === 'escalated') return `${step}   escalated from ${String(e.from)} to ${String(e.to)}`;
    if (type === 'fact_added') {
      this.end(step);
      return `${step} committed: ${String(e.schema)} by ${String(e.provider)}${took()}`;
    }
    if (STEP_FAILURES.has(type)) {
      const line = `${step} failed${took()}${e.provider ? ` (${String(e.provider)})` : ''}: ${type === 'step_failed' ? '' : `${type}: `}${why()}`;
      this.end(step);
      return line;
    }
    if (type === 'approval_requested') return `${step} waits for a person's approval: ${why()}`;
    return null;
  }

  private end(step: string): void {
    if (this.current === step) this.current = null;
  }

  /** The live text for a call in flight: "s1 tiny (gguf) attempt 1: 37 tokens, 2.1 s". */
  live(p: Pick<ProviderProgress, 'provider' | 'kind' | 'attempt' | 'output_tokens' | 'ms'>): string {
    const what = p.output_tokens !== null ? `${p.output_tokens} token${p.output_tokens === 1 ? '' : 's'}`
      : p.kind === 'gguf' ? 'loading and reading the prompt, no token yet' : p.kind === 'http' ? 'waiting for the server (it does not stream; tokens are counted when it answers)' : 'running';
    return `${this.current ?? '?'}   ${p.provider} (${p.kind}) attempt ${p.attempt}: ${what}, ${seconds(p.ms)}`;
  }
}
