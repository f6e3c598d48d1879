/**
 * The sandbox probe: what isolation this machine gives the execution world.
 *
 * Why: design §7 asks for "no network and read-only except declared paths,
 * using what the OS offers — and say plainly what is not enforced". Levels,
 * best first (wrap.ts builds the argv of each):
 *
 *   - "full" (bwrap):     a new root holding only the system folders, the
 *                         declared read paths and the writable paths; a fresh
 *                         /proc; no network; no capabilities (nothing can be
 *                         mounted, unmounted or remounted); a new session;
 *                         the tree dies with its parent.
 *   - "partial" (unshare): the host's tree remounted read-only, a fresh /proc,
 *                         no network, no capabilities — but host paths stay
 *                         visible (world-readable files can be read).
 *   - "network" (unshare -n): no network only; the filesystem is writable.
 *   - "none":             a plain process group.
 *
 * At every level, when the daemon runs as root the program runs as the
 * sandbox user (setpriv), and prlimit sets CPU-time, memory, process-count
 * and file-size limits where util-linux has it.
 *
 * The probe runs once per process (the promise is cached) and trusts only
 * what it observes inside a real run: a write outside the declared path must
 * fail, /proc/net/dev must list only `lo`, /proc must show only the sandbox's
 * processes even after `umount /proc`, a remount read-write must fail, a file
 * beside the working directory must be invisible (for "full"), and
 * /proc/self/limits must show the limits. A wrapper that does not deliver is
 * skipped, never half-trusted. Where user namespaces are blocked (a systemd
 * unit with RestrictNamespaces=yes) the level falls to "none".
 *
 * The level is the machine's; a tool that must see part of the host
 * (`host_view`, registry/host-view.ts) runs at a lower level of its own, and run.ts
 * reports that one.
 */
import { execFile } from 'node:child_process';
import { access, chmod, chown, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORLD_SANDBOX_UID } from './settings.js';
import { expectedLimits, parseLimits } from './limits.js';
import { type IsolationLevel, meetsLevel } from '../registry/levels.js';
import type { LimitName, WorldCapabilities } from './capabilities.js';
import { runningAsRoot, wrapArgv } from './wrap.js';

export { type IsolationLevel, ISOLATION_ORDER, meetsLevel } from '../registry/levels.js';

interface Seen {
  ro: boolean; net: boolean; proc: boolean; caps: boolean; hidden: boolean; limits: Record<LimitName, boolean>;
}
const NOTHING: Seen = { ro: false, net: false, proc: false, caps: false, hidden: false,
  limits: { cpu: false, memory: false, processes: false, fileSize: false } };

let cached: Promise<WorldCapabilities> | null = null;

/** What this machine enforces; probed once per process and cached. */
export function worldCapabilities(): Promise<WorldCapabilities> {
  cached ??= probe();
  return cached;
}

/** The capabilities of a machine that offers nothing (also the fallback; no limits, no user drop). */
export const NO_ISOLATION: WorldCapabilities = describe('none', null, null, null, null, NOTHING);

/** Run a command with a short timeout and resolve its stdout, or null when it failed. */
function tryRun(argv: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    execFile(file!, args, { cwd, timeout: 5000, env: { PATH: '/usr/bin:/bin' } }, (err, stdout) => resolve(err ? null : stdout));
  });
}

/** Find a binary in the fixed system paths (never the daemon's PATH). */
async function findBinary(name: string): Promise<string | null> {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']) {
    try {
      await access(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch { /* try the next one */ }
  }
  return null;
}

const PROBE_TIMEOUT_MS = 4000;

/** The probe's script: each line a fact the parent checks; attempts to escape come before the second look. */
function probeScript(allowed: string, dir: string): string {
  return [
    `touch '${allowed}/ok'`, `touch '${dir}/outside' 2>/dev/null`,
    `echo "procs=$(ls /proc | grep -c '^[0-9]')"`,
    `cat '${dir}/secret' 2>/dev/null`,
    'grep CapEff /proc/self/status',
    'mount -o remount,rw / 2>/dev/null; umount /proc 2>/dev/null; umount -l /proc 2>/dev/null',
    `touch '${dir}/outside' 2>/dev/null`,
    `echo "procs2=$(ls /proc | grep -c '^[0-9]')"`,
    'cat /proc/self/limits', 'cat /proc/net/dev',
  ].join('\n');
}

/** Observe one candidate inside a real run; null when it does not run at all. */
async function observe(caps: WorldCapabilities, dir: string): Promise<Seen | null> {
  const allowed = join(dir, 'allowed');
  await rm(allowed, { recursive: true, force: true });
  await rm(join(dir, 'outside'), { force: true });
  await mkdir(allowed);
  if (caps.runAsUid !== null) await chown(allowed, caps.runAsUid, caps.runAsUid);
  await writeFile(join(dir, 'secret'), 'SECRET-OF-THE-HOST\n', { mode: 0o644 });
  await chmod(dir, 0o777); // so a refused write outside is the sandbox's doing, not the sandbox user's missing permission
  const argv = wrapArgv(caps, ['/bin/sh', '-c', probeScript(allowed, dir)], { writable: [allowed], readable: [], cwd: allowed, timeoutMs: PROBE_TIMEOUT_MS });
  const out = await tryRun(argv, allowed);
  if (out === null || !(await readdir(allowed)).includes('ok')) return null;
  const lines = out.split('\n');
  const num = (key: string): number => Number(lines.find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1));
  const ifaces = lines.filter((l) => /^\s*[^\s|]+:/.test(l) && !/^\w+=/.test(l) && !l.startsWith('CapEff')).map((l) => l.trim().split(':')[0]);
  const want = expectedLimits(PROBE_TIMEOUT_MS);
  const got = parseLimits(out);
  const limits = Object.fromEntries((Object.keys(want) as LimitName[]).map((k) => [k, got[k] === want[k]])) as Record<LimitName, boolean>;
  return {
    ro: !(await readdir(dir)).includes('outside'),
    net: ifaces.length > 0 && ifaces.every((n) => n === 'lo'),
    proc: num('procs') <= 5 && num('procs2') <= 5,
    caps: /^CapEff:\s*0+$/m.test(out),
    hidden: !out.includes('SECRET-OF-THE-HOST'),
    limits,
  };
}

/** The level a set of observations earns. */
function levelOf(s: Seen): IsolationLevel {
  if (!s.net) return 'none';
  if (!(s.ro && s.proc && s.caps)) return 'network';
  return s.hidden ? 'full' : 'partial';
}

/** Build the capability record for a level, with the plain-language lists. */
function describe(level: IsolationLevel, wrapper: WorldCapabilities['wrapper'], path: string | null,
  limiter: string | null, dropper: string | null, o: Seen): WorldCapabilities {
  const runAsUid = dropper && runningAsRoot() ? WORLD_SANDBOX_UID : null;
  const enforced = ['scrubbed environment', 'own working directory', 'wall-clock limit', 'output-size cap', 'process-group kill'];
  const notEnforced: string[] = [];
  const say = (ok: boolean, what: string): number => (ok ? enforced : notEnforced).push(what);
  say(o.net, 'no network');
  say(o.ro, 'read-only filesystem outside declared paths');
  say(o.proc, 'private /proc (other processes and their environments hidden)');
  say(o.caps, 'no capabilities (cannot mount, unmount or remount)');
  say(o.hidden, 'host paths hidden (only system folders, read_paths and its own folder are visible)');
  say(o.limits.cpu, 'CPU-time limit');
  say(o.limits.memory, 'memory limit (per process)');
  say(o.limits.processes, 'process-count limit');
  say(o.limits.fileSize, 'file-size limit');
  say(level === 'full', 'descendants that escape the process group die with the leader');
  if (runningAsRoot()) say(runAsUid !== null, `runs as uid ${WORLD_SANDBOX_UID}, not root`);
  notEnforced.push('a total memory limit over all of a run\'s processes (limits are per process)');
  if (!o.hidden) notEnforced.push('reads of world-readable files');
  if (wrapper !== 'bwrap') notEnforced.push('writes to device nodes under /dev (a read-only mount does not stop them)');
  return {
    level, wrapper, wrapperPath: path, limiterPath: limiter, dropperPath: dropper, runAsUid,
    network: !o.net, readOnlyFilesystem: o.ro, privateProc: o.proc, capabilitiesDropped: o.caps, hostPathsHidden: o.hidden,
    limits: o.limits, treeDiesWithLeader: level === 'full', scrubbedEnvironment: true, enforced, notEnforced,
  };
}

/** Check one wrapper by observation; the capabilities it delivers (at most `level`), or null when it falls short of `level`. */
export async function tryWrapper(level: Exclude<IsolationLevel, 'none'>, wrapper: 'bwrap' | 'unshare', path: string,
  tools: { limiter?: string | null; dropper?: string | null } = {}): Promise<WorldCapabilities | null> {
  const limiter = tools.limiter === undefined ? await findLimiter() : tools.limiter;
  const dropper = tools.dropper === undefined ? await findBinary('setpriv') : tools.dropper;
  const dir = await mkdtemp(join(tmpdir(), 'pico-probe-'));
  try {
    const seen = await observe(describe(level, wrapper, path, limiter, dropper, NOTHING), dir);
    if (seen === null) return null;
    const got = levelOf(seen);
    if (!meetsLevel(got, level)) return null;
    return describe(got, wrapper, path, limiter, dropper, seen);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Limits and the user drop without any wrapper: observed like the rest. */
async function bare(): Promise<WorldCapabilities> {
  const limiter = await findLimiter();
  const dropper = await findBinary('setpriv');
  if (!limiter && !dropper) return NO_ISOLATION;
  const dir = await mkdtemp(join(tmpdir(), 'pico-probe-'));
  try {
    const seen = await observe(describe('none', null, null, limiter, dropper, NOTHING), dir);
    if (seen === null) return NO_ISOLATION;
    return describe('none', null, null, limiter, dropper, { ...NOTHING, limits: seen.limits });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** prlimit, when it can set limits here (a syscall filter may forbid setrlimit). */
async function findLimiter(): Promise<string | null> {
  const path = await findBinary('prlimit');
  if (!path) return null;
  return (await tryRun([path, '--nofile=256', '--', '/bin/true'], '/')) === null ? null : path;
}

/**
 * The capabilities of one level as this machine delivers it (bwrap for "full", unshare for "partial"
 * and "network", the bare limits and user drop for "none"), observed like the probe; null when the
 * machine cannot give that level. For running a program at a level other than the machine's best
 * (a test of every shipped tool at every level).
 */
export async function worldAt(level: IsolationLevel): Promise<WorldCapabilities | null> {
  if (level === 'none') return bare();
  const path = await findBinary(level === 'full' ? 'bwrap' : 'unshare');
  if (!path) return null;
  const caps = await tryWrapper(level === 'full' ? 'partial' : level, level === 'full' ? 'bwrap' : 'unshare', path);
  return caps && caps.level === level ? caps : null;
}

/** Try bwrap, then unshare "partial", then unshare "network"; settle for "none". */
async function probe(): Promise<WorldCapabilities> {
  const bwrap = await findBinary('bwrap');
  const unshare = await findBinary('unshare');
  if (bwrap) {
    const caps = await tryWrapper('partial', 'bwrap', bwrap);
    if (caps) return caps;
  }
  if (unshare) {
    for (const level of ['partial', 'network'] as const) {
      const caps = await tryWrapper(level, 'unshare', unshare);
      if (caps) return caps;
    }
  }
  return bare();
}
