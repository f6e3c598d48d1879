// Issue 14 item 7: "budgets are ceilings". A hanging script made a 5 s interactive job take
// 10.1 s (two attempts of a provider, each given its own 5 s limit). Now a tool's and a
// provider's limits are cut to what is left of the budget, a retry or escalation starts only
// while budget remains, and a job ends within its class's wall limit plus WALL_GRACE_MS.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { WALL_GRACE_MS } from '../../src/runtime/budget.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { BUDGETS } from '../../src/runtime/settings.js';
import { exampleJob, makeRoot, newSession, put, script, shellProvider } from '../helpers/root.js';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const logStep = (events: readonly LedgerEvent[]) => events.filter((e) => 'step' in e && e.step === 'log');
const WALL = BUDGETS.interactive.wall_ms;

describe('the wall budget is a ceiling', () => {
  it('a hanging shell provider with a limit as long as the budget is cut to what is left and not retried once the budget is spent', async () => {
    const root = makeRoot();
    script(root, 'providers/hang.sh', 'cat >/dev/null; sleep 30');
    put(root, 'manifests/providers/hang.json', shellProvider('hang', ['providers/hang.sh'], { schemas: ['log_summary@2'], limits: { timeout_ms: WALL, max_output_bytes: 65536 } }));
    rmSync(join(root, 'manifests/providers/log-summary-parser.json'));
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    const t0 = performance.now();
    const result = await rt.runSession(id);
    const took = performance.now() - t0;
    expect(took).toBeLessThan(WALL + WALL_GRACE_MS);
    expect(result.outcome).toBe('partial');
    const log = logStep(readLedger(rt.sessionDir(id)));
    const calls = log.filter((e) => e.type === 'provider_called');
    expect(calls.map((e) => e.type === 'provider_called' && e.attempt)).toEqual([1]);
    expect(log.find((e) => e.type === 'tool_timeout')).toMatchObject({ error: expect.stringMatching(/cut to the \d+ ms left of the interactive budget/) });
    expect(log.find((e) => e.type === 'budget_exhausted')).toMatchObject({ limit: 'wall_ms', error: expect.stringMatching(/no further attempt starts/) });
    // the budget as the ledger records it: spent past the limit by no more than the grace
    const sent = readLedger(rt.sessionDir(id)).at(-1)!;
    expect(sent.type === 'answer_sent' && sent.spent.wall_ms).toBeLessThan(WALL + WALL_GRACE_MS);
    console.log(`spent ${sent.type === 'answer_sent' ? sent.spent.wall_ms : '?'} ms of ${WALL}; runSession took ${Math.round(took)} ms`);
  });

  it('a hanging tool whose own limit is six times the budget ends with the budget, and the answer still goes out', async () => {
    const root = makeRoot();
    put(root, 'manifests/tools/hang.json', {
      manifest: 'tool@1', name: 'hang', description: 'never returns', command: ['sleep', '60'], input_schema: { type: 'object', additionalProperties: false },
      output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 6 * WALL, max_output_bytes: 1000 },
    });
    rt = await openRuntime(root);
    const job = exampleJob();
    job.plan![1] = { ...job.plan![1]!, tool: 'hang', args: {} };
    const id = newSession(rt, job);
    const t0 = performance.now();
    const result = await rt.runSession(id);
    expect(performance.now() - t0).toBeLessThan(WALL + WALL_GRACE_MS);
    expect(result.outcome).toBe('partial');
    const events = readLedger(rt.sessionDir(id));
    expect(logStep(events).find((e) => e.type === 'tool_timeout')).toMatchObject({ error: expect.stringMatching(/cut to the \d+ ms left/) });
    expect(events.at(-1)).toMatchObject({ type: 'answer_sent' });
  });
});
