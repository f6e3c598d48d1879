/**
 * Issue 3 item 7: "`pico status` … must tell 'not running' from a stale
 * file (check the pid is alive)"; and one daemon per root.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LockHeld, takeLock } from '../../src/daemon/lock.js';
import { daemonPaths } from '../../src/daemon/paths.js';
import { processIdentity, stillRunning } from '../../src/daemon/proc.js';
import { readStatus, StatusPublisher } from '../../src/daemon/status.js';
import { tempRoot } from './helpers.js';

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('status file', () => {
  it('a live daemon\'s status reads as running, with its queue and running job', async () => {
    const p = daemonPaths(tempRoot());
    const pub = new StatusPublisher(p);
    pub.update((s) => {
      s.state = 'running';
      s.queue.batch = 3;
      s.running = { session: 'x', label: null, budget_class: 'interactive', step: 's2', started_at: new Date().toISOString() };
    });
    expect(await pub.flush()).toBeNull();
    const r = readStatus(p);
    expect(r.state).toBe('running');
    expect(r.state === 'running' && r.status.queue.batch).toBe(3);
    expect(r.state === 'running' && r.status.running?.step).toBe('s2');
  });

  it('a status left by a dead process reads as stale, not running', async () => {
    const p = daemonPaths(tempRoot());
    const pub = new StatusPublisher(p);
    pub.update((s) => (s.state = 'running'));
    await pub.flush();
    const text = JSON.parse(readFileSync(p.status, 'utf8'));
    writeFileSync(p.status, JSON.stringify({ ...text, pid: deadPid(), identity: null }));
    expect(readStatus(p).state).toBe('stale');
  });

  it('a live pid whose start time differs (a reused pid) reads as stale', async () => {
    const p = daemonPaths(tempRoot());
    const pub = new StatusPublisher(p);
    await pub.flush();
    const text = JSON.parse(readFileSync(p.status, 'utf8'));
    writeFileSync(p.status, JSON.stringify({ ...text, state: 'running', identity: `${text.identity}-earlier-life` }));
    expect(readStatus(p).state).toBe('stale');
  });

  it('a clean stop reads as stopped, and a root that never ran reads as never', async () => {
    const p = daemonPaths(tempRoot());
    expect(readStatus(p).state).toBe('never');
    const pub = new StatusPublisher(p);
    pub.update((s) => (s.state = 'stopped'));
    await pub.flush();
    expect(readStatus(p).state).toBe('stopped');
  });

  it('recent outcomes keep the last ten, newest first', () => {
    const pub = new StatusPublisher(daemonPaths(tempRoot()));
    for (let i = 0; i < 12; i++) pub.addOutcome({ session: `s${i}`, outcome: 'answered', duration_ms: i, finished_at: '' });
    expect(pub.current.recent.map((o) => o.session)).toEqual(['s11', 's10', 's9', 's8', 's7', 's6', 's5', 's4', 's3', 's2']);
  });
});

describe('lock', () => {
  it('a second daemon on the same root is refused while the first lives', async () => {
    const p = daemonPaths(tempRoot());
    const release = await takeLock(p);
    // hand the lock to another live process (our parent) with its true identity
    writeFileSync(p.lock, `${process.ppid}\n${processIdentity(process.ppid)}\n`);
    await expect(takeLock(p)).rejects.toThrow(LockHeld);
    await expect(takeLock(p)).rejects.toThrow(/another daemon \(pid \d+\)/);
    writeFileSync(p.lock, `${process.pid}\n`);
    await release();
  });

  it('a lock left by a dead process is taken over', async () => {
    const p = daemonPaths(tempRoot());
    mkdirSync(p.daemonDir, { recursive: true });
    writeFileSync(p.lock, `${deadPid()}\nwhatever\n`);
    const release = await takeLock(p);
    expect(readFileSync(p.lock, 'utf8').split('\n')[0]).toBe(String(process.pid));
    await release();
  });

  it('identity tells this process apart from a made-up earlier life of the same pid', () => {
    const me = processIdentity(process.pid);
    expect(stillRunning(process.pid, me ?? undefined)).toBe(true);
    expect(stillRunning(process.pid, `${me}-other`)).toBe(false);
    expect(stillRunning(deadPid(), undefined)).toBe(false);
  });
});
