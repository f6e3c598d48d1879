/**
 * The harness modes `pico eval` compares — the seeds' four harness styles,
 * built from this project's parts:
 *
 * - `raw`: the whole output through `JSON.parse`, nothing else (the seeds'
 *   bare `json.loads`);
 * - `extract`: markdown fences and template tags stripped, then `JSON.parse`
 *   (the seeds' template-tag harness);
 * - `ladder`: the full validation ladder, one call;
 * - `retry`: the ladder, and on a refusal its error fed back to the model, at
 *   most `max_retries_per_step` times (the design's breaker, 2);
 * - `grammar`: decoding constrained by a grammar over the case's schema (the
 *   offered tools), then the ladder.
 *
 * `raw`, `extract` and `ladder` read the same unconstrained output, so they
 * share one model call; `retry` starts from it too. Only the ladder refuses
 * with a classified error; `raw` and `extract` can only crash on text they
 * cannot parse, which is never a right refusal (src/eval/score.ts). This module turns one
 * text into an answer per mode; calling the model is run.ts.
 */
import { runLadder } from '../ladder/index.js';
import { BREAKERS } from '../runtime/settings.js';
import type { EvalCase } from './cases.js';

export const MODES = ['raw', 'extract', 'ladder', 'retry', 'grammar'] as const;
export type Mode = (typeof MODES)[number];
/** Modes that need a model to answer again (not applicable to recorded text). */
export const LIVE_ONLY: readonly Mode[] = ['retry', 'grammar'];
export const MAX_RETRIES = BREAKERS.max_retries_per_step;

/** A value, or none: `classified` is a refusal the ladder classified; otherwise the mode crashed (parse error, provider fault). */
export type ModeAnswer = { ok: true; value: unknown } | { ok: false; classified: boolean; error: string };

/** Parse a modes list ("raw,ladder"); an unknown name is a usage error. */
export function parseModes(list: string): Mode[] {
  const names = list.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = names.filter((n) => !(MODES as readonly string[]).includes(n));
  if (bad.length || names.length === 0) throw new Error(`--modes: unknown mode ${bad.map((b) => `"${b}"`).join(', ') || '(none given)'}; choose from ${MODES.join(', ')}`);
  return MODES.filter((m) => names.includes(m));
}

/** `raw`: JSON.parse of the whole text. */
export function rawAnswer(text: string): ModeAnswer {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, classified: false, error: `JSON.parse: ${(e as Error).message}` };
  }
}

/** The text inside the first markdown fence (closed or not) or template tag pair; special tokens dropped. */
export function stripWrappers(text: string): string {
  let t = text.trim();
  const fence = /```[A-Za-z0-9_-]*[^\S\n]*\n?([\s\S]*?)(?:```|$)/.exec(t);
  if (fence) t = fence[1]!;
  const tag = /<([A-Za-z_][\w-]*)>([\s\S]*?)<\/\1>/.exec(t);
  if (tag) t = tag[2]!;
  return t.replace(/<\|[^|>]*\|>/g, '').trim();
}

/** `extract`: fences and tags stripped, then JSON.parse. */
export function extractAnswer(text: string): ModeAnswer {
  return rawAnswer(stripWrappers(text));
}

/** `ladder` (and the last step of `retry` and `grammar`): the validation ladder on the text. */
export function ladderAnswer(text: string, c: EvalCase): ModeAnswer {
  const r = runLadder({ text }, c.handle);
  return r.ok ? { ok: true, value: r.value } : { ok: false, classified: true, error: `${r.kind}${r.code ? `/${r.code}` : ''}: ${r.error}` };
}
