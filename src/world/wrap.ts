/**
 * The argv that confines one program: resource limits, then the isolation
 * wrapper, then (as root) the drop to the sandbox user — with no group but
 * those a tool names to read its source (read_groups) — then the program.
 *
 *   prlimit --cpu --data --nproc --fsize --nofile --core=0 --      (limits.ts)
 *     bwrap | unshare …                                            (the level)
 *       setpriv --reuid=65534 … --bounding-set=-all --no-new-privs (root only)
 *         the program
 *
 * bwrap builds a new root on an empty tmpfs: only the system folders from
 * settings (read-only), the declared readable paths (read-only), the
 * writable paths, a minimal /dev and a fresh /proc of its own pid namespace;
 * then `/` is remounted read-only. As root bwrap runs privileged (no user
 * namespace) and setpriv drops to the sandbox user with an empty capability
 * bounding set; otherwise bwrap makes a user namespace and drops every
 * capability itself. Either way nothing inside can mount, unmount or remount.
 *
 * The unshare fallback keeps the host's tree but remounts it read-only and
 * then clears the capability bounding set before the program runs, so the
 * remounts cannot be undone; it cannot hide host paths (level "partial").
 * As root it first opens a way to the program's paths through folders the
 * sandbox user may not enter (reach.ts), as bwrap's new root does by itself.
 *
 * A run's `hostView` (a tool's `host_view`, registry/host-view.ts) opens exactly what
 * it names and keeps the rest, with either wrapper: "fs" binds the host's
 * tree read-only instead of the new root (unshare shows it anyway); "pid"
 * keeps the host's pid namespace and binds its /proc read-only instead of a
 * fresh one; "net" keeps the host's network namespace.
 *
 * This module only builds argv; the probe (sandbox.ts) decides which wrapper
 * delivers what, and run.ts runs the result.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { WORLD_SYSTEM_PATHS } from './settings.js';
import { limitArgv } from './limits.js';
import type { HostView } from '../registry/host-view.js';
import type { WorldCapabilities } from './capabilities.js';
import type { Cover } from './reach.js';

export interface Confinement {
  writable: readonly string[];
  /** what of the host this run sees as the host does (a tool's host_view); default nothing */
  hostView?: readonly HostView[];
  readable: readonly string[];
  cwd: string;
  timeoutMs: number;
  /** gids the program keeps when root hands it to the sandbox user; default none */
  groups?: readonly number[];
  /** closed folders to open a way through for the sandbox user (reach.ts; the unshare wrapper only) */
  covers?: readonly Cover[];
}

/**
 * The unshare prelude: $1 = count of covers, then for each its closed folder, the count of its
 * paths and the paths (reach.ts); then the count of writable paths and the paths; then the argv.
 * A cover lays an open tmpfs over the closed folder (entered first, so the shell's own folder is the
 * real one below) and binds each needed path back from it through /proc/self/cwd.
 */
const COVERS = [
  'here=$PWD; umask 022',
  'nc="$1"; shift',
  'while [ "$nc" -gt 0 ]; do',
  '  a="$1"; k="$2"; shift 2',
  '  cd -P -- "$a" || exit 125',
  '  mount -t tmpfs -o mode=0755 pico-reach "$a" || exit 125',
  '  while [ "$k" -gt 0 ]; do',
  '    if [ -d "$1" ]; then mkdir -p -- "$a/$1"; else mkdir -p -- "$(dirname -- "$a/$1")" && : > "$a/$1"; fi || exit 125',
  '    mount --no-canonicalize --bind "/proc/self/cwd/$1" "$a/$1" || exit 125',
  '    shift; k=$((k-1))',
  '  done',
  '  nc=$((nc-1))',
  'done',
];
const PRELUDE = [
  ...COVERS,
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
  'cd -P -- "$here" || exit 125',
  'exec "$@"',
].join('\n');

/** True when the world runs as root and so must hand programs to the sandbox user. */
export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * setpriv: as root, become the sandbox user with no capability; inside an unshare user namespace
 * (where the program would hold every capability of that namespace) clear them; bwrap without
 * root drops them itself; a plain run of another user has none to drop (and may not clear the
 * bounding set outside a namespace of its own). No new privileges always.
 */
function dropArgv(caps: WorldCapabilities, inUnshareUserNs: boolean, groups: readonly number[] = []): string[] {
  if (!caps.dropperPath) return [];
  if (caps.runAsUid !== null) {
    const keep = groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups';
    return [caps.dropperPath, `--reuid=${caps.runAsUid}`, `--regid=${caps.runAsUid}`, keep, '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
  }
  if (inUnshareUserNs) return [caps.dropperPath, '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
  return [caps.dropperPath, '--no-new-privs', '--'];
}

let systemBinds: { paths: string[]; args: string[] } | null = null;

/** bwrap arguments that show the system folders of settings: read-only binds, symlinks kept as symlinks. */
function systemArgs(): { paths: string[]; args: string[] } {
  if (systemBinds) return systemBinds;
  const paths: string[] = [];
  const args: string[] = [];
  for (const p of WORLD_SYSTEM_PATHS) {
    try {
      const st = lstatSync(p);
      args.push(...(st.isSymbolicLink() ? ['--symlink', readlinkSync(p), p] : ['--ro-bind', p, p]));
      paths.push(p);
    } catch { /* absent on this machine: nothing to show */ }
  }
  systemBinds = { paths, args };
  return systemBinds;
}

/** The folders above the given paths, shortest first (bwrap would make them 0700, which the sandbox user cannot cross). */
function parentDirs(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) out.add(`/${parts.slice(0, i).join('/')}`);
  }
  const system = new Set(WORLD_SYSTEM_PATHS);
  return [...out].filter((d) => !system.has(d)).sort((a, b) => a.length - b.length);
}

/** Wrap an argv so it runs confined at the level the capabilities describe, opening only what `c.hostView` names. */
export function wrapArgv(caps: WorldCapabilities, argv: readonly string[], c: Confinement): string[] {
  const limits = caps.limiterPath ? limitArgv(caps.limiterPath, c.timeoutMs) : [];
  const bin = caps.wrapperPath;
  const root = caps.runAsUid !== null;
  const view = new Set(c.hostView ?? []);
  if (caps.level === 'none' || bin === null) return [...limits, ...dropArgv(caps, false, c.groups), ...argv];
  if (caps.wrapper === 'bwrap') {
    const drop = dropArgv(caps, false, c.groups);
    const ns = [...(root ? [] : ['--unshare-user']), ...(view.has('pid') ? [] : ['--unshare-pid']),
      ...(view.has('net') ? [] : ['--unshare-net']), ...(root ? [] : ['--cap-drop', 'ALL'])];
    const system = systemArgs();
    const dirs = parentDirs([...system.paths, ...c.readable, ...c.writable]).flatMap((d) => ['--perms', '0755', '--dir', d]);
    const ro = view.has('fs') ? [] : c.readable.flatMap((r) => ['--ro-bind', r, r]);
    const rw = c.writable.flatMap((w) => ['--bind', w, w]);
    const tree = view.has('fs') ? ['--ro-bind', '/', '/'] : ['--tmpfs', '/', ...dirs, ...system.args];
    const proc = view.has('pid') ? ['--ro-bind', '/proc', '/proc'] : ['--proc', '/proc'];
    return [...limits, bin, ...ns, '--die-with-parent', '--new-session', ...tree,
      '--dev', '/dev', ...proc, ...ro, ...rw, '--remount-ro', '/', '--chdir', c.cwd, '--', ...drop, ...argv];
  }
  const userNs = root ? [] : ['-r'];
  const net = view.has('net') ? [] : ['-n'];
  const covers = (c.covers ?? []).flatMap((k) => [k.dir, String(k.rels.length), ...k.rels]);
  if (caps.level === 'network') {
    // the network is all this level isolates (a run that shares it needs no namespace), but a way
    // through a closed folder still takes a mount namespace of its own
    if (covers.length > 0) {
      return [...limits, bin, ...userNs, ...net, '-m', '--', '/bin/sh', '-c', [...COVERS, 'cd -P -- "$here" || exit 125', 'exec "$@"'].join('\n'),
        'world', String(c.covers!.length), ...covers, ...dropArgv(caps, !root, c.groups), ...argv];
    }
    if (view.has('net')) return [...limits, ...dropArgv(caps, false, c.groups), ...argv];
    return [...limits, bin, ...userNs, ...net, '--', ...dropArgv(caps, !root, c.groups), ...argv];
  }
  const pid = view.has('pid') ? [] : ['--pid', '--fork', '--kill-child', '--mount-proc'];
  return [...limits, bin, ...userNs, ...net, '-m', ...pid, '--',
    '/bin/sh', '-c', PRELUDE, 'world', String(c.covers?.length ?? 0), ...covers, String(c.writable.length), ...c.writable, ...dropArgv(caps, !root, c.groups), ...argv];
}
