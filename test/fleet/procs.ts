/**
 * Real processes for the fleet's end-to-end suite: nats-server with JetStream
 * on a free loopback port in a temp folder, and `pico` commands (daemon,
 * agent, hub) from the compiled dist/. Each child's stdout is read as pino
 * JSON lines. Every child still running when a test ends is killed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach } from 'vitest';
import { MAIN_JS } from '../daemon/spawn.js';

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
  exited: Promise<number | string>;
  waitFor(pred: (l: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL (a crash) or SIGTERM (a stop), and wait for the exit */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<number | string>;
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

/** Start a process whose stdout is JSON lines. */
export function startProc(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; ok: (l: Record<string, unknown>) => void }[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let l: Record<string, unknown>;
    try {
      l = JSON.parse(text) as Record<string, unknown>;
    } catch {
      l = { msg: text };
    }
    lines.push(l);
    for (const w of waiters.filter((w) => w.pred(l))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.ok(l);
    }
  });
  const exited = new Promise<number | string>((ok) => child.once('exit', (code, sig) => ok(code ?? sig ?? 'unknown')));
  return {
    child, lines, exited,
    stderr: () => stderr,
    waitFor(pred, timeoutMs = 20_000) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((ok, fail) => {
        const t = setTimeout(() => fail(new Error(`${args.slice(0, 2).join(' ')}: line not seen within ${timeoutMs} ms; stderr: ${stderr}; last: ${JSON.stringify(lines.slice(-3))}`)), timeoutMs);
        waiters.push({ pred, ok: (l) => (clearTimeout(t), ok(l)) });
      });
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** `pico ARGS` as a long-running process. */
export function startPico(args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  return startProc(process.execPath, [MAIN_JS, ...args], { PICO_LOG_LEVEL: 'info', ...env });
}

/** nats-server with JetStream on `port`, storing under `dir`; resolves once it accepts clients. */
export async function startNats(port: number, dir: string, config?: string): Promise<Proc> {
  const p = startProc(NATS_SERVER!, config ? ['-c', config] : ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir]);
  // it logs to stderr; readiness is a TCP connect that succeeds
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((res) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), res(true)));
      s.once('error', () => res(false));
    });
    if (ok) return p;
    if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`nats-server did not listen on ${port} within 10 s: ${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Run a pico command to completion. */
export function pico(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
