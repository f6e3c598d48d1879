/**
 * runInWorld — the ONE subprocess seam (design §7, "one execution world").
 *
 * Every tool and every shell provider runs through this function, so the
 * limits are enforced in one place: a scrubbed environment (`env.ts`), a
 * working directory the caller made for this run, a wall-clock limit (SIGTERM
 * to the whole process group, then SIGKILL after a short grace), an
 * output-size cap (stdout past the cap is dropped and the group gets SIGKILL
 * at once),
 * stdin closed after the input, and whatever isolation the machine offers
 * (`sandbox.ts`: no network, read-only outside the writable paths, a private
 * process tree), less what a run's `hostView` opens (registry/host-view.ts). A hang, a flood or a grandchild that keeps the pipes open
 * never leaves the caller waiting: after the first process exits the group is
 * swept with SIGKILL, and pipes still open after the grace are destroyed.
 * (Under the unshare wrapper the SIGTERM reaches only `unshare`, which holds
 * it, so a timed-out tool is in effect stopped by the SIGKILL after the grace.)
 *
 * A `builtin:` argv (see builtin.ts) is done by the world itself, in the same
 * shapes, where starting a program would only cost time.
 *
 * One result shape for success and failure (execa's idea): the caller reads
 * `failed`, `timedOut`, `truncated`, `canceled` and `exitCode` and decides what
 * that means; this module never throws for a subprocess that misbehaved. It
 * deliberately does not interpret output, retry, or decide trust.
 */
import { chownSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { execa as Execa } from 'execa';
import { isBuiltin, runBuiltin } from './builtin.js';
import { worldEnv } from './env.js';
import { openedBy, runLevel } from '../registry/host-view.js';
import type { WorldCapabilities } from './capabilities.js';
import { meetsLevel, worldCapabilities } from './sandbox.js';
import type { WorldRequest, WorldResult } from './shapes.js';
import { wrapArgv } from './wrap.js';
import { existingGroups } from './groups.js';
import { coversFor } from './reach.js';

export const KILL_GRACE_MS = 300;
export const STDERR_CAP = 64 * 1024;

/** Process groups still alive; killed synchronously if the daemon itself exits. */
const live = new Set<number>();
process.once('exit', () => {
  for (const pgid of live) killGroup(pgid, 'SIGKILL');
});

/** Signal a whole process group, best effort: it runs inside timers, so it must never throw. */
function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone. EPERM: the id now belongs to someone else's group. Either way, nothing to stop.
  }
}

/** Quote an argv for display only; nothing is ever run through a shell from this string. */
function display(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Cut a UTF-8 buffer at a byte limit without splitting a character. */
function decodeCapped(buf: Buffer, limit: number): string {
  if (buf.length <= limit) return buf.toString('utf8');
  let end = limit;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** Check the request before anything runs; the message names the field. */
function checkRequest(req: WorldRequest): void {
  if (!Array.isArray(req.argv) || req.argv.length === 0 || req.argv.some((a) => typeof a !== 'string' || a.includes('\0'))) {
    throw new TypeError('runInWorld: argv must be a non-empty array of strings without NUL bytes');
  }
  if (typeof req.cwd !== 'string' || !isAbsolute(req.cwd)) {
    throw new TypeError(`runInWorld: cwd must be an absolute path (make one with makeWorkDir), got ${JSON.stringify(req.cwd)}`);
  }
  if (!Number.isFinite(req.timeoutMs) || req.timeoutMs <= 0) {
    throw new TypeError(`runInWorld: timeoutMs must be a positive number of milliseconds, got ${req.timeoutMs}`);
  }
  if (!Number.isInteger(req.maxOutputBytes) || req.maxOutputBytes <= 0) {
    throw new TypeError(`runInWorld: maxOutputBytes must be a positive integer, got ${req.maxOutputBytes}`);
  }
}

/** Collects one output stream up to a byte cap; reports when the cap is first crossed. */
class Collector {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  over = false;
  constructor(private readonly cap: number) {}
  /** Add a chunk; returns true the first time the cap is exceeded. */
  push(chunk: Buffer): boolean {
    if (this.over) return false;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size <= this.cap) return false;
    this.over = true;
    return true;
  }
  /** The collected text, cut at the cap on a character boundary. */
  text(): string {
    return decodeCapped(Buffer.concat(this.chunks), this.cap);
  }
}

/**
 * execa, imported on the first real subprocess: it and its dependencies cost a new session
 * worker about 120 ms of CPU at start-up (issue 24), and a job whose tools are all built-in
 * reads never spawns one.
 */
let execaFn: typeof Execa | null = null;
async function loadExeca(): Promise<typeof Execa> {
  return (execaFn ??= (await import('execa')).execa);
}

/** Run one argv in the execution world and report what happened in one shape. */
export async function runInWorld(req: WorldRequest, opts: { capabilities?: WorldCapabilities } = {}): Promise<WorldResult> {
  checkRequest(req);
  if (isBuiltin(req.argv)) return runBuiltin(req);
  const caps = opts.capabilities ?? (await worldCapabilities());
  const execa = await loadExeca();
  const env = worldEnv(req.cwd, req.env);
  const started = performance.now();
  const views = req.hostView ?? [];
  const level = runLevel(caps.level, views);
  const base = { command: display(req.argv), cwd: req.cwd, isolation: level, ...(views.length > 0 ? { hostView: [...views] } : {}) };
  if (req.requires && !meetsLevel(level, req.requires)) {
    const gives = level === caps.level ? 'this machine gives' : `a run with host_view ${JSON.stringify(views)} gets`;
    const missing = [...caps.notEnforced, ...openedBy(views)];
    return { ...base, durationMs: 0, exitCode: null, signal: null, timedOut: false, truncated: false, canceled: false, stdout: '', stderr: '', failed: true,
      cause: `not run: it requires isolation "${req.requires}" and ${gives} "${level}" (not enforced: ${missing.join('; ')}); `
        + (level === caps.level ? 'install bubblewrap (bwrap) or allow user namespaces, or lower requires_isolation in its manifest' : 'drop host_view or lower requires_isolation in its manifest') };
  }
  if (req.signal?.aborted) {
    return { ...base, durationMs: 0, exitCode: null, signal: null, timedOut: false, truncated: false, canceled: true,
      stdout: '', stderr: '', failed: true, cause: 'canceled before start' };
  }
  const writable = req.writable ?? [req.cwd];
  // as root the program runs as the sandbox user: its own folders must be its own
  if (caps.runAsUid !== null) for (const w of writable) chownSync(w, caps.runAsUid, caps.runAsUid);
  const groups = caps.runAsUid !== null ? existingGroups(req.groups ?? []) : [];
  // as root the program is the sandbox user's: a folder it may not enter on the way to its own paths
  // is opened in its mount namespace (unshare) or left behind by bwrap's new root; with neither, it is said
  const gids = [caps.runAsUid ?? 0, ...groups];
  const covers = caps.runAsUid !== null && caps.wrapper !== 'bwrap' ? coversFor([req.cwd, ...writable, ...(req.readable ?? [])], caps.runAsUid, gids) : [];
  // without a mount namespace only the folder it starts in (inherited, not walked to) stays open to it
  const closedReads = caps.runAsUid !== null && caps.wrapper === null ? coversFor(req.readable ?? [], caps.runAsUid, gids) : [];
  if (closedReads.length > 0) {
    return { ...base, durationMs: 0, exitCode: null, signal: null, timedOut: false, truncated: false, canceled: false, stdout: '', stderr: '', failed: true,
      cause: `not run: it runs as uid ${caps.runAsUid}, which may not enter ${closedReads.map((c) => c.dir).join(', ')} on the way to the paths it reads, and this machine gives no mount namespace to open a way; install bubblewrap (bwrap), or keep the root under folders other users may enter` };
  }
  const [file, ...args] = wrapArgv(caps, req.argv, { writable, readable: req.readable ?? [], cwd: req.cwd, timeoutMs: req.timeoutMs, hostView: views, groups, ...(caps.wrapper === 'unshare' ? { covers } : {}) });
  const sub = execa(file!, args, {
    cwd: req.cwd, env, extendEnv: false, input: req.stdin ?? '', detached: true, reject: false,
    buffer: false, stripFinalNewline: false, windowsHide: true,
  });
  const pgid = sub.pid;
  const out = new Collector(req.maxOutputBytes);
  const err = new Collector(STDERR_CAP);
  let timedOut = false;
  let canceled = false;
  const timers: NodeJS.Timeout[] = [];

  // Stop the group: SIGTERM now and SIGKILL after the grace, or SIGKILL at once (a flood earns no grace).
  let stopping = false;
  const stop = (now = false): void => {
    if (pgid === undefined || stopping) return;
    stopping = true;
    killGroup(pgid, now ? 'SIGKILL' : 'SIGTERM');
    if (!now) timers.push(setTimeout(() => killGroup(pgid, 'SIGKILL'), KILL_GRACE_MS));
  };
  const onAbort = (): void => { canceled = true; stop(); };

  if (pgid !== undefined) {
    live.add(pgid);
    sub.stdout?.on('data', (c: Buffer | string) => { if (out.push(typeof c === 'string' ? Buffer.from(c) : c)) stop(true); });
    sub.stderr?.on('data', (c: Buffer | string) => { err.push(typeof c === 'string' ? Buffer.from(c) : c); });
    timers.push(setTimeout(() => { timedOut = true; stop(); }, req.timeoutMs));
    req.signal?.addEventListener('abort', onAbort, { once: true });
    // The first process is gone: nothing of its group may outlive it, and no pipe may hold us.
    sub.once('exit', () => {
      killGroup(pgid, 'SIGKILL');
      timers.push(setTimeout(() => { sub.stdout?.destroy(); sub.stderr?.destroy(); }, KILL_GRACE_MS));
    });
  }
  const result = await sub;
  for (const t of timers) clearTimeout(t);
  req.signal?.removeEventListener('abort', onAbort);
  if (pgid !== undefined) live.delete(pgid);

  const exitCode = typeof result.exitCode === 'number' ? result.exitCode : null;
  const signal = result.signal ?? null;
  const truncated = out.over;
  const failed = exitCode !== 0 || timedOut || truncated || canceled;
  let cause: string | undefined;
  if (timedOut) cause = `stopped after the ${req.timeoutMs} ms wall-clock limit`;
  else if (truncated) cause = `stdout exceeded the ${req.maxOutputBytes}-byte cap; the process was killed`;
  else if (canceled) cause = 'canceled by the caller';
  else if (pgid === undefined || (exitCode === null && signal === null)) cause = result.originalMessage || result.shortMessage;
  else if (signal !== null) cause = `killed by ${signal}`;
  return {
    ...base, durationMs: Math.round(performance.now() - started), exitCode, signal, timedOut, truncated, canceled,
    stdout: out.text(), stderr: err.text(), failed, ...(cause ? { cause } : {}),
  };
}
