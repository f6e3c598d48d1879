/**
 * host_view: what of the host a tool may see as the host does, and the
 * isolation level a run keeps when it does.
 *
 * Why: a tool whose whole point is to report on the machine sees nothing
 * useful inside the sandbox — `df` in the fresh root lists only the
 * sandbox's mounts, `ps` in a pid namespace only itself, `ip addr` in a net
 * namespace only `lo`. Such a tool names, in its manifest's `host_view`,
 * exactly what it must see; the wrappers (world/wrap.ts) open that and keep the
 * rest:
 *
 *   - "fs":  the host's whole tree, read-only, instead of a new root (and so
 *            its unix sockets: systemctl reaches systemd over the system bus);
 *   - "pid": the host's process tree and its /proc;
 *   - "net": the host's network namespace (its interfaces, routes — and so
 *            its network).
 *
 * Each view takes away one protection the level ladder of world/sandbox.ts is
 * built on, so a run with a view is reported at the level that remains,
 * never at the machine's: "fs" hides no host path (at most "partial"),
 * "pid" has no private /proc (at most "network"), "net" has a network (at
 * most "none"). `requires_isolation` is checked against that run level.
 *
 * This module owns the vocabulary and the arithmetic only; it builds no argv.
 * It lives in the registry, below the world, because a manifest's host_view
 * and requires_isolation are checked against it when the manifest loads.
 */
import { ISOLATION_ORDER, type IsolationLevel } from './levels.js';

export const HOST_VIEWS = ['fs', 'pid', 'net'] as const;
export type HostView = (typeof HOST_VIEWS)[number];

/** The best level a run can have while it sees this part of the host. */
const CEILING: Record<HostView, IsolationLevel> = { fs: 'partial', pid: 'network', net: 'none' };

/** What each view leaves unenforced, in the words of the probe's lists. */
const OPENED: Record<HostView, string> = {
  fs: 'host paths hidden (host_view "fs": the host\'s tree is visible read-only, and its unix sockets, such as the system bus, can be reached)',
  pid: 'private /proc (host_view "pid": the host\'s processes are visible)',
  net: 'no network (host_view "net": the host\'s network is reachable)',
};

/** The level of one run: the machine's level, lowered to the ceiling of every view it asks for. */
export function runLevel(machine: IsolationLevel, views: readonly HostView[] = []): IsolationLevel {
  let at = ISOLATION_ORDER.indexOf(machine);
  for (const v of views) at = Math.min(at, ISOLATION_ORDER.indexOf(CEILING[v]));
  return ISOLATION_ORDER[at]!;
}

/** The best level any machine can give a run with these views ("full" without any). */
export function bestLevel(views: readonly HostView[] = []): IsolationLevel {
  return runLevel('full', views);
}

/** Plain sentences on what these views leave open, for a refusal or a report. */
export function openedBy(views: readonly HostView[] = []): string[] {
  return views.map((v) => OPENED[v]);
}
