/**
 * Real processes for the fleet's end-to-end suite: nats-server with JetStream
 * on a free loopback port in a temp folder, and `pico` commands (daemon,
 * agent, hub) from the compiled dist/. Each pico child's stdout is read as pino
 * JSON lines by the daemon suites' `jsonLines`. Every child still running when
 * a test ends is killed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { jsonLines, MAIN_JS, picoAsync } from '../daemon/spawn.js';

/** The nats-server binary, or null when it is not installed (.ci/run installs it). */
export const NATS_SERVER = ((): string | null => {
  const r = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
})();
if (!NATS_SERVER) console.warn('nats-server not found (Debian: apt-get install nats-server; .ci/run installs it): skipping the fleet end-to-end suites');

export interface Proc {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** the last 4000 characters of stderr */
  stderr(): string;
  /** the exit code (null after a signal) */
  exited: Promise<number | null>;
  waitFor(pred: (l: Record<string, unknown>) => boolean): Promise<void>;
  /** SIGKILL (a crash) or SIGTERM (a stop), and wait for the exit */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<number | null>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** A child the test owns: killed when the test ends, its stderr's tail kept for failure messages. */
function owned(child: ChildProcess): { stderr: () => string; kill: (signal: 'SIGKILL' | 'SIGTERM', exited: Promise<number | null>) => Promise<number | null> } {
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  return {
    stderr: () => stderr,
    kill(signal, exited) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** `pico ARGS` as a long-running process whose stdout is pino JSON lines (read by the daemon suites' follower). */
export function startPico(args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, [MAIN_JS, ...args], { env: { ...process.env, PICO_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const o = owned(child);
  const j = jsonLines(child, 20_000);
  return { ...j, stderr: o.stderr, kill: (signal) => o.kill(signal, j.exited) };
}

/** nats-server with JetStream on `port`, storing under `dir`; resolves once it accepts clients. */
export async function startNats(port: number, dir: string, config?: string): Promise<Pick<Proc, 'child' | 'stderr' | 'kill'>> {
  const child = spawn(NATS_SERVER!, config ? ['-c', config] : ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  const o = owned(child);
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const p = { child, stderr: o.stderr, kill: (signal: 'SIGKILL' | 'SIGTERM') => o.kill(signal, exited) };
  // it logs to stderr; readiness is a TCP connect that succeeds
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((res) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), res(true)));
      s.once('error', () => res(false));
    });
    if (ok) return p;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`nats-server did not listen on ${port} within 10 s: ${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A temp folder and nats-server with JetStream in it on a free port: the start of every fleet suite. */
export async function natsInTemp(prefix: string): Promise<{ dir: string; port: number; server: string; nats: Awaited<ReturnType<typeof startNats>> }> {
  const dir = tempDir(prefix);
  const port = await freePort();
  return { dir, port, server: `nats://127.0.0.1:${port}`, nats: await startNats(port, join(dir, 'js')) };
}

/** Run a pico command to completion, without blocking this worker (vitest's RPC must keep being answered under load). */
export function pico(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return picoAsync(args, { env: { ...process.env, ...env } });
}

/** A pause of `ms` (a box's agent polls and ships on its own clock). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
