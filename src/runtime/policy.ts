/**
 * The selection policy: `select(capability, input, budget)` (design §3).
 *
 * Six filters in order — implements it (and the schema) → fits the input
 * size → admits the input's trust → control flag matches → measured pass
 * rate clears the floor → p90 cost fits the remaining budget. A measurement
 * filter lets "no measurement yet" through; the pass rate is the live one
 * from five observations up, else the one `pico eval --save` wrote into the
 * manifest's `measured`. Survivors are ordered code first,
 * then cheapest, then manifest priority, then id. Every rejection is kept
 * with its reason, so an empty result becomes a `capability_gap` event that
 * says why. The policy reads only what it is given: measurements come from
 * the session's recorded `policy_snapshot`, never from a live database, so a
 * replay routes exactly as the run did. A `PolicyOverride` (counterfactual
 * replay only, src/counterfactual/) may exclude providers, move the floor, cap
 * the p90 and put preferred providers or kinds first; the live runtime never
 * passes one.
 */
import type { Measurement } from '../ledger/events.js';
import type { CapabilityManifest, ProviderManifest } from '../registry/manifest.js';
import { STRICTEST } from '../registry/manifest.js';
import { admits, isControlSafe, type Trust } from '../base/trust.js';
import { BREAKERS, MIN_OBSERVATIONS, MIN_PASS_RATE } from './settings.js';

export interface SelectRequest {
  capability: CapabilityManifest;
  schemaId: string;
  inputTrust: Trust;
  inputBytes: number;
  /** wall ms left in the budget */
  remainingMs: number;
  /** provider id -> schema id -> measurement, from the policy snapshot */
  measurements: Record<string, Record<string, Measurement>>;
  /** model-kind providers: the adapter says which kinds are models */
  isModel: (p: ProviderManifest) => boolean;
  /** another policy to select under (counterfactual replay); absent: the live default */
  policy?: PolicyOverride;
}

/** What a `policy@1` file changes about selection; every field optional. */
export interface PolicyOverride {
  min_pass_rate?: number;
  /** provider ids or kinds, first = most preferred; ordering before the default one */
  prefer?: readonly string[];
  exclude?: readonly string[];
  max_p90_ms?: number;
}

export interface Rejection {
  provider: string;
  filter: 'implements' | 'excluded' | 'size' | 'trust' | 'control' | 'pass_rate' | 'cost';
  reason: string;
}

export interface Selection {
  candidates: ProviderManifest[];
  rejected: Rejection[];
}

/** The most bytes this provider may be shown. */
export function inputLimit(p: ProviderManifest, isModel: boolean): number {
  return isModel ? Math.min(p.max_input_bytes, BREAKERS.max_bytes_to_model) : p.max_input_bytes;
}

/**
 * The p90 cost this policy charges for a provider: measured when the cost model had enough calls
 * (`source: 'measured'` — calls, not pass-rate observations: a call that timed out has no ladder
 * outcome but consumed its time), else the manifest's.
 */
export function chargedP90(p: ProviderManifest, m: Measurement | undefined): number | null {
  if (m && m.source === 'measured' && m.p90_ms !== null) return m.p90_ms;
  return p.cost?.p90_ms ?? null;
}

/** The pass rate the floor judges: live observations once there are enough, else the manifest's `pico eval` measurement. */
export function judgedPassRate(p: ProviderManifest, capability: string, schemaId: string, m: Measurement | undefined): { pass_rate: number; n: number; what: 'measured' | 'eval' } | null {
  if (m && m.n >= MIN_OBSERVATIONS && m.pass_rate !== null) return { pass_rate: m.pass_rate, n: m.n, what: 'measured' };
  const e = p.measured?.[capability]?.[schemaId];
  return e && e.n >= MIN_OBSERVATIONS ? { pass_rate: e.pass_rate, n: e.n, what: 'eval' } : null;
}

/** Filter and order every provider for one call. */
export function select(providers: Iterable<ProviderManifest>, req: SelectRequest): Selection {
  const rejected: Rejection[] = [];
  const ok: { p: ProviderManifest; p90: number | null }[] = [];
  const cap = req.capability;
  for (const p of providers) {
    if (!p.implements.includes(cap.id)) continue; // not a candidate at all
    const reject = (filter: Rejection['filter'], reason: string) => rejected.push({ provider: p.id, filter, reason });
    if (p.schemas && !p.schemas.includes(req.schemaId)) {
      reject('implements', `implements ${cap.id} but not for schema ${req.schemaId} (only ${p.schemas.join(', ')})`);
      continue;
    }
    if (req.policy?.exclude?.includes(p.id)) {
      reject('excluded', 'excluded by the policy file');
      continue;
    }
    const limit = inputLimit(p, req.isModel(p));
    if (req.inputBytes > limit) {
      reject('size', `input is ${req.inputBytes} bytes, over its limit of ${limit}`);
      continue;
    }
    const sec = p.security[cap.id] ?? STRICTEST;
    if (!admits(sec.max_trust_in, req.inputTrust)) {
      reject('trust', `input trust ${req.inputTrust} is not admitted (max_trust_in ${sec.max_trust_in})`);
      continue;
    }
    if (cap.control && (!sec.may_emit_control || !isControlSafe(req.inputTrust))) {
      reject('control', sec.may_emit_control ? `a control decision cannot be made from ${req.inputTrust} input` : `${cap.id} is a control capability and this provider may not emit control`);
      continue;
    }
    if (!cap.control && sec.may_emit_control) {
      reject('control', `${cap.id} is a data capability; a provider flagged may_emit_control does not serve it`);
      continue;
    }
    const m = req.measurements[p.id]?.[req.schemaId];
    const rate = judgedPassRate(p, cap.id, req.schemaId, m);
    const floor = req.policy?.min_pass_rate ?? MIN_PASS_RATE;
    if (rate && rate.pass_rate < floor) {
      reject('pass_rate', `${rate.what} pass rate ${(rate.pass_rate * 100).toFixed(0)}% over ${rate.n} ${rate.what === 'measured' ? 'calls' : 'eval cases'} is below ${floor * 100}%`);
      continue;
    }
    const p90 = chargedP90(p, m);
    if (p90 !== null && p90 > req.remainingMs) {
      reject('cost', `p90 ${Math.round(p90)} ms does not fit the ${Math.round(req.remainingMs)} ms left`);
      continue;
    }
    const cap90 = req.policy?.max_p90_ms;
    if (cap90 !== undefined && p90 !== null && p90 > cap90) {
      reject('cost', `p90 ${Math.round(p90)} ms is over the policy's max_p90_ms of ${cap90}`);
      continue;
    }
    ok.push({ p, p90 });
  }
  const prefer = req.policy?.prefer ?? [];
  const rank = (p: ProviderManifest) => {
    const i = prefer.findIndex((x) => x === p.id || x === p.kind);
    return i < 0 ? prefer.length : i;
  };
  ok.sort((a, b) =>
    rank(a.p) - rank(b.p) ||
    Number(b.p.kind === 'code') - Number(a.p.kind === 'code') ||
    (a.p90 ?? Infinity) - (b.p90 ?? Infinity) ||
    a.p.priority - b.p.priority ||
    (a.p.id < b.p.id ? -1 : a.p.id > b.p.id ? 1 : 0)); // code-unit order: the same on every machine and locale
  return { candidates: ok.map((x) => x.p), rejected };
}
