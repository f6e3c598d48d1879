/**
 * Issue 14 item 8, on the real compiled daemon: "shutdown and restart leave
 * nothing behind". SIGTERM during a long step used to leave the tool's
 * processes running after the daemon exited (the tool runs in a process
 * group of its own under the worker, and only the worker was killed); and a
 * restart waited 1.3–2.3 s on a zombie worker taken for alive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { until as untilWithin } from '../helpers/until.js';
import { afterEach, describe, expect, it } from 'vitest';
import { processIdentity } from '../../src/daemon/proc.js';
import { procStat } from '../../src/daemon/proc-tree.js';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { MAIN_JS, startDaemon, type LogLine, type RunningDaemon } from './spawn.js';

/** A sleep duration no other process on the machine uses: it marks the tool's processes. */
const MARK = String(900_000 + (process.pid % 90_000));

/**
 * Live (not zombie) processes whose command line carries the mark: the tool's two `sleep`s, and
 * also its `sh` and the sandbox wrappers around it (bwrap's argv holds the tool's command).
 * `only: 'sleeps'` keeps the tool's own children: counting every marked process, a wait for "two"
 * was met by bwrap and its forked child before the tool had started anything, and a worker killed
 * then takes both down by bwrap's --die-with-parent, leaving no tool at all.
 */
function marked(only?: 'sleeps'): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const argv = readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
      if (only === 'sleeps' ? argv[0] !== 'sleep' || argv[1] !== MARK : !argv.some((a) => a.includes(MARK))) continue;
      if (procStat(Number(n))?.state !== 'Z') out.push(Number(n));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const helpers: ChildProcess[] = [];
afterEach(() => {
  for (const p of marked()) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const c of helpers.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});


/**
 * A root with a tool whose process starts two children and waits on them, far past any grace.
 * `hostPids`: the tool shares the host's process tree (`host_view: ["pid"]`), so no pid namespace
 * takes its children down when the sandbox wrapper dies — they outlive a killed worker for sure.
 */
function spawnerRoot(hostPids = false): string {
  const root = tempRoot('pico-e2e-shutdown-');
  initRoot(root);
  writeFileSync(join(root, 'manifests', 'tools', 'spawner.json'), JSON.stringify({
    manifest: 'tool@1', name: 'spawner', description: 'starts children that never end (tests only)',
    command: ['sh', '-c', `sleep ${MARK} & sleep ${MARK} & wait`], ...(hostPids ? { host_view: ['pid'] } : {}),
    input_schema: { type: 'object', additionalProperties: false }, output: { media: 'text' }, reducer: 'extract@1',
    effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 600_000, max_output_bytes: 1000 },
  }));
  return root;
}

/** Start a daemon on `root`, drop the spawner job, and wait until its tool's two children run (not its wrappers). */
async function spawnerInFlight(root: string, args: string[] = []): Promise<{ d: RunningDaemon; id: string }> {
  const d = startDaemon(root, {}, args);
  await d.waitFor((l) => l.event === 'ready');
  const job = { job: 'job@1', goal: 'hang', budget_class: 'background', plan: [{ step: 's1', tool: 'spawner', args: {}, capability: 'extract@1', schema: 'log_summary@2' }] };
  const { id } = await dropIntoInbox(Buffer.from(JSON.stringify(job)), root);
  await d.waitFor((l: LogLine) => l.event === 'step' && l.session === id);
  await until('the tool\'s two children', () => marked('sleeps').length === 2);
  return { d, id };
}

const workerPid = (root: string) => Number(readFileSync(join(root, 'sessions', '.daemon', 'worker'), 'utf8').split('\n')[0]);

const until = <T>(what: string, f: () => T | null | undefined | false, ms = 10_000): Promise<T> => untilWithin(what, f, ms, 25);

describe('shutdown and restart leave nothing behind', () => {
  it('SIGTERM during a long step: after the grace the daemon kills the step\'s whole process tree, and none of it outlives the daemon', async () => {
    const { d } = await spawnerInFlight(spawnerRoot(), ['--grace-ms', '1500']);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(1); // forced: the step outlived the grace
    // SIGKILL is immediate; give the kernel a moment to tear the processes down
    await until('the tool\'s processes to be gone', () => marked().length === 0, 3_000).catch(() => undefined);
    expect(marked()).toEqual([]);
    expect(d.lines.some((l) => l.event === 'worker_killed')).toBe(true);
  }, 60_000);

  it('a worker killed from outside mid-step (the OOM killer, kill -9) leaves no tool running: the daemon stops its orphans before the step runs again', async () => {
    const root = spawnerRoot(true);
    const { d } = await spawnerInFlight(root, ['--grace-ms', '1500']);
    const before = marked();
    process.kill(workerPid(root), 'SIGKILL');
    await d.waitFor((l) => l.event === 'orphans_killed');
    await until('the dead worker\'s tool processes to be gone', () => before.every((p) => !marked().includes(p)), 3_000).catch(() => undefined);
    expect(marked().filter((p) => before.includes(p))).toEqual([]);
    d.child.kill('SIGTERM');
    await d.exited;
  }, 60_000);

  it('a daemon killed with its worker (kill -9 of both) leaves tools that the next daemon stops before it starts a worker', async () => {
    const root = spawnerRoot(true);
    const { d } = await spawnerInFlight(root);
    const worker = workerPid(root);
    // the daemon frozen first, so nothing of it reacts; then the worker and the daemon killed
    d.child.kill('SIGSTOP');
    process.kill(worker, 'SIGKILL');
    await until('the worker to die', () => procStat(worker) === null || procStat(worker)?.state === 'Z');
    d.child.kill('SIGKILL');
    await d.exited;
    const left = marked();
    expect(marked('sleeps').filter((p) => left.includes(p))).toHaveLength(2); // nothing stopped them so far
    const next = startDaemon(root, {}, ['--grace-ms', '1500']);
    await next.waitFor((l) => l.event === 'orphans_killed');
    await until('the orphans to be gone', () => left.every((p) => !marked().includes(p)), 3_000).catch(() => undefined);
    expect(marked().filter((p) => left.includes(p))).toEqual([]);
    next.child.kill('SIGTERM');
    await next.exited;
  }, 60_000);

  it('pico run stopped by SIGTERM mid-step leaves no tool running', async () => {
    const root = spawnerRoot();
    const file = join(root, 'hang.json');
    writeFileSync(file, JSON.stringify({ job: 'job@1', goal: 'hang', budget_class: 'background', plan: [{ step: 's1', tool: 'spawner', args: {}, capability: 'extract@1', schema: 'log_summary@2' }] }));
    const run = spawn(process.execPath, [MAIN_JS, 'run', file, '--root', root], { stdio: 'ignore' });
    helpers.push(run);
    await until('the tool\'s two children', () => marked('sleeps').length === 2);
    run.kill('SIGTERM');
    await new Promise((ok) => run.once('exit', ok));
    await until('the tool\'s processes to be gone', () => marked().length === 0, 3_000).catch(() => undefined);
    expect(marked()).toEqual([]);
  }, 60_000);

  it('a zombie recorded as the worker is not taken for a live one: the new daemon neither kills nor waits for it', async () => {
    const root = tempRoot('pico-e2e-zombie-');
    initRoot(root);
    // a child that exits at once under a parent that never reaps it: a zombie with a known pid
    const parent = spawn('sh', ['-c', 'sleep 0.01 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    helpers.push(parent);
    const line = await new Promise<string>((ok) => createInterface({ input: parent.stdout! }).once('line', ok));
    const zombie = Number(line);
    await until('the zombie', () => procStat(zombie)?.state === 'Z');
    mkdirSync(join(root, 'sessions', '.daemon'), { recursive: true });
    writeFileSync(join(root, 'sessions', '.daemon', 'worker'), `${zombie}\n${processIdentity(zombie)}\n`);
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    expect(d.lines.some((l) => l.event === 'worker_survivor')).toBe(false);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
