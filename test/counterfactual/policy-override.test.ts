// A policy@1 file as a parameter of selection (counterfactual replay only): exclusion, the floor,
// the p90 cap and preferences change what select() chooses; without one, nothing changes.
import { describe, expect, it } from 'vitest';
import type { CapabilityManifest, ProviderManifest } from '../../src/registry/manifest.js';
import { parsePolicy, PolicyFileError } from '../../src/counterfactual/policy-file.js';
import { select, type SelectRequest } from '../../src/runtime/policy.js';
import { measurement, provider } from '../helpers/policy.js';

const extract: CapabilityManifest = { manifest: 'capability@1', id: 'extract@1', description: '', control: false, schemas: ['log_summary@2'] };

const req = (over: Partial<SelectRequest> = {}): SelectRequest => ({
  capability: extract, schemaId: 'log_summary@2', inputTrust: 'T1', inputBytes: 100, remainingMs: 60_000,
  measurements: {}, isModel: (p) => p.kind === 'gguf', ...over,
});
const m = measurement;

const code = provider('parser', { kind: 'code', entry: 'x' } as Partial<ProviderManifest>);
const cheap = provider('cheap', { cost: { p50_ms: 10, p90_ms: 90 } });
const slow = provider('slow', { cost: { p50_ms: 100, p90_ms: 3000 } });
const ids = (r: SelectRequest) => select([slow, cheap, code], r).candidates.map((p) => p.id);

describe('policy override', () => {
  it('without a policy the default order holds; an empty policy changes nothing', () => {
    expect(ids(req())).toEqual(['parser', 'cheap', 'slow']);
    expect(ids(req({ policy: {} }))).toEqual(['parser', 'cheap', 'slow']);
  });

  it('an excluded provider is rejected with its own filter and reason', () => {
    const s = select([slow, cheap, code], req({ policy: { exclude: ['parser'] } }));
    expect(s.candidates.map((p) => p.id)).toEqual(['cheap', 'slow']);
    expect(s.rejected).toEqual([{ provider: 'parser', filter: 'excluded', reason: 'excluded by the policy file' }]);
  });

  it('prefer puts named ids and kinds first, in the order given, before code-first', () => {
    expect(ids(req({ policy: { prefer: ['shell'] } }))).toEqual(['cheap', 'slow', 'parser']);
    expect(ids(req({ policy: { prefer: ['slow', 'code'] } }))).toEqual(['slow', 'parser', 'cheap']);
  });

  it('min_pass_rate moves the floor both ways', () => {
    const measurements = { cheap: { 'log_summary@2': m({ pass_rate: 0.5, n: 10 }) }, slow: { 'log_summary@2': m({ pass_rate: 0.1, n: 10 }) } };
    expect(ids(req({ measurements }))).toEqual(['parser', 'cheap']);
    const strict = select([slow, cheap, code], req({ measurements, policy: { min_pass_rate: 0.6 } }));
    expect(strict.candidates.map((p) => p.id)).toEqual(['parser']);
    expect(strict.rejected.find((r) => r.provider === 'cheap')?.reason).toMatch(/below 60%/);
    expect(ids(req({ measurements, policy: { min_pass_rate: 0 } }))).toEqual(['parser', 'cheap', 'slow']);
  });

  it('max_p90_ms rejects a provider whose charged p90 is over it; an unmeasured one passes', () => {
    const s = select([slow, cheap, code], req({ policy: { max_p90_ms: 1000 } }));
    expect(s.candidates.map((p) => p.id)).toEqual(['parser', 'cheap']);
    expect(s.rejected).toEqual([{ provider: 'slow', filter: 'cost', reason: "p90 3000 ms is over the policy's max_p90_ms of 1000" }]);
  });
});

describe('policy@1 file', () => {
  const known = new Set(['parser', 'cheap']);
  const bad = (doc: unknown) => {
    try {
      parsePolicy(doc, 'p.json', known);
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyFileError);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it('a good file parses', () => {
    expect(parsePolicy({ policy: 'policy@1', min_pass_rate: 0.5, prefer: ['shell', 'cheap'], exclude: ['parser'], max_p90_ms: 200 }, 'p.json', known))
      .toMatchObject({ min_pass_rate: 0.5, exclude: ['parser'] });
  });

  it('an unknown key is named, with the keys there are', () => {
    expect(bad({ policy: 'policy@1', min_passrate: 0.5 })).toMatch(/p\.json: not a valid policy@1: unknown key\(s\) "min_passrate" \(the keys are policy, min_pass_rate/);
  });

  it('a wrong version or an out-of-range floor names the key', () => {
    expect(bad({ policy: 'policy@2' })).toMatch(/^p\.json: not a valid policy@1: policy: /);
    expect(bad({ policy: 'policy@1', min_pass_rate: 20 })).toMatch(/min_pass_rate: .*1/);
  });

  it('an excluded or preferred name the root does not know is an error, not a silent no-op', () => {
    expect(bad({ policy: 'policy@1', exclude: ['parsr'] })).toMatch(/exclude: "parsr" is not a provider of this root/);
    expect(bad({ policy: 'policy@1', prefer: ['shel'] })).toMatch(/prefer: "shel" is neither a provider of this root nor a kind/);
  });
});
