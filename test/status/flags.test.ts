/**
 * Issue 15 item 2: "`pico status` flags broken manifests, a stalled queue,
 * low disk, jobs waiting for approval, and the sandbox level and limits in
 * force" (and item 5: "status shows the sessions' disk use"). Each flag on a
 * real root made to have the condition, through the compiled CLI; the
 * stalled queue and the approvals also under the real daemon. Cancelling a
 * job that waits for approval is here too, with and without a daemon.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../helpers/until.js';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { WORLD_LIMITS } from '../../src/world/settings.js';
import { slowExampleJob, tempRoot } from '../daemon/helpers.js';
import { picoAsync as pico, startDaemon } from '../daemon/spawn.js';

type Flag = { flag: string; problem: string; fix: string };
type Body = { state: string; flags: Flag[]; sandbox: { level: string | null; limits: typeof WORLD_LIMITS }; disk: { free_bytes: number; sessions_bytes: number; sessions: number } };

async function status(root: string): Promise<{ code: number | null; body: Body; human: string }> {
  const j = await pico(['status', '--root', root, '--json']);
  const h = await pico(['status', '--root', root]);
  return { code: j.code, body: JSON.parse(j.stdout) as Body, human: h.stdout };
}

function root(): string {
  const r = tempRoot('pico-flags-');
  initRoot(r);
  return r;
}


/** A job whose second step is destructive: it waits for a person (as test/approval/e2e-approval.test.ts). */
const pruneJob = (): Buffer => Buffer.from(JSON.stringify({
  job: 'job@1', goal: 'read the log, then prune the archive', budget_class: 'interactive',
  plan: [
    { step: 'read', tool: 'read_file', args: { path: 'examples/data/syslog.txt' }, capability: 'extract@1', schema: 'log_summary@2' },
    { step: 'prune', tool: 'prune_archive', args: { dir: 'examples/archive', keep: 3 }, capability: 'extract@1', schema: 'log_summary@2' },
  ],
}));

describe('pico status flags', () => {
  it('a healthy root has no flag and keeps its exit code (3: no daemon); the limits in force and the sessions\' disk use are shown', async () => {
    const r = root();
    const s = await status(r);
    expect(s.code).toBe(3);
    expect(s.body.flags).toEqual([]);
    expect(s.body.sandbox.limits).toEqual(WORLD_LIMITS);
    expect(s.human).toContain(`${WORLD_LIMITS.processes} processes`);
    const before = s.body.disk.sessions_bytes;
    writeFileSync(join(r, 'sessions', 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
    expect((await status(r)).body.disk.sessions_bytes).toBeGreaterThanOrEqual(before + 2 * 1024 * 1024);
    expect(s.human).toMatch(/sessions\/ holds .* \(0 sessions; pico gc removes old ones\)/);
  });

  it('broken manifests, broken settings, low disk and a weak sandbox are each flagged with the file and the fix', async () => {
    const r = root();
    writeFileSync(join(r, 'manifests', 'tools', 'typo.json'), '{"manifest": "tool@1", ');
    writeFileSync(join(r, 'settings.json'), JSON.stringify({ settings: 'settings@1', low_disk_mb: 1e12 }));
    // what the session worker writes on a machine where only unshare works (no daemon runs here to probe)
    mkdirSync(join(r, 'sessions', '.daemon'));
    writeFileSync(join(r, 'sessions', '.daemon', 'world.json'), JSON.stringify({ level: 'partial', wrapper: 'unshare', run_as_uid: null, enforced: ['no network'], not_enforced: ['host paths are visible'], probed_at: new Date().toISOString(), pid: 1 }), { flag: 'w' });
    const s = await status(r);
    expect(s.code).toBe(3);
    const by = Object.fromEntries(s.body.flags.map((f) => [f.flag, f]));
    expect(by.broken_manifests?.problem).toContain('typo.json');
    expect(by.broken_manifests?.fix).toContain('pico manifests check');
    expect(by.low_disk?.problem).toMatch(/free under/);
    expect(by.low_disk?.fix).toContain('low_disk_mb');
    expect(by.weak_sandbox?.problem).toContain('"partial"');
    expect(by.weak_sandbox?.fix).toContain('bubblewrap');
    for (const f of s.body.flags) expect(s.human).toContain(`! ${f.flag}: `);
    expect(s.human.split('\n').filter((l) => l.trim().startsWith('fix: ')).length).toBe(s.body.flags.length);
    writeFileSync(join(r, 'settings.json'), '{ not json');
    const broken = (await status(r)).body.flags.find((f) => f.flag === 'broken_settings');
    expect(broken?.problem).toContain('settings.json');
  });

  it('jobs queued with no daemon are a stalled queue; under a daemon, jobs queued behind a step that runs past stalled_after_s are too, naming the job to cancel', async () => {
    const r = root();
    const job = JSON.parse(slowExampleJob(r, 20).toString()) as Record<string, unknown>; // long enough to outlast a loaded machine's status writes
    job.budget_class = 'background';
    const bytes = Buffer.from(JSON.stringify(job));
    const { id: first } = await dropIntoInbox(bytes, r);
    const none = (await status(r)).body.flags.find((f) => f.flag === 'stalled_queue');
    expect(none?.problem).toContain('1 job(s) queued and no daemon runs');
    expect(none?.fix).toContain('systemctl start picoharness');

    writeFileSync(join(r, 'settings.json'), JSON.stringify({ settings: 'settings@1', stalled_after_s: 1 }));
    const d = startDaemon(r);
    await d.waitFor((l) => l.event === 'step' && l.session === first);
    await dropIntoInbox(bytes, r);
    // status.json is written at most every 500 ms, so the first reading may not show the running job yet
    const stalled = await until('the stalled flag naming the running job', async () => (await status(r)).body.flags.find((f) => f.flag === 'stalled_queue' && f.problem.includes('has been running')));
    expect(stalled.problem).toContain(`${first} has been running step disk`);
    expect(stalled.fix).toContain(`pico cancel ${first}`);
    d.child.kill('SIGTERM');
    await d.exited;
  }, 90_000);

  it('a job waiting for approval is flagged with the commands that decide it, with or without a daemon; cancelling it closes it cancelled with what it held', async () => {
    const r = root();
    const d = startDaemon(r);
    await d.waitFor((l) => l.event === 'ready');
    const { id: a } = await dropIntoInbox(pruneJob(), r);
    const { id: b } = await dropIntoInbox(pruneJob(), r);
    await d.waitFor((l) => l.event === 'waiting_approval' && l.session === b);
    // status.json is written at most twice a second: wait until it lists both
    const s = await until('both waiting in status.json', async () => {
      const x = await status(r);
      return x.body.flags.filter((f) => f.flag === 'waiting_approval').length === 2 && x;
    });
    expect(s.code).toBe(0);
    const waiting = s.body.flags.filter((f) => f.flag === 'waiting_approval');
    expect(waiting.map((f) => f.fix)).toEqual(expect.arrayContaining([expect.stringContaining(`pico approve ${a} prune`), expect.stringContaining(`pico deny ${b} prune`)]));
    expect(s.human).toContain(`pico approve ${a} prune`);
    // under the daemon: the cancel is carried out by the daemon
    const c = await pico(['cancel', a, '--root', r, '--json']);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ was: 'waiting', outcome: 'cancelled' });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // no daemon: the listing reads the ledger, and pico cancel closes the session itself
    const jobs = JSON.parse((await pico(['jobs', '--state', 'waiting', '--root', r, '--json'])).stdout) as { jobs: { id: string; step: string }[] };
    expect(jobs.jobs).toEqual([expect.objectContaining({ id: b, step: 'prune' })]);
    expect((await status(r)).body.flags.find((f) => f.flag === 'waiting_approval')?.fix).toContain(`pico approve ${b} prune`);
    const c2 = await pico(['cancel', b, '--root', r]);
    expect(c2.code, c2.stderr).toBe(0);
    for (const id of [a, b]) {
      const res = JSON.parse(readFileSync(join(r, 'sessions', id, 'result.json'), 'utf8')) as { outcome: string; facts: { step: string }[]; missing: string[] };
      expect(res.outcome).toBe('cancelled');
      expect(res.facts.map((f) => f.step)).toEqual(['read']);
      expect(res.missing.join(' ')).toContain('prune (log_summary@2): not run: cancelled by the operator');
    }
    expect(existsSync(join(r, 'examples', 'archive'))).toBe(true);
    expect((await pico(['check', '--root', r])).code).toBe(0);
  }, 90_000);
});
