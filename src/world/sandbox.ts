/**
 * The sandbox probe: what isolation this machine gives the execution world.
 *
 * Why: design §7 asks for "no network and read-only except declared paths,
 * using what the OS offers — and say plainly what is not enforced". On Linux
 * the cheap tools are `bwrap` (bubblewrap) and `unshare` (util-linux), both
 * built on unprivileged user namespaces. Levels, best first:
 *
 *   - "full" via bwrap:   a new root with / bound read-only (recursively), the
 *                         writable paths bound read-write, a minimal /dev, a
 *                         private /proc, no network, a new pid namespace and
 *                         session, dying with its parent. One exec, cheap.
 *   - "full" via unshare: `unshare -rn -m --pid --fork --kill-child --mount-proc`
 *                         plus a small `sh` prelude that bind-mounts the
 *                         writable paths onto themselves and remounts every
 *                         other mount read-only (one `mount` per mount point,
 *                         so it costs tens of ms — see bench.ts).
 *   - "network":          `unshare -rn` only: no network; the filesystem is
 *                         NOT read-only and /proc is shared.
 *   - "none":             a plain process group: only the scrubbed environment,
 *                         the own working directory, the time limit and the
 *                         output cap are enforced.
 *
 * The probe runs once per process (the promise is cached) and trusts only
 * what it observes: a write outside the declared path must fail, /proc/net/dev
 * must list only `lo`, and /proc must show only the sandbox's processes. A
 * wrapper that does not deliver is skipped, never half-trusted.
 *
 * A tool whose whole point is to look at the machine (ps, ip) names the
 * namespaces it must share in its manifest's `host_view` ("pid", "net"):
 * wrapArgv then leaves exactly those as the host's and keeps the rest.
 *
 * Not enforced at any level: CPU and memory limits (no cgroup delegation is
 * assumed), reads of world-readable files, and — with unshare — writes to
 * device nodes under /dev (a read-only mount does not stop them; run the
 * daemon as its own user, never root). Where user namespaces are blocked
 * (e.g. a systemd unit with RestrictNamespaces=yes) the level is "none".
 */
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type IsolationLevel = 'full' | 'network' | 'none';

export interface WorldCapabilities {
  level: IsolationLevel;
  /** which wrapper provides the level */
  wrapper: 'bwrap' | 'unshare' | null;
  /** absolute path of the wrapper binary, or null */
  wrapperPath: string | null;
  /** true when the subprocess can reach a network (i.e. network isolation is NOT enforced) */
  network: boolean;
  readOnlyFilesystem: boolean;
  privateProc: boolean;
  /** killing the first process takes every descendant with it, even one that called setsid */
  treeDiesWithLeader: boolean;
  /** always true: the environment is rebuilt from scratch for every run */
  scrubbedEnvironment: true;
  /** plain sentences on what is and is not enforced here */
  enforced: string[];
  notEnforced: string[];
}

/** The unshare prelude: $1 = count of writable paths, then the paths, then the argv to exec. */
const PRELUDE = [
  'n="$1"; shift; i=0; keep=""',
  'while [ "$i" -lt "$n" ]; do mount --bind "$1" "$1" || exit 125; keep="$keep|$1|"; shift; i=$((i+1)); done',
  // skip writable paths, mounts already done (listed twice) and mounts already read-only
  'while read -r _dev mnt _type opts _rest; do',
  '  case "$keep" in *"|$mnt|"*) continue;; esac',
  '  keep="$keep|$mnt|"',
  '  case "$opts" in ro|ro,*) continue;; esac',
  '  mount -o remount,bind,ro "$mnt" 2>/dev/null',
  'done < /proc/self/mounts',
  // re-enter the cwd by path so it resolves through the writable bind mount
  'cd -P -- "$PWD" || exit 125',
  'exec "$@"',
].join('\n');

/** Namespaces a caller may ask to share with the host (a tool's `host_view`): its processes, its network. */
export type HostView = 'pid' | 'net';

/**
 * Wrap an argv so it runs at the given isolation level with `writable` as the only writable paths.
 * A namespace named in `share` is left as the host's: "pid" keeps the host's /proc and process
 * tree (ps sees every process), "net" the host's interfaces and routes (and so its network).
 */
export function wrapArgv(caps: WorldCapabilities, argv: readonly string[], writable: readonly string[], cwd: string, share: readonly HostView[] = []): string[] {
  const bin = caps.wrapperPath;
  const net = share.includes('net') ? [] : null;
  const pid = share.includes('pid') ? [] : null;
  if (caps.level === 'none' || bin === null) return [...argv];
  if (caps.level === 'network') return net ? [...argv] : [bin, '-r', '-n', '--', ...argv];
  if (caps.wrapper === 'bwrap') {
    const binds = writable.flatMap((w) => ['--bind', w, w]);
    const spaces = ['--unshare-user-try', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      ...(pid ?? ['--unshare-pid']), ...(net ?? ['--unshare-net'])];
    return [bin, ...spaces, '--die-with-parent', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev',
      ...(pid ?? ['--proc', '/proc']), ...binds, '--chdir', cwd, '--', ...argv];
  }
  return [bin, '-r', ...(net ?? ['-n']), '-m', ...(pid ?? ['--pid', '--fork', '--kill-child', '--mount-proc']), '--',
    '/bin/sh', '-c', PRELUDE, 'world', String(writable.length), ...writable, ...argv];
}

let cached: Promise<WorldCapabilities> | null = null;

/** What this machine enforces; probed once per process and cached. */
export function worldCapabilities(): Promise<WorldCapabilities> {
  cached ??= probe();
  return cached;
}

/** The capabilities of a machine that offers nothing (also the fallback). */
export const NO_ISOLATION: WorldCapabilities = describe('none', null, null, { ro: false, net: false, proc: false });

/** Run a command with a short timeout and resolve its stdout, or null when it failed. */
function tryRun(argv: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    execFile(file!, args, { cwd, timeout: 5000, env: { PATH: '/usr/bin:/bin' } }, (err, stdout) => resolve(err ? null : stdout));
  });
}

/** Find a binary in the fixed system paths (never the daemon's PATH). */
async function findBinary(name: string): Promise<string | null> {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) {
    try {
      await access(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch { /* try the next one */ }
  }
  return null;
}

/** Observe one candidate: does a write outside the writable dir fail, is the network gone, is /proc private? */
async function observe(caps: WorldCapabilities, dir: string): Promise<{ ro: boolean; net: boolean; proc: boolean } | null> {
  const allowed = join(dir, 'allowed');
  await rm(allowed, { recursive: true, force: true });
  await rm(join(dir, 'outside'), { force: true });
  await mkdir(allowed);
  const script = `touch '${allowed}/ok'; touch '${dir}/outside' 2>/dev/null; ls /proc | grep -c '^[0-9]'; cat /proc/net/dev`;
  const out = await tryRun(wrapArgv(caps, ['/bin/sh', '-c', script], [allowed], allowed), allowed);
  if (out === null || !(await readdir(allowed)).includes('ok')) return null;
  const ro = !(await readdir(dir)).includes('outside');
  const ifaces = out.split('\n').filter((l) => /^\s*[^\s|]+:/.test(l)).map((l) => l.trim().split(':')[0]);
  const net = ifaces.length > 0 && ifaces.every((n) => n === 'lo');
  const procCount = Number(out.split('\n')[0]);
  return { ro, net, proc: Number.isFinite(procCount) && procCount <= 5 };
}

/** Build the capability record for a level, with the plain-language lists. */
function describe(level: IsolationLevel, wrapper: WorldCapabilities['wrapper'], path: string | null,
  o: { ro: boolean; net: boolean; proc: boolean }): WorldCapabilities {
  const enforced = ['scrubbed environment', 'own working directory', 'wall-clock limit', 'output-size cap', 'process-group kill'];
  const notEnforced = ['CPU and memory limits', 'reads of world-readable files'];
  (o.net ? enforced : notEnforced).push('no network');
  (o.ro ? enforced : notEnforced).push('read-only filesystem outside declared paths');
  (o.proc ? enforced : notEnforced).push('private /proc (other processes and their environments hidden)');
  (level === 'full' ? enforced : notEnforced).push('descendants that escape the process group die with the leader');
  if (wrapper !== 'bwrap') notEnforced.push('writes to device nodes under /dev (a read-only mount does not stop them)');
  return {
    level, wrapper, wrapperPath: path, network: !o.net, readOnlyFilesystem: o.ro, privateProc: o.proc,
    treeDiesWithLeader: level === 'full', scrubbedEnvironment: true, enforced, notEnforced,
  };
}

/** Check one wrapper by observation; the capabilities it delivers, or null when it does not deliver its level. */
export async function tryWrapper(level: Exclude<IsolationLevel, 'none'>, wrapper: 'bwrap' | 'unshare', path: string): Promise<WorldCapabilities | null> {
  const dir = await mkdtemp(join(tmpdir(), 'pico-probe-'));
  try {
    const seen = await observe(describe(level, wrapper, path, { ro: false, net: false, proc: false }), dir);
    if (seen === null || !seen.net) return null;
    if (level === 'full' && !(seen.ro && seen.proc)) return null;
    return describe(level, wrapper, path, seen);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Try bwrap, then unshare "full", then unshare "network"; settle for "none". */
async function probe(): Promise<WorldCapabilities> {
  const bwrap = await findBinary('bwrap');
  const unshare = await findBinary('unshare');
  if (bwrap) {
    const caps = await tryWrapper('full', 'bwrap', bwrap);
    if (caps) return caps;
  }
  if (unshare) {
    for (const level of ['full', 'network'] as const) {
      const caps = await tryWrapper(level, 'unshare', unshare);
      if (caps) return caps;
    }
  }
  return NO_ISOLATION;
}
