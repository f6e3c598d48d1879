/**
 * Forking a session worker: the script, its node flags and environment, and the first worker
 * forked early (preforkWorker, issue 24) — before the daemon has loaded the rest of itself, so
 * the worker loads the runtime's code on another core meanwhile. worker-host.ts owns what happens
 * to a worker once forked.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PREFORKED, WORKER_V8_FLAGS } from './worker-protocol.js';
import { currentBundle } from '../base/bundle-run.js';

/**
 * What a session worker runs: worker-bundled.js, which runs the worker's bundle through V8's code
 * cache (issue 32), when the build made dist/bundle/worker.cjs and it is current
 * (base/bundle-run.ts currentBundle; PICO_BUNDLE=0 says no); else worker.js and the modules it
 * imports. Each is looked for beside this file, or in the build output when run from sources.
 */
export function workerScript(env: NodeJS.ProcessEnv = process.env): string {
  const bundled = currentBundle('worker.cjs', env) !== null;
  for (const dir of ['./', '../../dist/src/daemon/']) {
    const at = (rel: string): string => fileURLToPath(new URL(dir + rel, import.meta.url));
    if (bundled && existsSync(at('worker-bundled.js'))) return at('worker-bundled.js');
    if (existsSync(at('worker.js'))) return at('worker.js');
  }
  throw new Error('src/daemon/worker.js not found; run `npm run build` first');
}

/**
 * The daemon runs with V8 flags that keep it small (systemd/picoharness.service: lite mode,
 * which needs wasm off, and a 1 MB young generation); they would slow the worker, which runs the jobs and exits when idle,
 * so it gets the daemon's other flags without them.
 */
const DAEMON_ONLY_FLAGS = ['--lite-mode', '--no-expose-wasm', '--max-semi-space-size'];

/** The daemon's environment without systemd's notify and watchdog variables: only the daemon talks to systemd. */
export function workerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const k of ['NOTIFY_SOCKET', 'WATCHDOG_USEC', 'WATCHDOG_PID']) delete out[k];
  return out;
}

export function workerExecArgv(execArgv: readonly string[]): string[] {
  return execArgv.filter((a) => !DAEMON_ONLY_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)));
}

/** A session worker process: forked, with the promise of how it ended. */
export interface Forked {
  child: ChildProcess;
  exited: Promise<string>;
  t0: number;
}

export function forkWorker(root: string, args: string[], env: NodeJS.ProcessEnv): Forked {
  const t0 = performance.now();
  const script = workerScript();
  // the bundled worker sets its V8 flags itself, after node's modules it needs are loaded (worker-bundled.ts)
  const v8Flags = script.endsWith('worker-bundled.js') ? [] : WORKER_V8_FLAGS;
  const child = fork(script, [root, ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: workerEnv(env),
    serialization: 'json',
    execArgv: [...workerExecArgv(process.execArgv), ...v8Flags],
  });
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });
  return { child, exited, t0 };
}

let preforked: (Forked & { root: string }) | null = null;

/**
 * Fork the first session worker before the daemon has loaded the rest of itself (cli/daemon.ts,
 * issue 24): it loads the runtime's code meanwhile, on another core, and touches nothing of the
 * root until the host, holding the root's lock and having killed a previous daemon's worker, tells
 * it to open. Unused, it goes with dropPreforked() or when this process exits (its channel closes).
 */
export function preforkWorker(root: string): void {
  if (preforked) return;
  preforked = { ...forkWorker(root, [PREFORKED], process.env), root };
  preforked.child.on('error', () => undefined); // a send to it as it exits: its exit says the rest
}

/** The preforked worker is not wanted after all (the daemon does not start): it goes now. */
export function dropPreforked(): void {
  const p = preforked;
  preforked = null;
  if (p && p.child.exitCode === null) p.child.kill('SIGTERM');
}

/** The preforked worker for `root`, when one is still alive (taken once). */
export function takePreforked(root: string): Forked | null {
  const p = preforked;
  if (!p || p.root !== root) return null;
  preforked = null;
  if (p.child.exitCode === null && p.child.signalCode === null && p.child.connected) return p;
  return null;
}

