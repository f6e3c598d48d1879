/**
 * The hand-over's window (src/daemon/hand-over.ts): a few jobs wait in the worker behind the
 * running one, and a job the worker has answered gives its place up at once, though this process
 * is still making its answer durable. The compiled daemon loop runs in a node process of its own
 * on a real root, with a stand-in session runner that answers at once: a real worker cannot be
 * made to answer while this process's fdatasync of its ledger hangs. Here the first nine answers'
 * ledgers are named pipes, so settling them blocks in open() on the thread pool (made large enough
 * to hold them), as a sync on a stalled disk would. Everything else (intake, claims, the queue,
 * result.json) is the real daemon's.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HANDED_OVER, SETTLING } from '../../src/daemon/hand-over.js';
import { initRoot } from '../../src/root/init.js';
import { goodJob, tempRoot } from './helpers.js';
import { survivorsAfter } from '../world/helpers.js';
import { jsonLines } from './spawn.js'; // (importing it asserts dist/ is built)

const LOOP_JS = fileURLToPath(new URL('../../dist/src/daemon/loop.js', import.meta.url));

/** Every place in the worker (the running job and HANDED_OVER waiting): all of them held by answers still settling. */
const PLACES = 1 + HANDED_OVER;

/** The daemon with a stand-in runner whose first `stalled` answers' ledger syncs hang. */
function daemonWithStalledSyncs(root: string, stalled: number) {
  const script = `
    import { pino } from 'pino';
    import { execFileSync } from 'node:child_process';
    import { unlinkSync } from 'node:fs';
    const { runDaemon } = await import(${JSON.stringify(LOOP_JS)});
    const root = ${JSON.stringify(root)};
    const log = pino();
    let runs = 0;
    const runner = {
      run: (id, h) => new Promise((resolve) => setImmediate(() => {
        h?.onBegin?.();
        const dir = root + '/sessions/' + id;
        if (runs++ < ${stalled}) {
          // the ledger becomes a named pipe: the daemon's open() for its fdatasync waits for a writer
          unlinkSync(dir + '/events.jsonl');
          execFileSync('mkfifo', [dir + '/events.jsonl']);
          log.info({ event: 'stand_in_stalled', session: id });
        }
        resolve({ sessionId: id, outcome: 'answered', answer: 'ok', resultPath: dir + '/result.json', resultText: JSON.stringify({ result: 'result@1', session_id: id, outcome: 'answered' }) + '\\n' });
      })),
      cancel: () => {},
      stop: () => {},
      close: async () => {},
    };
    process.exitCode = await runDaemon({ root, log, openRuntime: async () => runner, settleMs: 50 });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, UV_THREADPOOL_SIZE: String(stalled + 16) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return jsonLines(child, 20_000);
}

describe('the hand-over window', () => {
  it('an answered job whose ledger sync hangs does not hold its place in the worker: the jobs behind it still run and finish', async () => {
    const root = tempRoot('pico-handover-');
    initRoot(root);
    const ids = jobs(root, PLACES + 5);
    const d = daemonWithStalledSyncs(root, PLACES);
    try {
      await d.waitFor(() => d.lines.filter((l) => l.event === 'stand_in_stalled').length === PLACES);
      const stalled = new Set(d.lines.filter((l) => l.event === 'stand_in_stalled').map((l) => l.session as string));
      const others = ids.filter((id) => !stalled.has(id));
      expect(others).toHaveLength(5);
      // before the change, the nine answers settling held all nine places and nothing more was handed over
      for (const id of others) await d.waitFor((l) => l.event === 'finished' && l.session === id);
      for (const id of others) expect(existsSync(join(root, 'sessions', id, 'result.json'))).toBe(true);
      // the stalled ones are not published: their answers are not known to be on the disk
      for (const id of stalled) expect(existsSync(join(root, 'sessions', id, 'result.json'))).toBe(false);
      expect(d.lines.filter((l) => l.event === 'finished' && stalled.has(l.session as string))).toEqual([]);
    } finally {
      await killDaemon(d, root); // its thread pool waits in open() on the pipes: no clean stop to wait for
    }
  }, 60_000);

  it('but no more than SETTLING answers wait for the disk: then nothing more is handed over until one is on it', async () => {
    const root = tempRoot('pico-handover-full-');
    initRoot(root);
    const ids = jobs(root, PLACES + SETTLING + 4);
    const d = daemonWithStalledSyncs(root, PLACES + SETTLING + 4);
    try {
      await d.waitFor(() => d.lines.filter((l) => l.event === 'stand_in_stalled').length === PLACES + SETTLING);
      await d.waitFor(() => d.lines.filter((l) => l.event === 'claimed').length === ids.length); // claimed all the same: the rest wait in the queue
      await new Promise((r) => setTimeout(r, 1000)); // time enough to hand over the rest, were there room
      expect(d.lines.filter((l) => l.event === 'stand_in_stalled')).toHaveLength(PLACES + SETTLING);
      expect(d.lines.filter((l) => l.event === 'started')).toHaveLength(PLACES + SETTLING);
    } finally {
      await killDaemon(d, root);
    }
  }, 60_000);
});

describe('a job put back by its own answer', () => {
  it('is handed over again only once that answer is settled: its second run is in flight, and the daemon does not go idle under it', async () => {
    const root = tempRoot('pico-handover-back-');
    initRoot(root);
    const [id] = jobs(root, 1);
    // the stand-in takes the job back at once the first time (as the worker does for a more urgent
    // job); the second time it runs it for a while. The daemon is idle (runtime.idle) only when
    // nothing is in flight: not while that second run lasts.
    const script = `
      import { pino } from 'pino';
      const { runDaemon } = await import(${JSON.stringify(LOOP_JS)});
      const root = ${JSON.stringify(root)};
      const log = pino();
      const runs = new Map();
      let running = 0;
      const runner = {
        run: (id, h) => new Promise((resolve) => {
          const n = (runs.get(id) ?? 0) + 1;
          runs.set(id, n);
          if (n === 1) return void setImmediate(() => resolve(null));
          h?.onBegin?.();
          running++;
          log.info({ event: 'stand_in_running', session: id, run: n });
          setTimeout(() => {
            running--;
            resolve({ sessionId: id, outcome: 'answered', answer: 'ok', resultPath: root + '/sessions/' + id + '/result.json', resultText: JSON.stringify({ result: 'result@1', session_id: id, outcome: 'answered' }) + '\\n' });
          }, 800);
        }),
        cancel: () => {},
        stop: () => {},
        idle: () => log.info({ event: 'stand_in_idle', while_running: running }),
        close: async () => {},
      };
      process.exitCode = await runDaemon({ root, log, openRuntime: async () => runner, settleMs: 50 });
    `;
    const d = jsonLines(spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] }), 20_000);
    try {
      await d.waitFor((l) => l.event === 'finished' && l.session === id);
      expect(d.lines.filter((l) => l.event === 'stand_in_running')).toHaveLength(1);
      expect(d.lines.filter((l) => l.event === 'stand_in_idle' && l.while_running !== 0)).toEqual([]);
      expect(d.lines.filter((l) => l.event === 'finished')).toHaveLength(1);
      d.child.kill('SIGTERM');
      expect(await d.exited).toBe(0);
    } finally {
      d.child.kill('SIGKILL');
    }
  }, 60_000);
});

/**
 * SIGKILL the daemon, then wait for what it started to end: the manifest watch's first check runs
 * in a process of its own (manifest-checker.ts, the root on its command line), which a killed
 * daemon does not take along and which writes into the root until it is done.
 */
async function killDaemon(d: ReturnType<typeof jsonLines>, root: string): Promise<void> {
  d.child.kill('SIGKILL');
  await d.exited;
  expect(await survivorsAfter(root, 30_000)).toEqual([]);
}

/** `n` good jobs in the inbox, by their ids. */
function jobs(root: string, n: number): string[] {
  const ids = Array.from({ length: n }, (_, i) => `20261201-000000-${String(i + 1).padStart(12, '0')}`);
  for (const id of ids) writeFileSync(join(root, 'sessions', 'inbox', `${id}.json`), JSON.stringify(goodJob()));
  return ids;
}
