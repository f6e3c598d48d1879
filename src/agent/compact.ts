/**
 * Compaction: a tool's output cut to a token budget before a model reads it,
 * with a record of exactly what was cut.
 *
 * Verbose output is the fastest way to overflow a small model's context
 * (design §9), and a silent cut hides what the model did not see. So output
 * over the budget is compacted by its kind — JSON (text that parses as JSON)
 * keeps its structure and still parses (`compact-json.ts`); anything else is
 * treated as lines and keeps every failure line plus head and tail
 * (`compact-lines.ts`) — and the caller gets a record for the ledger.
 * Output within the budget is returned unchanged, which makes compaction
 * idempotent: a compacted text fits its budget, so compacting it again under
 * the same budget changes nothing. Deterministic; reads and writes nothing.
 */
import { compactJson, type JsonCut } from './compact-json.js';
import { compactLines, isFailureLine, type LineCut } from './compact-lines.js';
import type { Compactor } from '../runtime/step.js';
import { AGENT_DEFAULTS, MIN_COMPACT_TOKENS } from './settings.js';
import { estimator, type TokenCounter } from './tokens.js';

export interface CompactionRecord {
  kind: 'log' | 'json';
  /** false when the output already fitted and was passed through unchanged */
  compacted: boolean;
  budget_tokens: number;
  /** false when the token counts are the estimator's */
  exact: boolean;
  original_bytes: number;
  kept_bytes: number;
  original_tokens: number;
  kept_tokens: number;
  /** runs of input lines replaced by one marker line each (1-based, inclusive) */
  cut: LineCut[];
  /** failure lines of the input and how many of them were kept (log_summary@2 rules 1 and 2) */
  failure_lines: { total: number; kept: number };
  /** JSON only: the first shortened arrays, objects and strings, by JSON path (at most JSON_CUTS_SHOWN) */
  json_cuts: JsonCut[];
  /** JSON only: how many were shortened in all */
  json_cuts_total: number;
}

/** The most JSON cuts a record lists; the total is always given. */
export const JSON_CUTS_SHOWN = 32;

export interface Compacted {
  text: string;
  record: CompactionRecord;
}

/** JSON when the whole text parses as one JSON object or array. */
function parseJson(text: string): { value: unknown } | null {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return null;
  try {
    return { value: JSON.parse(t) };
  } catch {
    return null;
  }
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Compact `text` to at most `budgetTokens` tokens by `counter`; unchanged when it already fits. */
export function compactOutput(text: string, budgetTokens: number, counter: TokenCounter): Compacted {
  if (!Number.isInteger(budgetTokens) || budgetTokens < MIN_COMPACT_TOKENS) {
    throw new RangeError(`compaction: tool_output_tokens must be a whole number of at least ${MIN_COMPACT_TOKENS}, got ${String(budgetTokens)}`);
  }
  const json = parseJson(text);
  const originalTokens = counter.count(text);
  const base = {
    kind: json ? ('json' as const) : ('log' as const), budget_tokens: budgetTokens, exact: counter.exact,
    original_bytes: bytes(text), original_tokens: originalTokens,
  };
  const done = (out: string, rest: Pick<CompactionRecord, 'cut' | 'failure_lines' | 'json_cuts' | 'json_cuts_total'>, compacted = true): Compacted => ({
    text: out,
    record: { ...base, compacted, kept_bytes: bytes(out), kept_tokens: compacted ? counter.count(out) : originalTokens, ...rest },
  });
  if (originalTokens <= budgetTokens) {
    const failures = json ? 0 : text.split('\n').filter(isFailureLine).length;
    return done(text, { cut: [], failure_lines: { total: failures, kept: failures }, json_cuts: [], json_cuts_total: 0 }, false);
  }
  if (json) {
    const shrunk = compactJson(json.value, budgetTokens, counter);
    if (!shrunk) throw new RangeError(`compaction: a budget of ${budgetTokens} tokens cannot hold even the outline of this JSON; raise tool_output_tokens`);
    return done(shrunk.text, { cut: [], failure_lines: { total: 0, kept: 0 }, json_cuts: shrunk.cuts.slice(0, JSON_CUTS_SHOWN), json_cuts_total: shrunk.cuts.length });
  }
  const lines = compactLines(text, budgetTokens, counter);
  return done(lines.text, { cut: lines.cut, failure_lines: lines.failure_lines, json_cuts: [], json_cuts_total: 0 });
}

/**
 * The core's Compactor (src/runtime/step.ts): a tool output a model is shown, as it is when it fits
 * AGENT_DEFAULTS.tool_output_tokens (null), else compacted, with what the input_compacted event records.
 */
export const compactForModel: Compactor = (input) => {
  const budget = AGENT_DEFAULTS.tool_output_tokens;
  if (estimator.count(input) <= budget) return null;
  const { text, record } = compactOutput(input, budget, estimator);
  if (!record.compacted) return null;
  return {
    text,
    fields: {
      kind: record.kind, budget_tokens: budget,
      original_bytes: record.original_bytes, original_tokens: record.original_tokens, kept_tokens: record.kept_tokens,
      cut: record.cut, failure_lines: record.kind === 'log' ? record.failure_lines : null, json_cuts: record.json_cuts_total,
    },
  };
};
