/**
 * The eval table: per mode, the score, the cases refused, p50/p90 model time
 * per case, and model calls and prompt tokens per case — for a person (a
 * fixed-width table with a legend) and for a script (`--json`).
 *
 * Everything in it is a function of the case results, which a replay
 * reproduces exactly, so a replayed table is byte-identical to the recorded
 * one: no clock, no host name, nothing measured at render time.
 */
import type { Mode } from './modes.js';
import type { CaseResult } from './run.js';

export interface ModeSummary {
  score: number;
  right: number;
  cases: number;
  /** classified refusals (the ladder's) */
  refused: number;
  /** no value and no classified refusal: a parse crash or a provider fault */
  crashed: number;
  p50_ms: number;
  p90_ms: number;
  /** per case */
  model_calls: number;
  /** per case; null when the provider does not count tokens */
  prompt_tokens: number | null;
}

export interface RunInfo {
  cases_path: string;
  cases_digest: string;
  provider: string | null;
  identity: string | null;
  variant: string;
  variant_digest: string | null;
  source: 'live' | 'replay' | 'recorded';
}

/** The p-th percentile, nearest rank. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/** Summaries per mode, in the order given. */
export function summarize(results: CaseResult[], modes: Mode[]): Partial<Record<Mode, ModeSummary>> {
  const out: Partial<Record<Mode, ModeSummary>> = {};
  for (const m of modes) {
    const rows = results.map((r) => r.modes[m]).filter((x) => x !== undefined);
    if (rows.length === 0) continue;
    const right = rows.filter((r) => r.right).length;
    const toks = rows.map((r) => r.prompt_tokens);
    out[m] = {
      score: round(right / rows.length, 3),
      right,
      cases: rows.length,
      refused: rows.filter((r) => !r.answer.ok && r.answer.classified).length,
      crashed: rows.filter((r) => !r.answer.ok && !r.answer.classified).length,
      p50_ms: percentile(rows.map((r) => r.ms), 50),
      p90_ms: percentile(rows.map((r) => r.ms), 90),
      model_calls: round(rows.reduce((s, r) => s + r.model_calls, 0) / rows.length, 2),
      prompt_tokens: toks.some((t) => t === null) ? null : round((toks as number[]).reduce((s, t) => s + t, 0) / rows.length, 1),
    };
  }
  return out;
}

const LEGEND = [
  'score    right / cases: the answer deep-equals the expected value (a case that must be refused is right when refused)',
  'refused  cases refused with a classified error (only the ladder classifies); crashed: no value and no classified refusal',
  '         (JSON.parse failed, or the provider timed out / wrote nothing) — a crash is never a right answer, even on a must-refuse case',
  'p50/p90  model wall time per case in ms (all the model calls the mode used; harness time not counted)',
  'calls    model calls per case; tokens: prompt tokens per case as the provider counted them (- = not counted)',
  'raw = JSON.parse of the whole output; extract = fences and tags stripped, then JSON.parse; ladder = the validation',
  'ladder; retry = the ladder with its error fed back, at most 2 more calls; grammar = decoding under the case\'s grammar, then the ladder',
];

/** The table for a person. */
export function renderTable(info: RunInfo, summary: Partial<Record<Mode, ModeSummary>>): string {
  // live and replayed runs render the same bytes: the CLI says "replayed" on stderr
  const who = info.source === 'recorded' ? 'recorded model text in the case file (no model called)' : `provider ${info.provider} (${info.identity})`;
  const lines = [
    `pico eval ${info.cases_path} (sha256 ${info.cases_digest.slice(0, 12)}) — ${who}`,
    `prompt variant: ${info.variant}${info.variant_digest ? ` (digest ${info.variant_digest.slice(0, 12)})` : ''}`,
    '',
  ];
  const head = ['mode', 'score', 'right', 'refused', 'crashed', 'p50 ms', 'p90 ms', 'calls', 'tokens'];
  const rows = Object.entries(summary).map(([m, s]) => [
    m, s.score.toFixed(3), `${s.right}/${s.cases}`, String(s.refused), String(s.crashed), String(s.p50_ms), String(s.p90_ms), s.model_calls.toFixed(2), s.prompt_tokens === null ? '-' : s.prompt_tokens.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(fmt(head), ...rows.map(fmt), '', ...LEGEND);
  return lines.join('\n');
}

/** The `--json` document: {run, modes, cases}. */
export function jsonReport(info: RunInfo, summary: Partial<Record<Mode, ModeSummary>>, results: CaseResult[]): Record<string, unknown> {
  return {
    run: info,
    modes: summary,
    cases: results.map((r) => ({
      id: r.id,
      category: r.category,
      modes: Object.fromEntries(Object.entries(r.modes).map(([m, x]) => [m, {
        ok: x.answer.ok, right: x.right, ...(x.answer.ok ? { value: x.answer.value } : { error: x.answer.error }),
        model_calls: x.model_calls, ms: x.ms, prompt_tokens: x.prompt_tokens,
      }])),
    })),
  };
}
