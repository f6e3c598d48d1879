/**
 * Folders the sandbox user cannot pass through on the way to what a program
 * needs, and what lies below each.
 *
 * Why: when the daemon runs as root it hands every program to the sandbox
 * user (uid 65534). A root kept under a folder closed to other users —
 * `sudo pico ask` with the root in /root, or in /var/lib/picoharness (0750,
 * the service user's) — holds the program's own folder, its script and its
 * declared read paths, and the sandbox user may not walk into it: without
 * bubblewrap (which builds a new root of open folders) every such program
 * failed with "Permission denied", and apt, finding its TMPDIR unreachable,
 * fell back to a read-only /tmp. The unshare wrapper opens a way instead
 * (wrap.ts): in the program's own mount namespace it lays an open tmpfs over
 * each closed folder found here and binds back exactly the paths below it
 * that the program needs — nothing else of that folder is visible.
 *
 * Permission bits only (an ACL may open a folder these bits close: covering
 * it anyway loses nothing the program was meant to see).
 */
import { statSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';

export interface Cover {
  /** the closed folder a tmpfs is laid over */
  dir: string;
  /** the needed paths below it, relative to it */
  rels: string[];
}

/** May this user (with these groups) search (walk through) the folder? */
function searchable(dir: string, uid: number, gids: readonly number[]): boolean {
  try {
    const st = statSync(dir);
    if (st.uid === uid) return (st.mode & 0o100) !== 0;
    if (gids.includes(st.gid)) return (st.mode & 0o010) !== 0;
    return (st.mode & 0o001) !== 0;
  } catch {
    return true; // a folder that is not there closes nothing; the program says what it misses
  }
}

/** The topmost folder above `path` the user cannot walk through, or null when the way is open. */
function closedAbove(path: string, uid: number, gids: readonly number[]): string | null {
  const above: string[] = [];
  for (let d = dirname(path); d !== dirname(d); d = dirname(d)) above.unshift(d);
  return above.find((d) => !searchable(d, uid, gids)) ?? null;
}

/** The closed folders above the needed paths, each with the needed paths below it (absolute paths in, one cover per folder). */
export function coversFor(paths: readonly string[], uid: number, gids: readonly number[]): Cover[] {
  const covers = new Map<string, Set<string>>();
  for (const p of new Set(paths)) {
    const dir = closedAbove(p, uid, gids);
    if (dir === null) continue;
    const rel = relative(dir, p);
    if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..')) continue;
    covers.set(dir, (covers.get(dir) ?? new Set()).add(rel));
  }
  return [...covers].map(([dir, rels]) => ({ dir, rels: [...rels].sort() }));
}
