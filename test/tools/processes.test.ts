// Processes and sockets read for real: the machine's own ps and ss, programs started by the test
// under names of their own, and picoharness's own processes (the runner that stands for the session
// worker, its sandbox wrappers, its shell and its ps) left out of every list.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRoot, runShipped } from '../helpers/machine-state.js';
import { tempDir } from '../helpers/temp.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL'); // a detached child leads its own group (the script and its sleep)
    } catch {
      c.kill('SIGKILL');
    }
  }
});

/** A real program under a name of its own: /bin/sleep copied to NAME and run. */
function sleeper(name: string): ChildProcess {
  const bin = join(tempDir('pico-proc-'), name);
  copyFileSync('/bin/sleep', bin);
  const c = spawn(bin, ['300'], { stdio: 'ignore' });
  started.push(c);
  return c;
}

/** Wait until the child has exec'd its program (its comm is the file's name). */
async function running(c: ChildProcess): Promise<void> {
  await new Promise((r) => setTimeout(r, 150));
  expect(c.exitCode).toBeNull();
}

describe('picoharness leaves its own processes out', () => {
  it('the top process never names picoharness\'s own worker', () => {
    for (const sort of ['cpu', 'mem']) {
      const r = runShipped('load_top', { sort });
      expect(r.error, r.message).toBeUndefined();
      const pids = (r.fact!.processes as { pid: number }[]).map((p) => p.pid);
      expect(pids).not.toContain(r.pid);
      expect((r.fact!.top as { pid: number }).pid).not.toBe(r.pid);
      // the worker, and below it the sandbox wrappers, the tool's shell and its ps
      expect(r.fact!.own_left_out).toBeGreaterThanOrEqual(3);
      // ps listed the worker itself: the exclusion removed a row that was there
      expect(r.output).toMatch(new RegExp(`^\\s*${r.pid}\\s`, 'm'));
    }
  }, 60_000);

  it('process_find for "node" does not count the worker that asks', () => {
    const r = runShipped('process_find', { name: 'node' });
    expect(r.error).toBeUndefined();
    expect((r.fact!.processes as { pid: number }[]).map((p) => p.pid)).not.toContain(r.pid);
    expect(r.fact!.own_left_out).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

describe('process_find', () => {
  it('finds the processes of a name, whole: "pico-sleeper" is not "pico-sleeper-x"', async () => {
    const one = sleeper('pico-sleeper');
    sleeper('pico-sleeper-x');
    await running(one);
    const r = runShipped('process_find', { name: 'pico-sleeper' });
    expect(r.fact).toMatchObject({ name: 'pico-sleeper', count: 1 });
    expect((r.fact!.processes as { pid: number; command: string }[])[0]).toMatchObject({ pid: one.pid, command: 'pico-sleeper' });
  }, 60_000);

  it('a unit\'s name is read as its program\'s, and a script run by an interpreter is found by its file name', async () => {
    const unitProgram = sleeper('pico-unitprog');
    const script = join(tempDir('pico-script-'), 'pico-worker.sh');
    writeFileSync(script, 'sleep 300\nexit 0\n');
    const viaInterpreter = spawn('/bin/sh', [script], { stdio: 'ignore', detached: true });
    started.push(viaInterpreter);
    await running(unitProgram);
    expect(runShipped('process_find', { name: 'pico-unitprog.service' }).fact).toMatchObject({ name: 'pico-unitprog', count: 1 });
    // "sh /…/pico-worker.sh": the shell running the script is the script's process (its sleep is sleep's)
    const ps = runShipped('process_find', { name: 'pico-worker' }).fact!;
    expect(ps).toMatchObject({ name: 'pico-worker', count: 1 });
    expect((ps.processes as { pid: number }[])[0]!.pid).toBe(viaInterpreter.pid);
    expect(runShipped('process_find', { name: 'no-such-program-here' }).fact).toMatchObject({ name: 'no-such-program-here', count: 0, processes: [] });
  }, 60_000);
});

describe('listening_sockets', () => {
  it('a port something listens on is found; whose it is stays unseen by the sandbox user and is counted, not guessed', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const r = runShipped('listening_sockets', { port });
      expect(r.error, r.message).toBeUndefined();
      expect(r.fact).toMatchObject({ port, source: 'ss', matching: 1 });
      expect((r.fact!.sockets as unknown[])[0]).toMatchObject({ protocol: 'tcp', address: '127.0.0.1', port });
      if (isRoot) expect((r.fact!.sockets as { process: string | null }[])[0]!.process).toBeNull(); // the sandbox user may not look into root's process
      expect(r.fact!.unattributed).toBeGreaterThanOrEqual(1);
      const none = runShipped('listening_sockets', { port: port === 1 ? 2 : 1 });
      expect(none.fact).toMatchObject({ matching: 0, sockets: [] });
    } finally {
      server.close();
    }
  }, 60_000);

  it.skipIf(!isRoot)('its own listener is named by program and pid where the service\'s user runs it with no namespace between; inside a sandbox it is counted, not named', async () => {
    const listener = spawn('setpriv', ['--reuid=4242', '--regid=4242', '--clear-groups', process.execPath, '-e',
      "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port))"], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(listener);
    const port = Number(await new Promise<string>((r) => listener.stdout!.once('data', (d: Buffer) => r(d.toString().trim()))));
    const bare = runShipped('listening_sockets', { port, name: 'node' }, { uid: 4242, level: 'none' });
    expect(bare.error, bare.message).toBeUndefined();
    expect(bare.fact).toMatchObject({ port, name: 'node', matching: 1 });
    expect((bare.fact!.sockets as unknown[])[0]).toMatchObject({ port, process: 'node', pid: listener.pid });
    // a program in a user namespace may not look into another's file descriptors, even its own user's
    const boxed = runShipped('listening_sockets', { port }, { uid: 4242 });
    expect(boxed.fact).toMatchObject({ port, matching: 1 });
    expect((boxed.fact!.sockets as { process: string | null }[])[0]!.process).toBeNull();
  }, 60_000);
});
