/**
 * Issue 3 items 5–7 end to end: "SIGTERM / SIGINT finish the current step
 * … exit 0; a second signal forces; both logged"; READY/STOPPING over a real
 * NOTIFY_SOCKET; `pico status` tells running from stale; `pico submit` and
 * `pico watch` follow a job to its answer.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { bindNotifyReceiver, type NotifyReceiver } from '../../src/daemon/notify-receiver.js';
import { daemonPaths } from '../../src/daemon/paths.js';
import { findUnfinished } from '../../src/daemon/recovery.js';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { slowExampleJob, tempRoot } from './helpers.js';
import { picoAsync as pico, startDaemon } from './spawn.js';

const receivers: NotifyReceiver[] = [];
afterEach(() => {
  for (const r of receivers.splice(0)) r.close();
});

/** A root made like `pico init`, and the example job's bytes. */
function exampleRoot(): { root: string; job: Buffer } {
  const root = tempRoot('pico-e2e-service-');
  initRoot(root);
  return { root, job: readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')) };
}

describe('the daemon as a service, end to end', () => {
  it('SIGTERM mid-job finishes the current step, exits 0, and leaves the session resumable', async () => {
    const { root } = exampleRoot();
    const job = slowExampleJob(root); // the signal must land while a step is in flight
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const { id } = await dropIntoInbox(job, root);
    await d.waitFor((l) => l.event === 'step' && l.session === id && l.step === 'disk' && l.phase === undefined);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    const stopping = d.lines.find((l) => l.event === 'stopping')!;
    expect(stopping.msg).toMatch(/a second SIGTERM or SIGINT forces exit now with code 1/);
    expect(d.lines.some((l) => l.event === 'interrupted' && l.session === id)).toBe(true);
    expect(existsSync(join(root, 'sessions', id, 'result.json'))).toBe(false);
    expect((await findUnfinished(daemonPaths(root))).unfinished.map((u) => u.id)).toEqual([id]);
    // and the next start finishes it
    const again = startDaemon(root);
    const fin = await again.waitFor((l) => l.event === 'finished' && l.session === id);
    expect(fin.outcome).toBe('answered');
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  }, 60_000);

  it('says READY=1 and STOPPING=1 on NOTIFY_SOCKET, and `pico status` tells running, stopped and stale apart', async () => {
    const { root } = exampleRoot();
    const name = `@pico-e2e-${randomBytes(6).toString('hex')}`;
    const rx = await bindNotifyReceiver(name);
    receivers.push(rx);
    const d = startDaemon(root, { NOTIFY_SOCKET: name, WATCHDOG_USEC: '400000' });
    expect(await rx.waitFor(/^READY=1$/m)).toMatch(/STATUS=idle/);
    expect(await rx.waitFor(/^WATCHDOG=1$/)).toBe('WATCHDOG=1');
    const running = await pico(['status', '--root', root, '--json']);
    expect(running.code).toBe(0);
    expect(JSON.parse(running.stdout)).toMatchObject({ state: 'running', status: { pid: d.child.pid, state: 'running' } });
    expect((await pico(['status', '--root', root])).stdout).toMatch(/running \(pid \d+, up \d+s\)/);
    d.child.kill('SIGTERM');
    expect(await rx.waitFor(/^STOPPING=1$/m)).toMatch(/STOPPING=1/);
    expect(await d.exited).toBe(0);
    const stopped = await pico(['status', '--root', root, '--json']);
    expect(stopped.code).toBe(3);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ state: 'not_running', reason: 'stopped' });

    const k = startDaemon(root);
    await k.waitFor((l) => l.event === 'ready');
    k.child.kill('SIGKILL');
    await k.exited;
    const stale = await pico(['status', '--root', root]);
    expect(stale.code).toBe(3);
    expect(stale.stdout).toMatch(/not running \(stale status from pid \d+/);
  }, 60_000);

  it('`pico submit` prints the job id, twice makes two jobs, and `pico watch` follows one to its answer', async () => {
    const { root } = exampleRoot();
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const file = join(root, 'examples', 'jobs', 'why-is-the-disk-full.json');
    const a = await pico(['submit', file, '--root', root]);
    const b = await pico(['submit', file, '--root', root, '--json']);
    expect(a.code).toBe(0);
    const idA = a.stdout.trim();
    const idB = (JSON.parse(b.stdout) as { job: string }).job;
    expect(idA).toMatch(/^\d{8}-\d{6}-[0-9a-f]{12}$/);
    expect(idB).not.toBe(idA);
    const watched = await pico(['watch', idA, '--root', root]);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/^# {2}0 \d\d:\d\d:\d\d composition/m);
    expect(watched.stdout).toMatch(/answer_sent\s+outcome=answered/);
    const raw = await pico(['watch', idB, '--root', root, '--json']);
    const lines = raw.stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number; type: string });
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i));
    expect(lines.at(-1)!.type).toBe('answer_sent');

    const bad = join(root, 'bad.json');
    writeFileSync(bad, '{"job":"job@1"}');
    const refused = await pico(['submit', bad, '--root', root]);
    expect(refused.code).toBe(2); // the user's mistake, as pico run gives it
    expect(refused.stderr).toMatch(/not a valid job@1[\s\S]*fix:/);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
