/**
 * The daemon's observer and idle-task seams (src/daemon/observer.ts), on the
 * real daemon loop with the real session worker and runtime, in a node
 * process of its own: an observer sees a job's transitions in order, an
 * observer that throws stops nothing, an idle task runs between jobs and not
 * while one runs, and SIGHUP reads the settings again and tells observers.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { jsonLines } from './spawn.js'; // (importing it asserts dist/ is built)

const LOOP_JS = fileURLToPath(new URL('../../dist/src/daemon/loop.js', import.meta.url));
const PINO_JS = pathToFileURL(createRequire(import.meta.url).resolve('pino')).href;
const SETTINGS_JS = fileURLToPath(new URL('../../dist/src/daemon/settings.js', import.meta.url));

/** The compiled daemon with an observer that prints each call as a JSON line, a throwing observer, and an idle task. */
function observedDaemon(root: string) {
  const script = `
    const { pino } = await import(${JSON.stringify(PINO_JS)});
    const { runDaemon } = await import(${JSON.stringify(LOOP_JS)});
    const { loadSettings } = await import(${JSON.stringify(SETTINGS_JS)});
    const root = ${JSON.stringify(root)};
    const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
    const log = pino({ level: 'warn' }, { write: (s) => say({ log: JSON.parse(s) }) });
    let running = false;
    const recorder = {
      queued: (e) => say({ seen: 'queued', ...e }),
      started: (e) => { running = true; say({ seen: 'started', ...e }); },
      step: (e) => say({ seen: 'step', ...e }),
      finished: (e) => { running = false; say({ seen: 'finished', ...e }); },
      worker: (pid) => say({ seen: 'worker', pid }),
      reloaded: (s) => say({ seen: 'reloaded', log_level: s.log_level }),
    };
    const thrower = { started: () => { throw new Error('observer bug'); } };
    const task = { name: 'probe task', run: async () => say({ seen: 'idle_task', while_running: running }) };
    process.exitCode = await runDaemon({ root, log, observers: [thrower, recorder], idleTasks: [task], settleMs: 50, reloadSettings: () => loadSettings(root).settings });
  `;
  // a file, not `-e`: the worker is forked with this process's execArgv, and would run an -e script again
  const file = join(root, 'observed-daemon.mjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, [file], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
  return jsonLines(child);
}

describe('daemon observers and idle tasks', () => {
  it('an observer sees queued → started → steps → finished for a real job; a throwing observer is logged and changes nothing; idle tasks run only between jobs; SIGHUP tells observers the new settings', async () => {
    const root = tempRoot('pico-observe-');
    initRoot(root);
    const d = observedDaemon(root);
    try {
      await d.waitFor((l) => l.seen === 'idle_task');
      const id = '20261201-120000-0000000000a1';
      writeFileSync(join(root, 'sessions', 'inbox', `${id}.json`), readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')));
      await d.waitFor((l) => l.seen === 'finished');
      await d.waitFor((l) => l.seen === 'idle_task' && d.lines.indexOf(l) > d.lines.findIndex((x) => x.seen === 'finished'));
      const mine = d.lines.filter((l) => l.session === id);
      const order = mine.map((l) => `${String(l.seen)}${l.phase ? `:${String(l.phase)}` : ''}`);
      expect(order[0]).toBe('queued');
      expect(order[1]).toBe('started');
      expect(order.at(-1)).toBe('finished');
      expect(order.filter((o) => o === 'step:started').length).toBe(order.filter((o) => o === 'step:committed' || o === 'step:failed').length);
      const committed = mine.find((l) => l.phase === 'committed');
      expect(committed).toMatchObject({ provider: expect.any(String) as unknown, duration_ms: expect.any(Number) as unknown });
      expect(mine.at(-1)).toMatchObject({ outcome: 'answered', budget_class: 'interactive' });
      expect(d.lines.some((l) => l.seen === 'worker' && typeof l.pid === 'number')).toBe(true);
      expect(d.lines.filter((l) => l.seen === 'idle_task').every((l) => l.while_running === false)).toBe(true);
      const warned = d.lines.find((l) => (l.log as { event?: string } | undefined)?.event === 'observer');
      expect((warned!.log as { msg: string }).msg).toContain('observer bug');

      writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', log_level: 'error' }));
      d.child.kill('SIGHUP');
      await d.waitFor((l) => l.seen === 'reloaded');
      expect(d.lines.find((l) => l.seen === 'reloaded')!.log_level).toBe('error');
    } catch (err) {
      d.child.kill('SIGKILL');
      throw err;
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
