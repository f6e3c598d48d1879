/**
 * Spawning the real compiled daemon (dist/src/cli/main.js) for end-to-end suites.
 * Needs `npm run build` first (`npm test` runs it as pretest).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';

export const MAIN_JS = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run \`npm run build\` before the daemon end-to-end tests`);

export type LogLine = Record<string, unknown> & { event?: string; msg?: string; level: number };

export interface RunningDaemon {
  child: ChildProcess;
  lines: LogLine[];
  /** resolves with the first log line (past or future) matching `pred` */
  waitFor(pred: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** resolves with the exit code (or the signal name) */
  exited: Promise<number | string>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Start `pico daemon --root root`; stdout is parsed as pino JSON lines. */
export function startDaemon(root: string, env: NodeJS.ProcessEnv = {}, extraArgs: string[] = []): RunningDaemon {
  const child = spawn(process.execPath, [MAIN_JS, 'daemon', '--root', root, ...extraArgs], {
    // debug: the tests wait for step-start lines, which the daemon logs at debug
    env: { ...process.env, PICO_LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: LogLine[] = [];
  const waiters: { pred: (l: LogLine) => boolean; ok: (l: LogLine) => void }[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let l: LogLine;
    try {
      l = JSON.parse(text) as LogLine;
    } catch {
      l = { level: 0, msg: text };
    }
    lines.push(l);
    for (const w of waiters.filter((w) => w.pred(l))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.ok(l);
    }
  });
  const exited = new Promise<number | string>((ok) => child.once('exit', (code, sig) => ok(code ?? sig ?? 'unknown')));
  return {
    child,
    lines,
    exited,
    waitFor(pred, timeoutMs = 20_000) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((ok, fail) => {
        const t = setTimeout(() => fail(new Error(`daemon log line not seen within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}; last lines: ${JSON.stringify(lines.slice(-5))}`)), timeoutMs);
        waiters.push({ pred, ok: (l) => (clearTimeout(t), ok(l)) });
        void exited.then((code) => fail(new Error(`daemon exited (${code}) before the awaited log line; stderr: ${stderr.slice(-2000)}`)));
      });
    },
  };
}

/** `startDaemon`, then wait for its `ready` line: a daemon that takes jobs. */
export async function readyDaemon(root: string, env: NodeJS.ProcessEnv = {}): Promise<RunningDaemon> {
  const d = startDaemon(root, env);
  await d.waitFor((l) => l.event === 'ready');
  return d;
}

/** SIGTERM the daemon and assert that it exits 0 (it finishes or checkpoints its step first). */
export async function stopDaemon(d: RunningDaemon): Promise<void> {
  d.child.kill('SIGTERM');
  expect(await d.exited).toBe(0);
}

/** The log line of session `id` ending (a result.json written). */
export const finished = (id: string) => (l: LogLine): boolean => l.event === 'finished' && l.session === id;
/** The debug line of a step of session `id` starting (its tool or provider is in flight). */
export const stepStarted = (id: string) => (l: LogLine): boolean => l.event === 'step' && l.session === id && l.phase === undefined;
/** The log line of session `id` stopping at a destructive step for a person's decision. */
export const waitsForApproval = (id: string) => (l: LogLine): boolean => l.event === 'waiting_approval' && l.session === id;

/**
 * Run a pico command to completion without blocking this worker's event loop (vitest's worker
 * must keep answering its runner: a test that blocks it for a minute in spawnSync calls fails
 * with an RPC timeout on a loaded machine); returns exit code and output.
 */
export function picoAsync(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runAsync(process.execPath, [MAIN_JS, ...args], opts);
}

/** Run any program to completion without blocking this worker's event loop (as picoAsync does for pico). */
export function runAsync(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(file, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Run a pico command to completion; returns exit code and output. */
export function pico(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A child process that prints one JSON object per stdout line (a daemon loop run from a script):
 * the lines so far, its exit, and a wait for the first line a predicate accepts (at most
 * `timeoutMs`, failing with the last lines seen).
 */
export function jsonLines(child: ChildProcess, timeoutMs = 30_000): { child: ChildProcess; lines: Record<string, unknown>[]; exited: Promise<number | null>; waitFor: (pred: (l: Record<string, unknown>) => boolean) => Promise<void> } {
  const lines: Record<string, unknown>[] = [];
  let waiters: { pred: (l: Record<string, unknown>) => boolean; ok: () => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (t) => {
    lines.push(JSON.parse(t) as Record<string, unknown>);
    const left = waiters.filter((w) => !w.pred(lines.at(-1)!));
    for (const w of waiters) if (!left.includes(w)) w.ok();
    waiters = left;
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (c) => ok(c)));
  const waitFor = (pred: (l: Record<string, unknown>) => boolean): Promise<void> =>
    lines.some(pred) ? Promise.resolve() : new Promise<void>((ok, fail) => {
      const t = setTimeout(() => fail(new Error(`not seen; last lines ${JSON.stringify(lines.slice(-8))}`)), timeoutMs);
      waiters.push({ pred, ok: () => (clearTimeout(t), ok()) });
    });
  return { child, lines, exited, waitFor };
}
