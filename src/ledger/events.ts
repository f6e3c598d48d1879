/**
 * The ledger's event vocabulary — the one owner of event types and fields.
 *
 * It is deliberately the vocabulary of the Python picoharness memory layer
 * (design §2, seed 001), so either implementation's indexes can read the
 * other's sessions. Extend it; never rename a type or a field. The writer
 * validates every event against these schemas before it is appended, so a
 * misspelt field is a bug caught at the source, not a hole in the ledger.
 * Readers of foreign ledgers (memory ingest) read lines loosely on their own.
 */
import { z } from '../base/zod.js';
import { TRUST_LEVELS } from '../base/trust.js';
import { budgetClassSchema } from '../base/ids.js';
import { goalPartSchema } from '../base/goal-part.js';

export const trustSchema = z.enum(TRUST_LEVELS);
export { BUDGET_CLASSES, budgetClassSchema, type BudgetClass } from '../base/ids.js';

/** Budget spent so far in a session (all limits of design §4). */
export const budgetSpentSchema = z.strictObject({
  wall_ms: z.number().nonnegative(),
  model_calls: z.number().int().nonnegative(),
  cpu_ms: z.number().nonnegative(),
});
export type BudgetSpent = z.infer<typeof budgetSpentSchema>;

const base = {
  seq: z.number().int().nonnegative(),
  t: z.string(),
  session_id: z.string().min(1),
};

/** Why a tool read nothing, in the tool manifest's plain words (seam §7): absent, unreadable and empty are different causes. */
const toolCause = z.strictObject({ id: z.string(), plain: z.string() });

/** Fields every failure event carries (design §2). */
const failure = {
  ...base,
  step: z.string(),
  provider: z.string().nullable(),
  capability: z.string().nullable(),
  schema: z.string().nullable(),
  error: z.string(),
  attempt: z.number().int().nonnegative(),
  /** trust of the error text: an error can quote what it could not parse */
  detail_trust: trustSchema.optional(),
  tool: z.string().optional(),
  fixes: z.array(z.string()).optional(),
};

/** Measured numbers per provider and schema, read once per job (design §3). */
export const measurementSchema = z.strictObject({
  pass_rate: z.number().min(0).max(1).nullable(),
  n: z.number().int().nonnegative(),
  p50_ms: z.number().nonnegative().nullable(),
  p90_ms: z.number().nonnegative().nullable(),
  source: z.enum(['measured', 'manifest', 'none']),
  /** the provider identity (manifest + program + prompt digest) whose observations were read */
  identity: z.string().nullable().optional(),
  /** the window read: the newest `last_n` observations, none before `since` */
  window: z.strictObject({ last_n: z.number().int().positive(), since: z.string() }).optional(),
});
export type Measurement = z.infer<typeof measurementSchema>;

export const planStepSchema = z.strictObject({
  step: z.string(),
  tool: z.string().nullable(),
  args: z.record(z.string(), z.unknown()),
  capability: z.string(),
  schema: z.string(),
  from: z.array(z.string()),
});

/** The seam's shapes: a sentence's source (step, fact_added seq), a part's ask and act (§1), one answer sentence: its facts or fixed phrase (§4). */
const sourceSchema = z.strictObject({ step: z.string(), seq: z.number().int().nonnegative() });
export const askSchema = z.strictObject({ kind: z.string(), name: z.string().optional(), noun: z.string().optional() });
const actSchema = z.strictObject({ verb: z.string(), object: z.string().nullable() });
export const sentenceSchema = z.strictObject({ text: z.string(), part: z.number().int().nonnegative().optional(), from: z.array(sourceSchema), fixed: z.string().optional(), selection: askSchema.extend({ field: z.string(), result: z.unknown() }).optional() });
export type AnswerSentence = z.infer<typeof sentenceSchema>;

export const eventSchemas = {
  composition: z.strictObject({
    ...base, type: z.literal('composition'),
    hash: z.string(), machine: z.string(), config: z.string(),
  }),
  user_input: z.strictObject({
    ...base, type: z.literal('user_input'),
    text: z.string(), trust: trustSchema, budget_class: budgetClassSchema,
    job: z.record(z.string(), z.unknown()),
  }),
  policy_snapshot: z.strictObject({
    ...base, type: z.literal('policy_snapshot'),
    /** provider id -> schema id -> measurement */
    measurements: z.record(z.string(), z.record(z.string(), measurementSchema)),
    source: z.string(),
    /** for a goal-only job: what memory tells its planner (text-free avoidance lines, trusted facts only) */
    planner_memory: z.strictObject({ avoidance: z.array(z.string()), known: z.array(z.string()) }).optional(),
    /** for a goal-only job: the trajectory cache's entry for this goal and these tools, or null (read once) */
    plan_cache: z.strictObject({ entry: z.string(), key: z.string(), steps: z.array(planStepSchema) }).nullable().optional(),
  }),
  plan_created: z.strictObject({
    ...base, type: z.literal('plan_created'),
    /** the whole plan the session follows from here: after a replan, the steps already done and the new ones */
    steps: z.array(planStepSchema),
    /** who made it: the job file's plan, a playbook, a model, the retrieval planner, or the trajectory cache (absent in older ledgers: operator) */
    source: z.enum(['operator', 'playbook', 'model', 'cache', 'retrieval']).optional(),
    /** the planner's identity (provider id, with weights hash for models); null for the operator's plan */
    provider: z.string().nullable().optional(),
    /** the tools retrieval put before the planner, best first, with their BM25 scores */
    retrieved: z.array(z.strictObject({ name: z.string(), score: z.number() })).optional(),
    /** the planner prompt's token count, and whether a tokenizer (not the estimator) counted it */
    prompt_tokens: z.number().int().min(0).nullable().optional(),
    tokens_exact: z.boolean().optional(),
    /** the disclosure level the tools were shown at (full, brief, title) */
    level: z.enum(['full', 'brief', 'title']).nullable().optional(),
    /** the playbooks that matched the goal */
    playbooks: z.array(z.string()).optional(),
    /** the goal's parts as the agent read them, in order (seam §1: src/base/goal-part.ts) */
    parts: z.array(goalPartSchema).optional(),
    /** calls the planner proposed more than once, dropped (each ran once) */
    repeats_dropped: z.number().int().min(1).optional(),
    /** set on a replan: the step whose failure caused it, its failure kind, and the tools to avoid */
    replan: z.strictObject({ after: z.string(), kind: z.string(), avoid: z.array(z.string()) }).optional(),
    /** source cache: the session whose answered plan is reused, and the cache key it matched */
    cache: z.strictObject({ entry: z.string(), key: z.string() }).optional(),
  }),
  /** follow-ups (issue 31): read-only steps added before the answer after a round's facts; `because` names the fact (step, seq, field) behind each step it `adds` */
  plan_extended: z.strictObject({
    ...base, type: z.literal('plan_extended'), round: z.number().int().min(1), steps: z.array(planStepSchema).min(1),
    because: z.array(z.strictObject({ step: z.string(), seq: z.number().int().nonnegative(), field: z.string(), why: z.string(), adds: z.string() })).min(1),
    source: z.enum(['playbook', 'model']), provider: z.string().nullable(), part: z.number().int().nonnegative().nullable(),
  }),
  /** a cached plan's first step gave up: the entry is not reused (memory derives that), and the goal is planned afresh */
  cache_dropped: z.strictObject({
    ...base, type: z.literal('cache_dropped'),
    entry: z.string(), key: z.string(), step: z.string(), reason: z.string(),
  }),
  step_started: z.strictObject({
    ...base, type: z.literal('step_started'),
    step: z.string(), tool: z.string().nullable(), trust: trustSchema,
    capability: z.string(), schema: z.string(),
    /** the budget spent when the step started: what the policy's cost filter saw (and a replay sees) */
    spent: budgetSpentSchema,
  }),
  tool_output: z.strictObject({
    ...base, type: z.literal('tool_output'),
    step: z.string(), tool: z.string(),
    /** `sha256:<hex>` of the output in blobs/, or null when it is small enough to stand inline in `text` */
    blob: z.string().nullable(), text: z.string().optional(), bytes: z.number().int().nonnegative(),
    exit_code: z.number().int().nullable(), duration_ms: z.number().nonnegative(),
    truncated: z.boolean(),
  }),
  /** a tool's output was compacted to a model's token budget before the model read it: what it saw, and what was cut */
  input_compacted: z.strictObject({
    ...base, type: z.literal('input_compacted'),
    step: z.string(), provider: z.string(),
    /** the compacted text, inline or in blobs/, exactly as the provider is shown it */
    blob: z.string().nullable(), text: z.string().optional(), bytes: z.number().int().nonnegative(),
    kind: z.enum(['log', 'json']), budget_tokens: z.number().int().nonnegative(),
    original_bytes: z.number().int().nonnegative(), original_tokens: z.number().int().nonnegative(), kept_tokens: z.number().int().nonnegative(),
    /** 1-based line ranges cut from a log (empty for JSON) */
    cut: z.array(z.strictObject({ from_line: z.number().int(), to_line: z.number().int() })),
    failure_lines: z.strictObject({ total: z.number().int(), kept: z.number().int() }).nullable(),
    /** JSON cuts (arrays shortened, strings clipped), at most the first 32, and how many there were */
    json_cuts: z.number().int().nonnegative(),
  }),
  provider_called: z.strictObject({
    ...base, type: z.literal('provider_called'),
    step: z.string(), provider: z.string(), capability: z.string(), schema: z.string(),
    duration_ms: z.number().nonnegative(), outcome: z.enum(['ok', 'failed', 'timeout', 'rejected']),
    attempt: z.number().int().nonnegative(),
    /** sha256 of the exact input the provider saw, rebuilt from the ledger */
    input_sha256: z.string(),
    input_bytes: z.number().int().nonnegative(),
    output_blob: z.string().nullable(),
    model_call: z.boolean(),
  }),
  fact_added: z.strictObject({
    ...base, type: z.literal('fact_added'),
    step: z.string(), provider: z.string(), capability: z.string(), schema: z.string(),
    fact: z.unknown(), trust: trustSchema, confidence: z.number().min(0).max(1).nullable(),
    duration_ms: z.number().nonnegative(), valid_until: z.string().nullable(),
    subject: z.string().nullable(), fixes: z.array(z.string()),
  }),
  grammar_failed: z.strictObject({ ...failure, type: z.literal('grammar_failed') }),
  validation_failed: z.strictObject({ ...failure, type: z.literal('validation_failed') }),
  range_failed: z.strictObject({ ...failure, type: z.literal('range_failed') }),
  crosscheck_failed: z.strictObject({ ...failure, type: z.literal('crosscheck_failed') }),
  critic_rejected: z.strictObject({ ...failure, type: z.literal('critic_rejected') }),
  tool_failed: z.strictObject({ ...failure, type: z.literal('tool_failed'), cause: toolCause.optional() }),
  tool_timeout: z.strictObject({ ...failure, type: z.literal('tool_timeout') }),
  tool_empty: z.strictObject({ ...failure, type: z.literal('tool_empty'), cause: toolCause.optional() }),
  capability_gap: z.strictObject({
    ...failure, type: z.literal('capability_gap'),
    /** why each candidate was filtered out, in filter order */
    rejected: z.array(z.strictObject({ provider: z.string(), filter: z.string(), reason: z.string() })),
    /** a planning gap in words a person reads (design §12), and what can be checked instead */
    plain: z.string().optional(),
    offers: z.array(z.string()).optional(),
  }),
  breaker_tripped: z.strictObject({ ...failure, type: z.literal('breaker_tripped'), breaker: z.string() }),
  budget_exhausted: z.strictObject({
    ...failure, type: z.literal('budget_exhausted'), spent: budgetSpentSchema, limit: z.string(),
  }),
  approval_denied: z.strictObject({
    ...failure, type: z.literal('approval_denied'),
    /** who denied (the OS user, or "timeout") and when; absent when no approver was configured */
    by: z.string().optional(), decided_at: z.string().optional(),
  }),
  step_failed: z.strictObject({
    ...failure, type: z.literal('step_failed'),
    /** true: not run because an operator cancelled the session (pico cancel); not a failure of anything, so memory keeps no failure for it */
    cancelled: z.literal(true).optional(),
  }),
  hook_rejected: z.strictObject({ ...failure, type: z.literal('hook_rejected'), phase: z.string(), hook: z.string() }),
  approval_requested: z.strictObject({
    ...base, type: z.literal('approval_requested'), step: z.string(), reason: z.string(),
    /** the destructive tool and its checked arguments, as a person is asked to approve them */
    tool: z.string().optional(), args: z.record(z.string(), z.unknown()).optional(),
  }),
  approval_granted: z.strictObject({
    ...base, type: z.literal('approval_granted'), step: z.string(), by: z.string(),
    /** when the person decided (the decision file's time) */
    decided_at: z.string().optional(),
  }),
  escalated: z.strictObject({
    ...base, type: z.literal('escalated'), step: z.string(), from: z.string(), to: z.string(), reason: z.string(),
  }),
  resumed: z.strictObject({
    ...base, type: z.literal('resumed'), after_seq: z.number().int().nonnegative(), reason: z.string(),
  }),
  declined: z.strictObject({
    ...base, type: z.literal('declined'), reason: z.string(), missing: z.array(z.string()),
  }),
  /** Each part of the goal answered, partial or not checked, decided once before the answer step (seam §2; src/agent/answer/coverage.ts) */
  coverage: z.strictObject({ ...base, type: z.literal('coverage'), parts: z.array(z.strictObject({
    text: z.string(), status: z.enum(['answered', 'partial', 'unchecked']), steps: z.array(z.string()), from: z.array(sourceSchema),
    left: z.array(z.strictObject({ step: z.string(), what: z.string(), why: z.string() })).optional(), said: z.string().optional(), offers: z.array(z.string()).optional(),
    window: z.strictObject({ label: z.string(), from: z.array(sourceSchema) }).optional(), named: z.string().optional(), subject: z.string().optional(), ask: askSchema.optional(), act: actSchema.optional(), followups: z.array(z.strictObject({ step: z.string(), because: z.array(z.number().int().nonnegative()), why: z.string() })).optional(),
  })), stopped: z.string().optional() }),
  answer_sent: z.strictObject({
    ...base, type: z.literal('answer_sent'),
    outcome: z.enum(['answered', 'partial', 'declined', 'cancelled']),
    text: z.string(), missing: z.array(z.string()), trust: trustSchema,
    spent: budgetSpentSchema, sentences: z.array(sentenceSchema).optional(), // each with its sources (absent in older ledgers)
  }),
} as const;

export type EventType = keyof typeof eventSchemas;
export const EVENT_TYPES = Object.keys(eventSchemas) as EventType[];
export type EventOf<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;
export type LedgerEvent = { [K in EventType]: EventOf<K> }[EventType];
/** An event before the ledger stamps seq, t and session_id on it. */
export type NewEvent = { [K in EventType]: Omit<EventOf<K>, 'seq' | 't' | 'session_id'> }[EventType];

/** Failure event types, mapped to the failure-memory taxonomy of design §6. */
export const FAILURE_KIND = {
  grammar_failed: 'grammar',
  validation_failed: 'schema',
  range_failed: 'range',
  crosscheck_failed: 'crosscheck',
  critic_rejected: 'semantic',
  tool_failed: 'tool_error',
  tool_timeout: 'tool_timeout',
  tool_empty: 'empty',
  capability_gap: 'capability_gap',
  budget_exhausted: 'budget',
  approval_denied: 'approval_denied',
  breaker_tripped: 'unknown',
  step_failed: 'unknown',
  hook_rejected: 'unknown',
} as const satisfies Partial<Record<EventType, string>>;
export type FailureEventType = keyof typeof FAILURE_KIND;

/** Events after which a session is over. */
export const TERMINAL_TYPES = ['answer_sent'] as const;

/**
 * Each type's schema compiled by zod on its first use (z.compile: one straight-line function,
 * falling back to the schema's own parse, which words the failure): the schema above stays the
 * one definition. A job appends some 16 events; compiled, each costs the session worker under a
 * microsecond instead of four, and compiling a type takes about a millisecond. The event written
 * is the value given, its top-level keys in the schema's order (a line reads seq, t, session_id,
 * type, …) and nested values as they came, byte for byte what earlier versions wrote.
 */
const compiled = new Map<string, { check: z.ZodType; keys: string[] }>();

function compiledOf(type: string, schema: z.ZodType): { check: z.ZodType; keys: string[] } {
  let c = compiled.get(type);
  if (!c) compiled.set(type, (c = { check: z.compile(schema), keys: Object.keys((schema as z.ZodObject).shape) }));
  return c;
}

/** Validate one event of this implementation; throws with the type and path of the first problem. */
export function parseEvent(value: unknown): LedgerEvent {
  const type = (value as { type?: unknown })?.type;
  const schema = typeof type === 'string' ? (eventSchemas as Record<string, z.ZodType>)[type] : undefined;
  if (!schema) throw new TypeError(`unknown ledger event type ${JSON.stringify(type)}; known: ${EVENT_TYPES.join(', ')}`);
  const { check, keys } = compiledOf(type as string, schema);
  const r = check.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new TypeError(`ledger event ${type}: ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  const input = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (input[k] !== undefined) out[k] = input[k];
  return out as LedgerEvent;
}
