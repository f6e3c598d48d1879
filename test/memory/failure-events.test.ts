/**
 * Issue 37 item 9: failure memory and the report count the right things, by one rule
 * (src/memory/failure-events.ts). A tool's failure and the step that gave up on it are one failure,
 * not a `tool_error` and an `unknown`; the steps a spent budget left unrun are the budget's one
 * failure; a person's `pico deny` is a decision, never an unresolved failure. Real runs of the
 * compiled CLI and the real daemon where the claim is about what a user sees; ledgers written the
 * way the runtime writes them where it is about an ingest that resumes a grown ledger.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionFailures } from '../../src/memory/failure-events.js';
import { makeRoot, put } from '../helpers/root.js';
import { picoAsync, startDaemon } from '../daemon/spawn.js';
import { appendRaw, linesFrom, useTempIndex, writeSession } from './helpers.js';

/** pico run to its end without blocking this fork (see test/setup.ts). */
const pico = (args: string[]) => picoAsync(args, { env: { ...process.env, PICO_ROOT: '' } });

type Signature = { kind: string; signature: string; seen: number };
const reportSignatures = async (root: string): Promise<Signature[]> => (JSON.parse((await pico(['report', '--root', root, '--json'])).stdout) as { signatures: Signature[] }).signatures;
const memorySignatures = async (root: string): Promise<Signature[]> => {
  const r = await pico(['failures', 'report', '--name', 'top_signatures', '--root', root, '--json']);
  return (JSON.parse(r.stdout) as { rows: Signature[] }[])[0]!.rows;
};

const ctx = useTempIndex();

describe('each failure counts once', () => {
  it('a tool that fails and the step that gives up on it are one failure, in failure memory and on the report page', async () => {
    const root = makeRoot('pico-fail-once-');
    // a tool whose program fails the way systemctl does on a box without systemd: exit 1, a reason on stderr
    put(root, 'manifests/tools/no_bus.json', {
      manifest: 'tool@1', name: 'no_bus', description: 'Fails as systemctl does without systemd.', command: ['sh', '-c', 'echo "Failed to connect to bus: Host is down" >&2; exit 1'],
      input_schema: { type: 'object', properties: {}, additionalProperties: false }, output: { media: 'text' }, reducer: 'extract@1',
      effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 5000, max_output_bytes: 4096 },
    });
    const job = join(root, 'no-bus.json');
    // a second step that answers, so the job ends partial (a declined job is one row of its own, not signatures)
    writeFileSync(job, JSON.stringify({ job: 'job@1', goal: 'Which units failed, and how much memory is free?', budget_class: 'attended', plan: [
      { step: 'units', tool: 'no_bus', capability: 'extract@1', schema: 'failed_units@1' },
      { step: 'mem', tool: 'memory_usage', capability: 'extract@1', schema: 'memory_usage@1' },
      { step: 'answer', capability: 'answer@1', schema: 'answer@1', from: ['units', 'mem'] },
    ] }));
    for (let i = 0; i < 2; i++) expect((await pico(['run', job, '--root', root])).code).toBe(1);
    for (const rows of [await memorySignatures(root), await reportSignatures(root)]) {
      const bus = rows.filter((r) => /Failed to connect to bus/.test(r.signature));
      // one shape, seen once per run: never again as `unknown` for the step's closing record
      expect(bus.map((r) => [r.kind, r.seen])).toEqual([['tool_error', 2]]);
      expect(rows.filter((r) => r.kind === 'unknown')).toEqual([]);
    }
  }, 120_000);

  it('a step closing a failure counted in an earlier ingest is not counted again, and the steps a spent budget left unrun are the budget\'s one failure', async () => {
    const err = 'tool units: systemctl list-units failed with exit code 1: Failed to connect to bus: Host is down';
    const spent = '80% of the interactive budget\'s wall_ms is spent (4100 of 5000)';
    const dir = writeSession(ctx.t.sessions, 'b1', [
      { type: 'step_started', step: 'units', tool: 'failed_units', capability: 'extract@1', schema: 'failed_units@1', trust: 'T1' },
      { type: 'tool_failed', step: 'units', provider: null, capability: 'extract@1', schema: 'failed_units@1', error: err, attempt: 0, tool: 'failed_units' },
    ]);
    ctx.ix.ingestDir(ctx.t.sessions);
    // the rest of the ledger arrives in the next ingest: the step's closing record, then a spent budget
    appendRaw(dir, linesFrom('b1', 2, [
      { type: 'step_failed', step: 'units', provider: null, capability: 'extract@1', schema: 'failed_units@1', error: err, attempt: 0 },
      { type: 'budget_exhausted', step: 'log', provider: null, capability: 'extract@1', schema: 'log_summary@2', error: spent, attempt: 0 },
      { type: 'step_failed', step: 'answer', provider: null, capability: 'answer@1', schema: 'answer@1', error: `not run: ${spent}`, attempt: 0 },
      { type: 'answer_sent', outcome: 'declined', text: '', missing: [], trust: 'T2', spent: { wall_ms: 0, model_calls: 0, cpu_ms: 0 } },
    ]));
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(ctx.ix.db.prepare('SELECT seq, type, kind, step FROM failure ORDER BY seq').all()).toEqual([
      { seq: 1, type: 'tool_failed', kind: 'tool_error', step: 'units' },
      { seq: 3, type: 'budget_exhausted', kind: 'budget', step: 'log' },
    ]);
  });

  it('a step that failed with nothing before it counts; a request that timed out, or a run with no approver, counts; a person\'s denial does not', async () => {
    const f = new SessionFailures();
    const base = { provider: null, capability: 'extract@1', schema: 'x@1', attempt: 0 };
    expect(f.kindOf({ type: 'step_failed', step: 'a', error: 'capability extract@1 does not produce schema x@1', ...base })).toBe('unknown');
    expect(f.kindOf({ type: 'step_failed', step: 'b', error: 'not run: the worker died 3 times on this session', ...base })).toBe('unknown');
    expect(f.kindOf({ type: 'approval_denied', step: 'c', error: 'tool prune_archive: expired', by: 'timeout', ...base })).toBe('approval_denied');
    expect(f.kindOf({ type: 'approval_denied', step: 'd', error: 'tool prune_archive is destructive and no approver is configured', ...base })).toBe('approval_denied');
    expect(f.kindOf({ type: 'approval_denied', step: 'e', error: 'tool prune_archive: denied by pi', by: 'pi', ...base })).toBeNull();
    expect(f.kindOf({ type: 'step_failed', step: 'g', error: 'not run: cancelled', cancelled: true, ...base })).toBeNull();
    expect(f.kindOf({ type: 'fact_added', step: 'h' })).toBeNull();
  });
});

describe('a person\'s decision is not a failure', () => {
  it('a denied step is not an unresolved failure', async () => {
    const root = makeRoot('pico-deny-');
    const d = startDaemon(root);
    try {
      await d.waitFor((l) => l.event === 'ready');
      const sub = await pico(['submit', join(root, 'examples', 'jobs', 'prune-the-log-archive.json'), '--root', root]);
      expect(sub.code, sub.stderr).toBe(0);
      const id = sub.stdout.trim();
      await d.waitFor((l) => l.event === 'waiting_approval' && l.session === id);
      const deny = await pico(['deny', id, 'prune', '--reason', 'not today', '--root', root]);
      expect(deny.code, deny.stderr).toBe(0);
      await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
    }
    const unresolved = await pico(['failures', 'report', '--name', 'unresolved', '--root', root, '--json']);
    expect(unresolved.code, unresolved.stderr).not.toBe(4);
    expect(unresolved.stdout).not.toContain('approval_denied');
    const sql = spawnSync('sqlite3', [join(root, 'memory', 'episodic.db'), "SELECT count(*) FROM failure WHERE kind = 'approval_denied'"], { encoding: 'utf8' });
    if (sql.status === 0) expect(sql.stdout.trim()).toBe('0');
    expect((await reportSignatures(root)).filter((s) => s.kind === 'approval_denied')).toEqual([]);
  }, 120_000);
});
