// Issue 14 item 6: "the policy forgets what no longer applies". A provider that timed out was
// locked out after it was fixed ("p90 5011 ms does not fit the 5000 ms left"), even across
// `memory rebuild`. Measurements now belong to a provider's identity (manifest, program and
// prompt digests), and only a window of them (the newest N, none older than D days) is read.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerText } from '../../bench/memory-gen.js';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { compositionHash, compositionText, type Composition } from '../../src/ledger/composition.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { providerDigests } from '../../src/memory/provider-identity.js';
import { replaySession } from '../../src/replay/replay.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { exampleJob, makeRoot, newSession, put, script, shellProvider } from '../helpers/root.js';
import { rmSync } from 'node:fs';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const GOOD = `cat >/dev/null; printf '%s' '{"host":"pi5","error_count":6,"first_error":null,"first_error_at":null,"service":null,"max_severity":"error","service_restarted":true}'`;

/** Sessions that called `provider` under `doc`, each once, taking `ms` and timing out; stamped from `start`. */
function history(root: string, doc: Composition, provider: string, n: number, ms: number, start: number, tag: string): void {
  const hash = compositionHash(doc);
  for (let i = 0; i < n; i++) {
    const id = `2026-01-01T00-00-00Z-hist${tag}${i}`;
    const dir = join(root, 'sessions', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'composition.json'), compositionText(doc));
    writeFileSync(join(dir, 'events.jsonl'), ledgerText(id, [
      { type: 'composition', hash, machine: 'sha256:m', config: 'composition.json' },
      { type: 'step_started', step: 'log', tool: 'read_file', trust: 'T1', capability: 'extract@1', schema: 'log_summary@2', spent: { wall_ms: 0, model_calls: 0, cpu_ms: 0 } },
      { type: 'provider_called', step: 'log', provider, capability: 'extract@1', schema: 'log_summary@2', duration_ms: ms, outcome: 'timeout',
        attempt: 1, input_sha256: 'x', input_bytes: 1, output_blob: null, model_call: false },
      { type: 'tool_timeout', step: 'log', provider, capability: 'extract@1', schema: 'log_summary@2', error: 'timed out', attempt: 1 },
    ], start + i * 60_000));
  }
}

function ingest(root: string, rebuild = false): void {
  const ix = MemoryIndex.open(join(root, 'memory', 'episodic.db'));
  try {
    if (rebuild) ix.rebuild(join(root, 'sessions'));
    else ix.ingestDir(join(root, 'sessions'));
  } finally {
    ix.close();
  }
}

const logStep = (events: readonly LedgerEvent[]) => events.filter((e) => 'step' in e && e.step === 'log');

describe('measurements belong to a provider identity', () => {
  it('a provider locked out by its timeouts is chosen again once its script is fixed, also after memory rebuild, and replay routes as the run did', async () => {
    const root = makeRoot();
    script(root, 'providers/x.sh', 'sleep 30');
    put(root, 'manifests/providers/x.json', shellProvider('x', ['providers/x.sh'], { schemas: ['log_summary@2'] }));
    rmSync(join(root, 'manifests/providers/log-summary-parser.json'));
    rt = await openRuntime(root);
    // five recent calls of the broken script, each cut at the 5 s limit
    history(root, rt.currentComposition().doc, 'x', 5, 5011, Date.now() - 3_600_000, 'a');
    ingest(root);

    const locked = newSession(rt, exampleJob());
    await rt.runSession(locked);
    const gap = logStep(readLedger(rt.sessionDir(locked))).find((e) => e.type === 'capability_gap');
    expect(gap && 'error' in gap ? gap.error : '').toMatch(/x: p90 5011 ms does not fit/);

    // the fix: a script that answers. Its digest changes, so it is a new identity with no history.
    script(root, 'providers/x.sh', GOOD);
    const fixed = newSession(rt, exampleJob());
    expect((await rt.runSession(fixed)).outcome).toBe('answered');
    const events = readLedger(rt.sessionDir(fixed));
    expect(logStep(events).find((e) => e.type === 'fact_added')).toMatchObject({ provider: 'x' });
    // the snapshot says which identity and window it read
    const snap = events.find((e) => e.type === 'policy_snapshot')!;
    const m = snap.type === 'policy_snapshot' ? snap.measurements.x!['log_summary@2']! : null;
    expect(m).toMatchObject({ n: 0, identity: providerDigests(rt.currentComposition().doc).x, window: { last_n: 50 } });

    // memory rebuilt from every ledger: the old identity's timeouts still do not count for the new one
    ingest(root, true);
    const again = newSession(rt, exampleJob());
    expect((await rt.runSession(again)).outcome).toBe('answered');
    const snap2 = readLedger(rt.sessionDir(again)).find((e) => e.type === 'policy_snapshot');
    expect(snap2?.type === 'policy_snapshot' && snap2.measurements.x!['log_summary@2']).toMatchObject({ n: 1, pass_rate: 1 });

    // memory moved on (two more sessions of the fixed identity); a replay of the fixed session still
    // routes on the snapshot it recorded and writes the same ledger
    ingest(root);
    const replay = await replaySession(rt, fixed);
    expect(replay.firstDifference).toBeNull();
    expect(replay.identical).toBe(true);
    // the locked session ran under the broken script: replay says the composition differs
    expect((await replaySession(rt, locked)).compositionDiffers).not.toBeNull();
  });

  it('a script run by an interpreter (["sh", "providers/y.sh"]) is part of the identity: editing it makes a new one', async () => {
    const root = makeRoot();
    script(root, 'providers/y.sh', GOOD);
    put(root, 'manifests/providers/y.json', shellProvider('y', ['sh', 'providers/y.sh'], { schemas: ['log_summary@2'] }));
    rt = await openRuntime(root);
    const before = providerDigests(rt.currentComposition().doc);
    script(root, 'providers/y.sh', `${GOOD} # fixed`);
    await rt.refresh();
    const after = providerDigests(rt.currentComposition().doc);
    expect(after.y).not.toBe(before.y);
    expect(after['disk-usage-parser']).toBe(before['disk-usage-parser']);
  });

  it('the same identity forgets calls older than the window and keeps only the newest N', async () => {
    const root = makeRoot();
    script(root, 'providers/x.sh', GOOD);
    put(root, 'manifests/providers/x.json', shellProvider('x', ['providers/x.sh'], { schemas: ['log_summary@2'] }));
    rmSync(join(root, 'manifests/providers/log-summary-parser.json'));
    rt = await openRuntime(root);
    const doc = rt.currentComposition().doc;
    // a slow spell 20 days ago: older than the 14-day window
    history(root, doc, 'x', 6, 5011, Date.now() - 20 * 86_400_000, 'old');
    ingest(root);
    const id = newSession(rt, exampleJob());
    expect((await rt.runSession(id)).outcome).toBe('answered');
    const snap = readLedger(rt.sessionDir(id)).find((e) => e.type === 'policy_snapshot');
    expect(snap?.type === 'policy_snapshot' && snap.measurements.x!['log_summary@2']).toMatchObject({ n: 0, source: 'none' });

    // within the window: 60 slow calls, then 50 fast ones; only the newest 50 are read
    history(root, doc, 'x', 60, 5011, Date.now() - 7_200_000, 'slow');
    ingest(root);
    const blocked = newSession(rt, exampleJob());
    await rt.runSession(blocked);
    expect(logStep(readLedger(rt.sessionDir(blocked))).some((e) => e.type === 'capability_gap')).toBe(true);
    for (let i = 0; i < 50; i++) history(root, doc, 'x', 1, i, Date.now() - 3_600_000 + i * 1000, `fast${i}-`);
    ingest(root);
    const free = newSession(rt, exampleJob());
    expect((await rt.runSession(free)).outcome).toBe('answered');
    const snap3 = readLedger(rt.sessionDir(free)).find((e) => e.type === 'policy_snapshot');
    expect(snap3?.type === 'policy_snapshot' && snap3.measurements.x!['log_summary@2']).toMatchObject({ source: 'measured' });
    expect(snap3?.type === 'policy_snapshot' && snap3.measurements.x!['log_summary@2']!.p90_ms!).toBeLessThan(1000);
  });
});
