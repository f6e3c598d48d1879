/**
 * Issue 15 item 2, on the real compiled daemon: "`pico cancel JOB` (queued:
 * removed, result.json says cancelled; running: stops at the next step
 * boundary with a partial answer); `pico retry JOB` (a new job from the old
 * job.json)". The long step is a real `sleep` in the execution world.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { until } from '../helpers/until.js';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { goodJob, slowExampleJob, tempRoot } from '../daemon/helpers.js';
import { picoAsync as pico, startDaemon, type RunningDaemon } from '../daemon/spawn.js';

type Result = { outcome: string; answer: string | null; missing?: string[]; facts?: { step: string }[]; closed_by?: string };

const result = (root: string, id: string): Result => JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as Result;


/** A root whose example job reads its two files through a tool that sleeps first (background class: the budget allows it). */
function slowRoot(sleepSeconds: number): { root: string; job: Buffer } {
  const root = tempRoot('pico-cancel-');
  initRoot(root);
  const job = JSON.parse(slowExampleJob(root, sleepSeconds).toString()) as Record<string, unknown>;
  job.budget_class = 'background';
  return { root, job: Buffer.from(JSON.stringify(job)) };
}

async function ready(root: string): Promise<RunningDaemon> {
  const d = startDaemon(root);
  await d.waitFor((l) => l.event === 'ready');
  return d;
}

describe('pico cancel and pico retry on the real daemon', () => {
  it('a running job is stopped after its current step and ends cancelled with a partial answer; jobs queued behind it (handed to the worker, or still in the daemon\'s queue) end cancelled without running', async () => {
    const { root, job } = slowRoot(6); // each step sleeps 6 s: the cancel lands while the first is in flight
    const d = await ready(root);
    const { id: running } = await dropIntoInbox(job, root);
    const { id: queued } = await dropIntoInbox(job, root);
    // the daemon hands 8 jobs to the worker behind the running one; the last of these stays in its own queue
    const quick: string[] = [];
    for (let i = 0; i < 9; i++) quick.push((await dropIntoInbox(Buffer.from(JSON.stringify(goodJob('batch'))), root)).id);
    const deep = quick[quick.length - 1]!;
    await d.waitFor((l) => l.event === 'step' && l.session === running && l.step === 'disk');
    // status.json (which names the running job) is written at most twice a second
    const jobs = await until('pico jobs to show it running', async () => {
      const list = JSON.parse((await pico(['jobs', '--root', root, '--json'])).stdout) as { jobs: { id: string; state: string }[] };
      return list.jobs.find((j) => j.id === running)?.state === 'running' && list;
    });
    expect(jobs.jobs.find((j) => j.id === queued)?.state).toBe('queued');

    const dq = await pico(['cancel', deep, '--root', root]);
    expect(dq.code, dq.stderr).toBe(0);
    expect(result(root, deep)).toMatchObject({ outcome: 'cancelled', closed_by: 'daemon (pico cancel)' });
    const asked = await pico(['cancel', running, '--root', root, '--wait', '0']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain(`cancel of ${running} asked for: it stops after its current step`);

    const q = await pico(['cancel', queued, '--root', root]);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout).toContain(`${queued} cancelled (it was queued)`);
    expect(result(root, queued)).toMatchObject({ outcome: 'cancelled', answer: null });
    expect(statSync(join(root, 'sessions', queued, 'events.jsonl')).size).toBe(0); // no step of it ran

    await until('the running job to close', () => existsSync(join(root, 'sessions', running, 'result.json')));
    // the others run after it, and the cancelled one never does
    for (const id of quick.slice(0, -1)) await until(`job ${id}`, () => existsSync(join(root, 'sessions', id, 'result.json')));
    expect(result(root, quick[0]!).outcome).toBe('answered');
    expect(statSync(join(root, 'sessions', deep, 'events.jsonl')).size).toBe(0);
    const res = result(root, running);
    expect(res.outcome).toBe('cancelled');
    expect(res.facts?.map((f) => f.step)).toEqual(['disk']); // the step in flight finished and was kept
    expect(res.answer).toContain('disk (disk_usage@1');
    expect(res.answer).toContain('cancelled by the operator');
    expect(res.missing?.join('\n')).toMatch(/log \(log_summary@2\): not run: cancelled by the operator/);
    // the ledger agrees with the result: pico check finds nothing damaged
    const check = await pico(['check', '--root', root, '--json']);
    expect(check.code, check.stdout).toBe(0);
    // the cancel is in the ledger (the steps it closed, with its time): a replay stops where the first run stopped and closes the rest the same way
    const replay = await pico(['replay', running, '--root', root]);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/^identical: \d+ events replayed byte for byte/);
    // a finished job cannot be cancelled: exit 2 and the reason
    const again = await pico(['cancel', running, '--root', root]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('has already ended (cancelled)');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // memory: the episode ended cancelled, and the steps the cancel left unrun are no failures of anything
    const db = new Database(join(root, 'memory', 'episodic.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT outcome FROM episode WHERE session = ?').get(running)).toEqual({ outcome: 'cancelled' });
      expect(db.prepare('SELECT count(*) AS n FROM failure WHERE session = ?').get(running)).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, 90_000);

  it('retry submits the ended job again as a new job, which runs; a job that has not ended is refused', async () => {
    const { root, job } = slowRoot(0);
    const d = await ready(root);
    const { id } = await dropIntoInbox(job, root);
    await until('the first run', () => existsSync(join(root, 'sessions', id, 'result.json')));
    const r = await pico(['retry', id, '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const fresh = r.stdout.trim();
    expect(fresh).not.toBe(id);
    expect(fresh).toMatch(/^\d{8}-\d{6}-[0-9a-f]{12}$/);
    await until('the retry to run', () => existsSync(join(root, 'sessions', fresh, 'result.json')));
    expect(result(root, fresh).outcome).toBe(result(root, id).outcome);
    expect(readFileSync(join(root, 'sessions', fresh, 'job.json'), 'utf8')).toBe(readFileSync(join(root, 'sessions', id, 'job.json'), 'utf8'));
    d.child.kill('SIGTERM');
    await d.exited;
    // no daemon now: a submitted job waits in the inbox, queued; retrying it is refused (it would run twice)
    const { id: waiting } = await dropIntoInbox(job, root);
    const refused = await pico(['retry', waiting, '--root', root]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has not ended (it is queued)');
  }, 90_000);

  it('with no daemon, cancel closes an inbox entry itself; an unknown id is exit 2 naming the jobs that exist', async () => {
    const { root, job } = slowRoot(0);
    const { id } = await dropIntoInbox(job, root);
    const { id: other } = await dropIntoInbox(job, root);
    const r = await pico(['cancel', id, '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(root, 'sessions', 'inbox', `${id}.json`))).toBe(false);
    expect(result(root, id)).toMatchObject({ outcome: 'cancelled', closed_by: 'pico cancel' });
    const unknown = await pico(['cancel', '20200101-000000-000000000000', '--root', root]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`${other} (queued)`);
    // the next daemon does not run the cancelled job
    const d = await ready(root);
    await until('the other job', () => existsSync(join(root, 'sessions', other, 'result.json')));
    expect(result(root, id).outcome).toBe('cancelled');
    expect(statSync(join(root, 'sessions', id, 'events.jsonl')).size).toBe(0);
    d.child.kill('SIGTERM');
    await d.exited;
  }, 90_000);
});
