/**
 * Issue 15 item 9: "settings in one file that `systemctl reload` re-reads
 * (SIGHUP: manifests and settings)". `systemctl reload picoharness` runs the
 * unit's ExecReload, which sends SIGHUP to the daemon; here the test sends it
 * to the real daemon process and reads its log lines.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { startDaemon } from '../daemon/spawn.js';

function exampleRoot(settings?: unknown): { root: string; job: Buffer } {
  const root = tempRoot('pico-reload-');
  initRoot(root);
  if (settings !== undefined) writeFileSync(join(root, 'settings.json'), JSON.stringify(settings));
  return { root, job: readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')) };
}

// the daemon's own level only: PICO_LOG_LEVEL (which the suites' helper sets to debug) would win over settings.json
const NO_ENV_LEVEL = { PICO_LOG_LEVEL: undefined };

describe('SIGHUP (systemctl reload) on the real daemon', () => {
  it('a log_level changed in settings.json takes effect at SIGHUP: debug step lines of the daemon and its new worker appear for the next job only', async () => {
    const { root, job } = exampleRoot({ settings: 'settings@1', log_level: 'info' });
    const d = startDaemon(root, NO_ENV_LEVEL);
    await d.waitFor((l) => l.event === 'ready');
    const first = await dropIntoInbox(job, root);
    await d.waitFor((l) => l.event === 'finished' && l.session === first.id);
    writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', log_level: 'debug' }));
    d.child.kill('SIGHUP');
    const reloaded = await d.waitFor((l) => l.event === 'reloaded');
    expect(reloaded.settings).toBe(true);
    const second = await dropIntoInbox(job, root);
    await d.waitFor((l) => l.event === 'finished' && l.session === second.id);
    const debugOf = (id: string) => d.lines.filter((l) => l.level === 20 && l.session === id);
    expect(debugOf(first.id)).toEqual([]);
    expect(debugOf(second.id).some((l) => l.event === 'step')).toBe(true);
    expect(debugOf(second.id).some((l) => l.component === 'worker' && l.msg === 'step started')).toBe(true); // the new worker read it too
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 90_000);

  it('a broken settings.json at SIGHUP is logged as an error naming the file and the fix; the old settings stay and jobs still run', async () => {
    const { root, job } = exampleRoot({ settings: 'settings@1', log_level: 'info' });
    const d = startDaemon(root, NO_ENV_LEVEL);
    await d.waitFor((l) => l.event === 'ready');
    const file = join(root, 'settings.json');
    writeFileSync(file, '{"settings": "settings@1", "log_level": "debug",');
    d.child.kill('SIGHUP');
    const failed = await d.waitFor((l) => l.event === 'reload_failed');
    expect(failed.level).toBe(50);
    expect(failed.msg).toContain(file);
    expect(failed.msg).toMatch(/not JSON/);
    expect(failed.msg).toMatch(/fix: correct the JSON in /);
    writeFileSync(file, JSON.stringify({ settings: 'settings@1', log_level: 'loud' }));
    d.child.kill('SIGHUP');
    await d.waitFor((l) => l.event === 'reload_failed' && String(l.msg).includes('log_level'));
    const after = await dropIntoInbox(job, root);
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === after.id);
    expect(fin.outcome).toBe('answered');
    expect(d.lines.filter((l) => l.level === 20)).toEqual([]); // still info: the broken file's debug never applied
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 90_000);

  it('after SIGHUP the next job runs in a new worker that loaded a tool manifest added after the start', async () => {
    const { root, job } = exampleRoot();
    const d = startDaemon(root);
    const firstWorker = (await d.waitFor((l) => l.event === 'worker_ready')).worker;
    await d.waitFor((l) => l.event === 'ready');
    const readFile = JSON.parse(readFileSync(join(root, 'manifests', 'tools', 'read_file.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, 'manifests', 'tools', 'late_read.json'), JSON.stringify({ ...readFile, name: 'late_read', description: 'read_file, added after the daemon started' }));
    d.child.kill('SIGHUP');
    await d.waitFor((l) => l.event === 'reloaded');
    const plan = JSON.parse(job.toString()) as { plan: { tool?: string }[] };
    for (const s of plan.plan) if (s.tool === 'read_file') s.tool = 'late_read';
    const { id } = await dropIntoInbox(Buffer.from(JSON.stringify(plan)), root);
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id);
    expect(fin.outcome).toBe('answered');
    const workers = d.lines.filter((l) => l.event === 'worker_ready').map((l) => l.worker);
    expect(workers.length).toBeGreaterThanOrEqual(2);
    expect(workers.at(-1)).not.toBe(firstWorker);
    const events = readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8');
    expect(events).toContain('"tool":"late_read"');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 90_000);
});
