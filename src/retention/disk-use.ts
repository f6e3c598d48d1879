/**
 * How much disk a folder tree takes, and how much removing it would free.
 *
 * Bytes are allocated blocks (st.blocks × 512), not apparent sizes: that is
 * what a full SD card counts. Each inode is counted once (session folders
 * hold hard links to the shared composition documents under
 * sessions/.compositions/), and `freedBy` counts only files no other link
 * keeps alive, so a dry run does not promise bytes a removal cannot free.
 * `sessionsDiskUse` is what `pico status` may show. Read-only; symlinks are
 * not followed.
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isSessionId } from '../ledger/session-id.js';

/** Walk a tree (lstat, no symlink following), calling `visit` for every entry, the root included. */
export function walk(path: string, visit: (path: string, st: Stats) => void): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // removed while we looked
    throw e;
  }
  visit(path, st);
  if (!st.isDirectory()) return;
  for (const name of readdirSync(path)) walk(join(path, name), visit);
}

const allocated = (st: Stats): number => st.blocks * 512;

/** Bytes that removing this tree would free: files with no other hard link, and the folders. */
export function freedBy(path: string): number {
  let bytes = 0;
  walk(path, (_p, st) => {
    if (st.isDirectory() || st.nlink <= 1) bytes += allocated(st);
  });
  return bytes;
}

export interface SessionsDiskUse {
  /** the sessions/ folder this describes */
  dir: string;
  /** every byte under sessions/ (each inode once): sessions, spool, rejects, archives, daemon state */
  bytes: number;
  /** session folders (named by a session id) and what they take */
  sessions: number;
  session_bytes: number;
  /** sessions/archive/ (pico gc --archive) */
  archive_bytes: number;
  /** entries this user may not read (rejected/ is the daemon's own, 0700): their bytes are not counted */
  unreadable: number;
}

/** Disk use of `<root>/sessions`, each inode counted once; zeros when it does not exist. */
export function sessionsDiskUse(root: string): SessionsDiskUse {
  const dir = join(root, 'sessions');
  const out: SessionsDiskUse = { dir, bytes: 0, sessions: 0, session_bytes: 0, archive_bytes: 0, unreadable: 0 };
  const seen = new Set<string>();
  const count = (st: Stats): number => {
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return 0;
    seen.add(key);
    return allocated(st);
  };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  out.bytes += count(lstatSync(dir));
  for (const name of names) {
    let sub = 0;
    try {
      walk(join(dir, name), (_p, st) => (sub += count(st)));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EPERM') throw e;
      out.unreadable++; // a group member running pico status: what it may read is counted
    }
    out.bytes += sub;
    if (isSessionId(name)) {
      out.sessions++;
      out.session_bytes += sub;
    } else if (name === 'archive') out.archive_bytes += sub;
  }
  return out;
}
