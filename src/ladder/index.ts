/**
 * The validation ladder (design §5): how a provider's output becomes a fact.
 *
 * `{text}` output climbs every rung: the readings of attempts.ts (strict,
 * extract, syntax repair), then for each reading the value rungs (keys,
 * coercion, enum, defaults — rungs/conform.ts), then levels 2–3 (schemas.ts),
 * then level 4 when the provider's input is given: the span rule (spans.ts)
 * and the schema's cross-check (the table in crosschecks.ts, which
 * src/crosschecks/ fills). The first reading that settles wins; when none
 * does, the refusal is the failure of the most faithful reading, classified
 * `grammar`, `schema`, `range` or `crosscheck`. A plain string schema takes
 * the text exactly as written (reader/wants.ts). Prose is the last and dearest
 * rung: only when no structural reading settles, never for a text that is
 * one JSON object or list — a union that takes a string takes the prose as
 * that string, else the scalar the prose names (read/prose.ts), refused
 * when it is ambiguous or negated.
 * `{value}` output (code providers) skips the repair rungs and gets levels
 * 2–4 only. Fixes are returned on success and on failure. The ladder writes
 * no ledger events; the runtime maps a failure kind to its event (EVENT_OF).
 */
import { readingGroups } from './attempts.js';
import { confidenceOf } from './confidence.js';
import { crossChecks } from './crosschecks.js';
import { costOf, fixTexts } from '../reader/fixes.js';
import { numberOf, proseScalar, readsProse } from '../reader/prose.js';
import { fail, settleAttempt, type Settled } from './settle.js';
import { toolCallValue, toolsFromSchema } from './toolcall.js';
import { admitsString, isOneStructure, takeRaw, wantsArray, wantsNumber, wantsString } from '../reader/wants.js';
import { checkValue, schemaFeatures } from './schemas.js';
import { checkSpans } from './spans.js';
import { type LadderOptions, type LadderResult, type SchemaHandle } from './types.js';

export { compileSchema, loadSchemaFile, checkValue } from './schemas.js';
export { canonicalJson, canonicalDigest } from './canonical.js';
export { repairToolCall, readToolCall, toolSetOf, toolsFromSchema, type ToolCallResult, type ToolSet, type ToolCall } from './toolcall.js';
export { fail } from './settle.js';


/** Run one output through the ladder against `schema`. */
export function runLadder(raw: { text: string } | { value: unknown }, schema: SchemaHandle, opts: LadderOptions = {}): LadderResult {
  const tools = 'text' in raw ? toolsFromSchema(schema) : null;
  if (tools && 'text' in raw) {
    const call = toolCallValue(raw.text, schema, tools);
    if (!call.ok) return call;
    return { ok: true, value: call.value, fixes: fixTexts(call.fixes), confidence: confidenceOf({ value: call.value, fixes: call.fixes, handle: schema, history: opts.history, providerConfidence: opts.providerConfidence }) };
  }
  const settled = 'text' in raw ? settleText(raw.text, schema) : settleValue(raw.value, schema);
  if (!settled.ok) return fail(settled.kind, settled.error, settled.fixes);
  if (opts.source !== undefined) {
    const problem = levelFour(settled.value, schema, opts.source);
    if (problem) return fail('crosscheck', problem, settled.fixes);
  }
  return {
    ok: true,
    value: settled.value,
    fixes: fixTexts(settled.fixes),
    confidence: confidenceOf({ value: settled.value, fixes: settled.fixes, handle: schema, history: opts.history, providerConfidence: opts.providerConfidence }),
  };
}

/** Levels 2–3 only, for values that need no repair. */
function settleValue(value: unknown, schema: SchemaHandle): Settled {
  const failure = checkValue(schema, value);
  return failure ? { ok: false, ...failure, fixes: [] } : { ok: true, value, fixes: [] };
}

/** Every group of readings in order: the first group with a reading that settles wins, its cheapest reading taken. */
function settleText(text: string, schema: SchemaHandle): Settled {
  if (text.trim() === '') return { ok: false, kind: 'grammar', error: `/: the output is empty; expected a JSON value for schema ${schema.id}`, fixes: [] };
  if (wantsString(schema.json)) {
    if (text.trim() === 'null' && checkValue(schema, null) === null) return { ok: true, value: null, fixes: [] };
    return settleAttempt({ ...takeRaw(text), weak: false }, schema);
  }
  let first: Settled | null = null;
  const written = wantsNumber(schema.json) ? numberOf(text) : undefined;
  if (written !== undefined) {
    const settled = settleAttempt({ value: written, fixes: [{ rung: 'coerce', text: 'read a number written with thousands separators or as a fraction' }], weak: false }, schema);
    if (settled.ok) return settled;
  }
  const proseObjects = (t: string): boolean => { const p = readsProse(schema.json) ? proseScalar(t, schema.json) : null; return p !== null && 'error' in p; };
  for (const group of readingGroups(text, wantsArray(schema.json), proseObjects)) {
    let best: Settled | null = null;
    let bestCost = Infinity;
    for (const attempt of group) {
      const settled = settleAttempt(attempt, schema, { wrapScalars: !attempt.weak && !attempt.fallback });
      if (settled.ok) {
        const cost = costOf(settled.fixes);
        if (cost < bestCost) { best = settled; bestCost = cost; }
      } else if (!attempt.weak && !first) first = settled;
    }
    if (best) return best;
  }
  // prose: the last and dearest rung, never for a text that is one JSON object or list
  if (!isOneStructure(text)) {
    if (admitsString(schema.json)) {
      // a union that takes a string: the prose is that string, not a number pulled out of it
      const settled = settleAttempt({ ...takeRaw(text), weak: false }, schema);
      if (settled.ok) return settled;
    }
    const prose = proseScalar(text, schema.json);
    if (prose && 'error' in prose) return { ok: false, kind: 'schema', error: prose.error, fixes: [] };
    if (prose) {
      const settled = settleAttempt({ value: prose.value, fixes: prose.fixes, weak: false }, schema);
      if (settled.ok) return settled;
    }
  }
  if (!first) {
    return { ok: false, kind: 'grammar', error: `/: no JSON value found in the text (${describeText(text)}); expected output matching schema ${schema.id}`, fixes: [] };
  }
  return first;
}

/** Level 4: the span rule, then the schema's own cross-check. */
function levelFour(value: unknown, schema: SchemaHandle, source: string): string | null {
  if (schemaFeatures(schema).hasExtractive) {
    const span = checkSpans(value, schema, source);
    if (span) return span;
  }
  const check = crossChecks[schema.id];
  return check ? check(value, source) : null;
}

/** A few words on what the text looked like, for a grammar error. */
function describeText(text: string): string {
  const t = text.trim();
  return `${t.length} characters starting ${JSON.stringify(t.slice(0, 30))}`;
}
