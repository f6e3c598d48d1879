// The serial runtime end to end (issue 2): real roots, real tools through the world, real ledgers.
// "A three-step task runs end to end and replays identically."
import { readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { replaySession } from '../../src/replay/replay.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { exampleJob, makeRoot, newSession, put, REPO, script, shellProvider } from '../helpers/root.js';
import { parseJob } from '../../src/runtime/job.js';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const types = (events: readonly LedgerEvent[]) => events.map((e) => e.type);
const facts = (events: readonly LedgerEvent[]) => events.filter((e) => e.type === 'fact_added') as Extract<LedgerEvent, { type: 'fact_added' }>[];

/**
 * Run the example job to its end, then cut its ledger just after the first fact and the next
 * event (the log step has started) and drop result.json: as if the process died in that step.
 * `tail` is appended after the cut (a torn half line, say). Returns the session id and folder.
 */
async function diedInSecondStep(tail = ''): Promise<{ id: string; dir: string }> {
  rt = await openRuntime(makeRoot());
  const id = newSession(rt, exampleJob());
  await rt.runSession(id);
  const dir = rt.sessionDir(id);
  const cut = readLedger(dir).findIndex((e) => e.type === 'fact_added') + 2;
  const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').slice(0, cut);
  writeFileSync(join(dir, 'events.jsonl'), lines.join('\n') + '\n' + tail);
  rmSync(join(dir, 'result.json'));
  return { id, dir };
}

describe('session', () => {
  it('a three-step task runs end to end and replays identically', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    const result = await rt.runSession(id);
    expect(result.outcome).toBe('answered');
    expect(result.answer).toMatch(/94% full/);
    const events = readLedger(rt.sessionDir(id));
    expect(events[0]?.type).toBe('composition');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    const fs = facts(events);
    expect(fs.map((f) => f.step)).toEqual(['disk', 'log', 'answer']);
    for (const f of fs) {
      expect(f.provider).toBeTruthy();
      expect(f.schema).toBeTruthy();
      expect(f.trust).toBe('T1');
    }
    const doc = JSON.parse(readFileSync(result.resultPath!, 'utf8'));
    expect(doc.facts[0].provenance).toBe(`sessions/${id}/events.jsonl#${fs[0]!.seq}`);
    const replay = await replaySession(rt, id);
    expect(replay.firstDifference).toBeNull();
    expect(replay.identical).toBe(true);
  });

  it('a T1 fact is never returned as T2: the answer built from T1 facts is T1', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    await rt.runSession(id);
    const events = readLedger(rt.sessionDir(id));
    const started = events.filter((e) => e.type === 'step_started');
    expect(started.every((e) => e.type === 'step_started' && e.trust === 'T1')).toBe(true);
    expect(facts(events).every((f) => f.trust === 'T1')).toBe(true);
    expect(events.find((e) => e.type === 'answer_sent')).toMatchObject({ trust: 'T1' });
  });

  it('replay notices a changed output: a tampered recorded tool output makes the ledgers differ', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    await rt.runSession(id);
    const events = readLedger(rt.sessionDir(id));
    const out = events.find((e) => e.type === 'tool_output' && e.step === 'log');
    if (out?.type !== 'tool_output' || out.text === undefined) throw new Error('expected an inline tool output');
    // Rewrite the recorded log window to a quiet one: the replay reduces what the ledger holds.
    const quiet = 'Mar  3 14:00:00 pi5 cron[1]: (root) CMD (true)\n';
    const lines = readFileSync(join(rt.sessionDir(id), 'events.jsonl'), 'utf8').split('\n');
    lines[out.seq] = JSON.stringify({ ...out, text: quiet, bytes: Buffer.byteLength(quiet) });
    writeFileSync(join(rt.sessionDir(id), 'events.jsonl'), lines.join('\n'));
    const replay = await replaySession(rt, id);
    expect(replay.identical).toBe(false);
    expect(replay.firstDifference?.line).toBeGreaterThan(out.seq + 1);
  });

  it('a large tool output goes to a blob, a small one stands inline', async () => {
    const root = makeRoot();
    bigLog(root);
    rt = await openRuntime(root);
    const job = exampleJob();
    job.plan![1] = { ...job.plan![1]!, args: { path: 'examples/data/big.log' } };
    const id = newSession(rt, job);
    await rt.runSession(id);
    const outs = readLedger(rt.sessionDir(id)).filter((e) => e.type === 'tool_output') as Extract<LedgerEvent, { type: 'tool_output' }>[];
    expect(outs[0]).toMatchObject({ step: 'disk', blob: null });
    expect(outs[0]!.text).toContain('Filesystem');
    expect(outs[1]!.blob).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(outs[1]!.text).toBeUndefined();
    expect(readFileSync(join(rt.sessionDir(id), 'blobs', outs[1]!.blob!.slice(7)), 'utf8')).toBe(readFileSync(join(root, 'examples/data/big.log'), 'utf8'));
    expect((await replaySession(rt, id)).identical).toBe(true);
  });

  it('a capability with no provider declines clearly', async () => {
    const root = makeRoot();
    rm(root, 'manifests/providers/log-summary-parser.json');
    rm(root, 'manifests/providers/disk-usage-parser.json');
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    const result = await rt.runSession(id);
    expect(result.outcome).toBe('declined');
    expect(result.answer).toMatch(/cannot answer/);
    expect(result.answer).toMatch(/no local provider can serve extract@1 -> log_summary@2/);
    const events = readLedger(rt.sessionDir(id));
    expect(types(events)).toContain('capability_gap');
    expect(types(events)).toContain('declined');
  });

  it('a missing step makes a partial answer that names what is missing', async () => {
    const root = makeRoot();
    rm(root, 'manifests/providers/log-summary-parser.json');
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    const result = await rt.runSession(id);
    expect(result.outcome).toBe('partial');
    expect(result.answer).toMatch(/94% full/);
    expect(result.answer).toMatch(/missing: log \(log_summary@2\)/);
  });

  it('a provider that fails twice escalates, with the error fed back on the retry', async () => {
    const root = makeRoot();
    // A shell provider that answers with prose the ladder cannot use, echoing what it was told.
    script(root, 'providers/bad.sh', 'echo "I think the disk is fine. I was told:"; cat');
    script(root, 'providers/good.sh', `cat >/dev/null; printf '%s' '{"host":"pi5","error_count":6,"first_error":null,"first_error_at":null,"service":null,"max_severity":"error","service_restarted":true}'`);
    put(root, 'manifests/providers/good-extractor.json', shellProvider('good-extractor', ['providers/good.sh'], { schemas: ['log_summary@2'], priority: 2 }));
    put(root, 'manifests/providers/bad-extractor.json', shellProvider('bad-extractor', ['providers/bad.sh'], { schemas: ['log_summary@2'], escalates_to: ['good-extractor'], priority: 1 }));
    rm(root, 'manifests/providers/log-summary-parser.json');
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    await rt.runSession(id);
    const events = readLedger(rt.sessionDir(id)).filter((e) => 'step' in e && e.step === 'log');
    const bad = events.filter((e) => e.type === 'provider_called' && e.provider === 'bad-extractor') as Extract<LedgerEvent, { type: 'provider_called' }>[];
    expect(bad.map((e) => e.attempt)).toEqual([1, 2]);
    const failures = events.filter((e) => e.type === 'grammar_failed' || e.type === 'validation_failed') as Extract<LedgerEvent, { error: string }>[];
    expect(failures.length).toBe(2);
    expect(events.find((e) => e.type === 'escalated')).toMatchObject({ from: 'bad-extractor', to: 'good-extractor' });
    expect(facts(events)[0]?.provider).toBe('good-extractor');
    // The second attempt was shown the first attempt's error.
    const second = readFileSync(join(rt.sessionDir(id), 'blobs', bad[1]!.output_blob!.slice(7)), 'utf8');
    expect(JSON.parse(second.slice(second.indexOf('{'))).feedback).toBe(failures[0]!.error);
  });

  it('the swap test in miniature: a second shell provider added by a manifest alone serves the same job', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const first = await rt.runSession(newSession(rt, exampleJob()));
    await rt.close();
    copyFileSync(join(REPO, 'examples/manifests/disk-usage-sh.json'), join(root, 'manifests/providers/disk-usage-sh.json'));
    rm(root, 'manifests/providers/disk-usage-parser.json');
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    const second = await rt.runSession(id);
    expect(second.outcome).toBe('answered');
    const disk = facts(readLedger(rt.sessionDir(id))).find((f) => f.step === 'disk')!;
    expect(disk.provider).toBe('disk-usage-sh');
    const firstDisk = facts(readLedger(rt.sessionDir(first.sessionId))).find((f) => f.step === 'disk')!;
    expect(disk.fact).toEqual(firstDisk.fact);
  });

  it('a shell provider that prints fenced JSON with a trailing comma yields a valid fact whose ledger entry lists the fixes', async () => {
    const root = makeRoot();
    script(root, 'providers/fenced.sh', `cat >/dev/null; printf '%s\\n' 'Here is the summary:' '\`\`\`json' '{"host": "pi5", "error_count": 6, "first_error": null, "first_error_at": null, "service": null, "max_severity": "error", "service_restarted": true,}' '\`\`\`'`);
    put(root, 'manifests/providers/fenced.json', shellProvider('fenced', ['providers/fenced.sh'], { schemas: ['log_summary@2'] }));
    rm(root, 'manifests/providers/log-summary-parser.json');
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    await rt.runSession(id);
    const f = facts(readLedger(rt.sessionDir(id))).find((x) => x.step === 'log')!;
    expect(f.provider).toBe('fenced');
    expect(f.fact).toMatchObject({ host: 'pi5', error_count: 6 });
    expect(f.fixes.length).toBeGreaterThan(0);
  });

  it('a tool that hangs is stopped at its limit and the answer names the step as missing', async () => {
    const root = makeRoot();
    put(root, 'manifests/tools/hang.json', {
      manifest: 'tool@1', name: 'hang', description: 'never returns', command: ['sleep', '30'], input_schema: { type: 'object', additionalProperties: false },
      output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 300, max_output_bytes: 1000 },
    });
    rt = await openRuntime(root);
    const job = exampleJob();
    job.plan![1] = { ...job.plan![1]!, tool: 'hang', args: {} };
    const t0 = Date.now();
    const id = newSession(rt, job);
    const result = await rt.runSession(id);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(types(readLedger(rt.sessionDir(id)))).toContain('tool_timeout');
    expect(result.outcome).toBe('partial');
  });

  it('resumes after a crash: committed facts are kept, the step in flight is re-run, nothing is committed twice', async () => {
    // the power went mid-step: a torn half line after the cut
    const { id, dir } = await diedInSecondStep('{"seq":');
    const again = await rt!.runSession(id);
    expect(again.outcome).toBe('answered');
    const events = readLedger(dir);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(types(events)).toContain('resumed');
    const steps = facts(events).map((f) => f.step);
    expect(steps).toEqual(['disk', 'log', 'answer']);
    expect(events.filter((e) => e.type === 'answer_sent').length).toBe(1);
  });

  it('closing a session (closeReason) keeps its committed facts, runs no step, and ends its ledger with the rest not run', async () => {
    // as if the worker died in the log step, after the disk fact was committed
    const { id, dir } = await diedInSecondStep();
    const seen: string[] = [];
    const closed = await rt!.runSession(id, { closeReason: 'the worker died 3 times', onEvent: (e) => seen.push(e.type) });
    expect(closed.outcome).toBe('partial');
    expect(seen).not.toContain('step_started');
    const events = readLedger(dir);
    expect(facts(events).map((f) => f.step)).toEqual(['disk']);
    const notRun = events.filter((e) => e.type === 'step_failed');
    expect(notRun.map((e) => (e as { step: string }).step)).toEqual(['log', 'answer']);
    expect(notRun.every((e) => (e as { error: string }).error === 'not run: the worker died 3 times')).toBe(true);
    expect(events.filter((e) => e.type === 'answer_sent').length).toBe(1);
    // closed is finished: closing again, or running, adds nothing
    const before = readFileSync(join(dir, 'events.jsonl'), 'utf8');
    rmSync(join(dir, 'result.json'));
    expect((await rt!.runSession(id, { closeReason: 'again' })).outcome).toBe('partial');
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe(before);
  });

  it('a finished session is only re-closed, never run again', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const id = newSession(rt, exampleJob());
    await rt.runSession(id);
    const before = readFileSync(join(rt.sessionDir(id), 'events.jsonl'), 'utf8');
    rmSync(join(rt.sessionDir(id), 'result.json'));
    const again = await rt.runSession(id);
    expect(again.outcome).toBe('answered');
    expect(readFileSync(join(rt.sessionDir(id), 'events.jsonl'), 'utf8')).toBe(before);
  });

  it('a blob altered before the provider call stops the step rather than sending an unlogged input', async () => {
    const root = makeRoot();
    bigLog(root);
    let dir = '';
    rt = await openRuntime(root, {
      hooks: [{
        name: 'tamper', phases: ['SELECT'], run: (ctx) => {
          if (ctx.step !== 'log') return;
          const out = readLedger(dir).reverse().find((e) => e.type === 'tool_output');
          if (out?.type === 'tool_output' && out.blob) writeFileSync(join(dir, 'blobs', out.blob.slice(7)), 'something else');
        },
      }],
    });
    const job = exampleJob();
    job.plan![1] = { ...job.plan![1]!, args: { path: 'examples/data/big.log' } };
    const id = newSession(rt, job);
    dir = rt.sessionDir(id);
    await expect(rt.runSession(id)).rejects.toThrow(/corrupt/);
  });

  it('a hook rejection is written as an event and fails the step', async () => {
    const root = makeRoot();
    rt = await openRuntime(root, { hooks: [{ name: 'no-logs', phases: ['COMMIT'], run: (ctx) => (ctx.schema === 'log_summary@2' ? { reject: 'not today' } : undefined) }] });
    const id = newSession(rt, exampleJob());
    const r = await rt.runSession(id);
    expect(r.outcome).toBe('partial');
    expect(readLedger(rt.sessionDir(id)).find((e) => e.type === 'hook_rejected')).toMatchObject({ hook: 'no-logs', phase: 'COMMIT' });
  });

  it('a job step asking a capability for a schema it does not produce fails that step clearly', async () => {
    const root = makeRoot();
    rt = await openRuntime(root);
    const job = parseJob({ ...exampleJob(), plan: [{ step: 'x', tool: 'read_file', args: { path: 'examples/data/df.txt' }, capability: 'extract@1', schema: 'answer@1' }] });
    const id = newSession(rt, job);
    const r = await rt.runSession(id);
    expect(r.outcome).toBe('declined');
    expect(r.answer).toMatch(/does not produce schema answer@1/);
  });
});

/** A syslog window over the inline limit, so its output is kept as a blob. */
function bigLog(root: string): void {
  const base = readFileSync(join(root, 'examples/data/syslog.txt'), 'utf8');
  writeFileSync(join(root, 'examples/data/big.log'), base.repeat(Math.ceil(9000 / base.length)));
}

function rm(root: string, rel: string): void {
  rmSync(join(root, rel));
}

describe('policy snapshot', () => {
  it('replay uses the recorded policy snapshot, not the live measurements', async () => {
    const root = makeRoot();
    rt = await openRuntime(root, { measure: () => ({}) });
    const id = newSession(rt, exampleJob());
    await rt.runSession(id);
    await rt.close();
    // Live measurements now say the parser fails almost always: a fresh run would route around it.
    const bad = { pass_rate: 0.05, n: 40, p50_ms: 1, p90_ms: 2, source: 'measured' as const };
    rt = await openRuntime(root, { measure: (providers, schemas) => Object.fromEntries(providers.map((p) => [p, Object.fromEntries(schemas.map((s) => [s, bad]))])) });
    const fresh = newSession(rt, exampleJob());
    expect((await rt.runSession(fresh)).outcome).not.toBe('answered');
    const replay = await replaySession(rt, id);
    expect(replay.firstDifference).toBeNull();
    expect(replay.identical).toBe(true);
  });
});
