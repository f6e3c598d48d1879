/**
 * Cost-model claims (issue 6): "below five observations the cost defers to
 * the manifest" and says so; failed calls count; cheapest() charges p90;
 * staleManifests() flags declared costs far from measured; the policy's
 * measurements work before any database exists, without creating one.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CostModel, MIN_OBSERVATIONS } from '../../src/memory/cost.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { MeasurementReader, ingestAfterJob, readMeasurements } from '../../src/memory/runtime-api.js';
import { tempRoot, writeSession } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
beforeEach(() => {
  t = tempRoot();
});
afterEach(() => t.cleanup());

/** The ledgers these tests write are stamped from 2026-01-01; the window is read as of the next day. */
const NOW = { now: Date.UTC(2026, 0, 2) };
const WINDOW = { last_n: 50, since: '2025-12-19T00:00:00.000Z' };

const call = (provider: string, ms: number, outcome = 'ok', schema = 'log_summary@2') => ({
  type: 'provider_called', step: 's1', provider, capability: 'extract@1', schema, duration_ms: ms, outcome,
  attempt: 0, input_sha256: 'x', input_bytes: 1, output_blob: null, model_call: true,
});
const fact = (provider: string, schema = 'log_summary@2') => ({
  type: 'fact_added', step: 's1', provider, capability: 'extract@1', schema, fact: { a: 1 }, trust: 'T2',
  confidence: null, duration_ms: 1, valid_until: null, subject: null, fixes: [],
});
const manifest = (id: string, cost: { p50_ms: number; p90_ms: number } | null) =>
  writeFileSync(join(t.manifests, `${id}.json`), JSON.stringify({ manifest: 'provider@1', id, kind: 'code', cost }));

describe('cost model', () => {
  it('below five observations the estimate defers to the manifest and says so', () => {
    manifest('slow-model', { p50_ms: 1000, p90_ms: 3000 });
    writeSession(t.sessions, 'c1', [call('slow-model', 10), call('slow-model', 12), call('slow-model', 11), call('slow-model', 9)]);
    const ix = MemoryIndex.open(t.db);
    ix.ingestDir(t.sessions);
    const cm = ix.cost(t.manifests);
    const e = cm.estimate('slow-model', 'log_summary@2');
    expect(e).toMatchObject({ n: 4, p50_ms: 1000, p90_ms: 3000, source: 'manifest' });
    expect(e.note).toMatch(/only 4 measured calls \(< 5\); using the manifest's declared cost/);
    writeSession(t.sessions, 'c2', [call('slow-model', 10)]);
    ix.ingestDir(t.sessions);
    expect(cm.estimate('slow-model', 'log_summary@2')).toMatchObject({ n: MIN_OBSERVATIONS, p50_ms: 10, p90_ms: 12, source: 'measured' });
    ix.close();
  });

  it('with neither five calls nor a declared cost there is no estimate, and the note says how to get one', () => {
    writeSession(t.sessions, 'c1', [call('new-model', 10)]);
    const ix = MemoryIndex.open(t.db);
    ix.ingestDir(t.sessions);
    expect(ix.cost(t.manifests).estimate('new-model', 'log_summary@2')).toMatchObject({ source: 'none', p50_ms: null, p90_ms: null, n: 1 });
    ix.close();
  });

  it('failed and timed-out calls count: they consumed the time', () => {
    writeSession(t.sessions, 'c1', [
      call('p', 100), call('p', 100), call('p', 100), call('p', 100), call('p', 100), call('p', 100),
      call('p', 100), call('p', 100), call('p', 5000, 'timeout'), call('p', 4000, 'failed'),
    ]);
    const ix = MemoryIndex.open(t.db);
    ix.ingestDir(t.sessions);
    expect(ix.cost(t.manifests).estimate('p', 'log_summary@2')).toMatchObject({ n: 10, p50_ms: 100, p90_ms: 4000, source: 'measured' });
    ix.close();
  });

  it('cheapest() charges p90: a usually-fast provider with a slow tail loses to a steady one', () => {
    const spiky = [10, 10, 10, 10, 10, 10, 10, 10, 900, 900].map((ms) => call('spiky', ms));
    const steady = [100, 100, 100, 100, 100, 100, 100, 100, 100, 100].map((ms) => call('steady', ms));
    writeSession(t.sessions, 'c1', [...spiky, ...steady]);
    manifest('declared-only', { p50_ms: 500, p90_ms: 600 });
    const ix = MemoryIndex.open(t.db);
    ix.ingestDir(t.sessions);
    const cm = ix.cost(t.manifests);
    expect(cm.cheapest(['spiky', 'steady', 'declared-only', 'unknown'], 'log_summary@2')?.provider).toBe('steady');
    expect(cm.cheapest(['unknown'], 'log_summary@2')).toBeNull();
    ix.close();
  });

  it('staleManifests() flags a declared cost far from the measured one, and leaves a close one alone', () => {
    manifest('drifted', { p50_ms: 100, p90_ms: 150 });
    manifest('honest', { p50_ms: 100, p90_ms: 150 });
    writeSession(t.sessions, 'c1', [
      ...[400, 400, 420, 450, 500].map((ms) => call('drifted', ms)),
      ...[90, 100, 110, 120, 140].map((ms) => call('honest', ms)),
    ]);
    const ix = MemoryIndex.open(t.db);
    ix.ingestDir(t.sessions);
    const stale = ix.cost(t.manifests).staleManifests();
    expect(stale.map((s) => [s.provider, s.ratio_p50])).toEqual([['drifted', 4.2]]);
    expect(() => ix.cost(t.manifests).staleManifests({ factor: 1 })).toThrow(/factor must be above 1/);
    ix.close();
  });

  it('a broken manifest is reported by file, not thrown, and the others still count', () => {
    writeFileSync(join(t.manifests, 'broken.json'), '{ not json');
    manifest('fine', { p50_ms: 1, p90_ms: 2 });
    const ix = MemoryIndex.open(t.db);
    const cm = ix.cost(t.manifests);
    expect(cm.problems).toHaveLength(1);
    expect(cm.problems[0]).toMatch(/broken\.json: not readable JSON/);
    expect(cm.estimate('fine', null).source).toBe('manifest');
    ix.close();
  });
});

describe('measurements for the policy snapshot', () => {
  it('pass rate from facts against ladder failures, cost by the five-call rule, null without observations', () => {
    manifest('m1', { p50_ms: 50, p90_ms: 80 });
    writeSession(t.sessions, 'p1', [
      call('m1', 10), fact('m1'), call('m1', 10), fact('m1'), call('m1', 10), fact('m1'),
      call('m1', 10), { type: 'grammar_failed', step: 's1', provider: 'm1', capability: 'extract@1', schema: 'log_summary@2', error: 'x', attempt: 0 },
    ]);
    const ix = MemoryIndex.open(t.db);
    ix.ingestDir(t.sessions);
    const m = ix.cost(t.manifests).measurementsFor(['m1', 'm2'], ['log_summary@2', 'other@1'], NOW);
    expect(m).toEqual({
      m1: {
        'log_summary@2': { pass_rate: 0.75, n: 4, p50_ms: 50, p90_ms: 80, source: 'manifest', identity: null, window: WINDOW },
        'other@1': { pass_rate: null, n: 0, p50_ms: 50, p90_ms: 80, source: 'manifest', identity: null, window: WINDOW },
      },
      m2: {
        'log_summary@2': { pass_rate: null, n: 0, p50_ms: null, p90_ms: null, source: 'none', identity: null, window: WINDOW },
        'other@1': { pass_rate: null, n: 0, p50_ms: null, p90_ms: null, source: 'none', identity: null, window: WINDOW },
      },
    });
    ix.close();
    expect(readMeasurements(t.root, ['m1'], ['log_summary@2'], NOW)).toEqual({ m1: m.m1 && { 'log_summary@2': m.m1['log_summary@2'] } });
  });

  it("the daemon worker's reader keeps an answer until the database changes, then reads the new observations", () => {
    manifest('m1', { p50_ms: 50, p90_ms: 80 });
    const reader = new MeasurementReader(t.root);
    // before any database: the declared cost, kept between jobs as well
    const declared = reader.read(['m1'], ['log_summary@2'], NOW);
    expect(declared.m1!['log_summary@2']).toMatchObject({ n: 0, p50_ms: 50, source: 'manifest' });
    expect(reader.read(['m1'], ['log_summary@2'], NOW)).toBe(declared);
    const ix = MemoryIndex.open(t.db);
    writeSession(t.sessions, 'r1', [call('m1', 10), fact('m1'), call('m1', 10), fact('m1')]);
    ix.ingestDir(t.sessions);
    const first = reader.read(['m1'], ['log_summary@2'], NOW);
    expect(first.m1!['log_summary@2']).toMatchObject({ n: 2, pass_rate: 1, source: 'manifest' });
    expect(reader.read(['m1'], ['log_summary@2'], NOW)).toBe(first); // unchanged database: the kept answer, no queries
    // an ingest by another connection (the worker's, between jobs) makes the next read fresh
    writeSession(t.sessions, 'r2', [call('m1', 30), fact('m1'), call('m1', 30), fact('m1'), call('m1', 30), { type: 'grammar_failed', step: 's1', provider: 'm1', capability: 'extract@1', schema: 'log_summary@2', error: 'x', attempt: 0 }]);
    ix.ingestDir(t.sessions);
    const second = reader.read(['m1'], ['log_summary@2'], NOW);
    expect(second).not.toBe(first);
    expect(second.m1!['log_summary@2']).toMatchObject({ n: 5, pass_rate: 0.8, p50_ms: 30, source: 'measured' });
    // the manifests changed: declared costs are read again
    manifest('m1', { p50_ms: 5, p90_ms: 8 });
    reader.forget();
    expect(reader.read(['m1'], ['other@1'], NOW).m1!['other@1']).toMatchObject({ n: 0, p50_ms: 5, source: 'manifest' });
    reader.close();
    ix.close();
  });

  it('readMeasurements works before the database exists, and creates no file', () => {
    manifest('m1', { p50_ms: 50, p90_ms: 80 });
    expect(readMeasurements(t.root, ['m1', 'm2'], ['s@1'])).toEqual({
      m1: { 's@1': { pass_rate: null, n: 0, p50_ms: 50, p90_ms: 80, source: 'manifest' } },
      m2: { 's@1': { pass_rate: null, n: 0, p50_ms: null, p90_ms: null, source: 'none' } },
    });
    expect(existsSync(join(t.root, 'memory'))).toBe(false);
  });

  it('ingestAfterJob puts a finished session into the index without a manual step', () => {
    writeSession(t.sessions, 'job-1', [call('m1', 10), fact('m1')]);
    expect(ingestAfterJob(t.root, 'job-1')).toMatchObject({ status: 'new', facts: 1 });
    expect(readdirSync(join(t.root, 'memory'))).toContain('episodic.db');
    expect(readMeasurements(t.root, ['m1'], ['log_summary@2'], NOW).m1!['log_summary@2']).toMatchObject({ pass_rate: 1, n: 1 });
    expect(CostModel.declaredOnly(t.manifests, [], [])).toEqual({});
  });
});
