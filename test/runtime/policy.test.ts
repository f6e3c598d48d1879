// The selection policy (design §3): six filters in order, code first, then cheapest; every rejection has a reason.
import { describe, expect, it } from 'vitest';
import type { CapabilityManifest, ProviderManifest } from '../../src/registry/manifest.js';
import { select, type SelectRequest } from '../../src/runtime/policy.js';
import { measurement, provider } from '../helpers/policy.js';

const extract: CapabilityManifest = { manifest: 'capability@1', id: 'extract@1', description: '', control: false, schemas: ['log_summary@2', 'disk_usage@1'] };
const plan: CapabilityManifest = { manifest: 'capability@1', id: 'plan@1', description: '', control: true, schemas: ['plan@1'] };


const req = (over: Partial<SelectRequest> = {}): SelectRequest => ({
  capability: extract, schemaId: 'log_summary@2', inputTrust: 'T1', inputBytes: 100, remainingMs: 5000,
  measurements: {}, isModel: (p) => p.kind === 'gguf', ...over,
});
const m = measurement;

describe('policy', () => {
  it('prefers code, then the cheapest p90, then priority', () => {
    const code = provider('parser', { kind: 'code', entry: 'x' } as Partial<ProviderManifest>);
    const slow = provider('slow', { cost: { p50_ms: 100, p90_ms: 900 } });
    const fast = provider('fast', { cost: { p50_ms: 10, p90_ms: 90 } });
    expect(select([slow, fast, code], req()).candidates.map((p) => p.id)).toEqual(['parser', 'fast', 'slow']);
  });

  it('refuses a provider whose max_trust_in does not admit the input', () => {
    const strict = provider('strict', { security: { 'extract@1': { max_trust_in: 'T2', may_emit_control: false } } });
    const s = select([strict], req({ inputTrust: 'T1' }));
    expect(s.candidates).toEqual([]);
    expect(s.rejected[0]).toMatchObject({ provider: 'strict', filter: 'trust' });
  });

  it('a capability the manifest does not name gets the strictest security', () => {
    const s = select([provider('bare', { security: {} })], req({ inputTrust: 'T2' }));
    expect(s.rejected[0]?.filter).toBe('trust');
  });

  it('a control capability is never served from T1 input', () => {
    const planner = provider('planner', { implements: ['plan@1'], security: { 'plan@1': { max_trust_in: 'T2', may_emit_control: true } } });
    expect(select([planner], req({ capability: plan, schemaId: 'plan@1', inputTrust: 'T2' })).candidates.length).toBe(1);
    const s = select([planner], req({ capability: plan, schemaId: 'plan@1', inputTrust: 'T1' }));
    expect(s.candidates.length).toBe(0);
  });

  it('input over the size limit is filtered, and a model sees at most 8 kB', () => {
    const model = provider('model', { kind: 'gguf' } as Partial<ProviderManifest>);
    const s = select([model], req({ inputBytes: 9000 }));
    expect(s.rejected[0]).toMatchObject({ filter: 'size' });
  });

  it('a measured pass rate below the floor removes a provider; no measurement yet passes', () => {
    const bad = provider('bad');
    const fresh = provider('fresh');
    const s = select([bad, fresh], req({ measurements: { bad: { 'log_summary@2': m({ pass_rate: 0.1, n: 20 }) } } }));
    expect(s.candidates.map((p) => p.id)).toEqual(['fresh']);
    expect(s.rejected[0]).toMatchObject({ provider: 'bad', filter: 'pass_rate' });
  });

  it('fewer than five observations defer to the manifest', () => {
    const p = provider('p', { cost: { p50_ms: 10, p90_ms: 20 } });
    const s = select([p], req({ measurements: { p: { 'log_summary@2': m({ pass_rate: 0, n: 3, p90_ms: 99999, source: 'manifest' }) } } }));
    expect(s.candidates.length).toBe(1);
  });

  it('a p90 cost over the remaining budget is filtered', () => {
    const s = select([provider('p', { cost: { p50_ms: 10, p90_ms: 6000 } })], req({ remainingMs: 5000 }));
    expect(s.rejected[0]).toMatchObject({ filter: 'cost' });
  });

  it('a provider limited to other schemas is not selected for this one', () => {
    const s = select([provider('df', { schemas: ['disk_usage@1'] })], req());
    expect(s.rejected[0]).toMatchObject({ filter: 'implements' });
  });
});
