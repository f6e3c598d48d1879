// Building blocks for selection-policy tests: a provider manifest with overrides, and a measurement.
import type { Measurement } from '../../src/ledger/events.js';
import type { ProviderManifest } from '../../src/registry/manifest.js';

/** A shell provider for extract@1 with everything a manifest needs; `over` changes any of it. */
export function provider(id: string, over: Partial<ProviderManifest> = {}): ProviderManifest {
  return {
    manifest: 'provider@1', id, implements: ['extract@1'], kind: 'shell', command: ['x'], limits: { timeout_ms: 1000, max_output_bytes: 1000 },
    max_input_bytes: 100_000, resource: null, cost: null, security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: null, escalates_to: [], priority: 100, ...over,
  } as ProviderManifest;
}

/** A measured observation summary; `over` sets what the test is about. */
export const measurement = (over: Partial<Measurement>): Measurement => ({ pass_rate: null, n: 0, p50_ms: null, p90_ms: null, source: 'measured', ...over });
