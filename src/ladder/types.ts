/**
 * The contract of the validation ladder (design §5), shared by the runtime,
 * the CLI and the benchmark. The rungs themselves live beside this file.
 */

/** A compiled JSON Schema: compiled once, used for every output. */
export interface SchemaHandle {
  id: string;
  json: Record<string, unknown>;
  /** sha256 of the canonical schema document */
  digest: string;
}

/** The classified failure kinds, by ladder level. */
export type LadderFailureKind = 'grammar' | 'schema' | 'range' | 'crosscheck';
export const LEVEL_OF: Record<LadderFailureKind, 1 | 2 | 3 | 4> = { grammar: 1, schema: 2, range: 3, crosscheck: 4 };
/** The ledger event written for each failure kind. */
export const EVENT_OF = {
  grammar: 'grammar_failed',
  schema: 'validation_failed',
  range: 'range_failed',
  crosscheck: 'crosscheck_failed',
} as const;

export interface LadderOk {
  ok: true;
  value: unknown;
  /** every repair applied, named, in order ("renamed maxResults -> max_results") */
  fixes: string[];
  /** multi-signal score in [0,1]; null when nothing can be said */
  confidence: number | null;
}
/** Why a tool call was refused (toolcall.ts): text-free, so a planner may be told it. */
export type ToolCallFailureCode = 'no_call' | 'extra_calls' | 'unknown_tool' | 'schema_echo' | 'bad_arguments';

export interface LadderFail {
  ok: false;
  kind: LadderFailureKind;
  level: 1 | 2 | 3 | 4;
  /** set on tool-call refusals */
  code?: ToolCallFailureCode;
  /** what was wrong where, readable by a person and fed back to a retry */
  error: string;
  fixes: string[];
}
export type LadderResult = LadderOk | LadderFail;

/** A deterministic cross-check for one schema: returns an error message, or null when the value holds. */
export type CrossCheck = (value: unknown, source: string) => string | null;

export interface LadderOptions {
  /** the provider's input: turns on the span rule and the schema's cross-check */
  source?: string;
  /** this provider's recent pass rate for this schema, a confidence signal; null = unknown */
  history?: number | null;
  /** a confidence the provider reported itself */
  providerConfidence?: number;
}
