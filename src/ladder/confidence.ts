/**
 * Confidence: one number in [0,1] for every fact the ladder accepts, from
 * several signals, each in [0,1]:
 *
 *   signal          weight  meaning
 *   schema match    0.25    1 when the parsed value fit as written, 0.7 when keys,
 *                           types or enum values had to be repaired first
 *   completeness    0.20    share of the schema's top-level required fields that
 *                           are non-null (left out when nothing is required)
 *   repair cost     0.25    1 minus the summed cost of the fixes (FIX_COST in
 *                           reader/fixes.ts), never below 0
 *   history         0.15    this provider's recent pass rate for this schema
 *                           (left out when unknown)
 *   provider        0.15    the confidence the provider reported (left out
 *                           when it reported none)
 *
 * The weights of the signals present are renormalised to sum to 1, so a
 * missing signal is "not known", never "low". The runtime compares the score
 * with the manifest's floor; this module does not gate anything itself.
 */
import { costOf, type Fix } from '../reader/fixes.js';
import type { SchemaHandle } from './types.js';

export const CONFIDENCE_WEIGHTS = { schema: 0.25, completeness: 0.2, repair: 0.25, history: 0.15, provider: 0.15 } as const;

const VALUE_RUNGS = new Set(['keys', 'drop', 'coerce', 'wrap', 'pluck', 'collect', 'enum', 'prose', 'positional']);

export interface ConfidenceInput {
  value: unknown;
  fixes: readonly Fix[];
  handle: SchemaHandle;
  history?: number | null;
  providerConfidence?: number;
}

/** The weighted, renormalised score, rounded to 3 decimals. */
export function confidenceOf(input: ConfidenceInput): number {
  const signals: [number, number][] = [];
  const repairedValue = input.fixes.some((f) => VALUE_RUNGS.has(f.rung));
  signals.push([CONFIDENCE_WEIGHTS.schema, repairedValue ? 0.7 : 1]);
  const completeness = completenessOf(input.value, input.handle.json);
  if (completeness !== null) signals.push([CONFIDENCE_WEIGHTS.completeness, completeness]);
  const cost = costOf(input.fixes);
  signals.push([CONFIDENCE_WEIGHTS.repair, Math.max(0, 1 - cost)]);
  if (typeof input.history === 'number') signals.push([CONFIDENCE_WEIGHTS.history, clamp(input.history)]);
  if (typeof input.providerConfidence === 'number') signals.push([CONFIDENCE_WEIGHTS.provider, clamp(input.providerConfidence)]);
  const weight = signals.reduce((s, [w]) => s + w, 0);
  const score = signals.reduce((s, [w, v]) => s + w * v, 0) / weight;
  return Math.round(score * 1000) / 1000;
}

/** Non-null share of the root's required fields; null when the root requires nothing. */
export function completenessOf(value: unknown, schema: Record<string, unknown>): number | null {
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (required.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const obj = value as Record<string, unknown>;
  const present = required.filter((k) => obj[k] !== null && obj[k] !== undefined).length;
  return present / required.length;
}

function clamp(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
