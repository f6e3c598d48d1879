/**
 * The one root check every command goes through (src/cli/main.ts calls it
 * before a command's module is even loaded).
 *
 * Why: a misspelt `--root` used to be met by whatever the command did with a
 * folder that was not there — `pico status` read an unreadable settings.json
 * and exited 3, `pico submit` made `WRONG/sessions/inbox/` and queued a job
 * no daemon would ever see, `pico run` listed every tool as unknown. A root
 * is made by `pico init` (or `pico daemon --init`) and by nothing else, so a
 * command that uses one says "no root at WRONG (pico init WRONG makes one)"
 * and exits 2 before it reads or writes anything. A root is a folder holding
 * `manifests/` or `sessions/` (what `pico init` makes; a root of an older
 * version, or one a test made with sessions only, counts too), or `fleet/`
 * (the root a fleet hub writes).
 *
 * The package's own folder, and the folders it ships (`manifests/`,
 * `providers/`, …), hold the shipped defaults and are never a root: the
 * commands that make or write a root refuse them by name. A fleet hub writes
 * its copies into a folder that exists (the unit's StateDirectory) and is not
 * one of the package's either. This module reads only.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { packageFolderOf } from '../base/package.js';

/** What the command does with its root: uses one that exists, may make it, or writes into an existing folder (a hub). */
export type RootMode = 'use' | 'make' | 'folder';

/** Where the command's root came from, for the words of the refusal. */
export type RootFrom = 'flag' | 'env' | 'cwd' | 'argument';

export interface RootProblem {
  problem: string;
  fix: string | null;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * True when `dir` is a root: a folder holding manifests/ or sessions/ (or fleet/: a fleet hub's
 * root), or one this user may not look into — then the command's own checks speak (the
 * root-owner rule names the user to run as), not a "no root" that may be false.
 */
export function isRoot(dir: string): boolean {
  return ['manifests', 'sessions', 'fleet'].some((sub) => {
    try {
      return statSync(join(dir, sub)).isDirectory();
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EACCES';
    }
  });
}

/**
 * What is wrong with `dir` as the root of a command, or null. `shown` is the folder as the person
 * named it (the `--root` value as typed); `refusePackage` says whether the package's own folders
 * are refused (commands that make or write a root).
 */
export function rootProblem(dir: string, shown: string, from: RootFrom, mode: RootMode, refusePackage: boolean): RootProblem | null {
  const own = refusePackage || mode !== 'use' ? packageFolderOf(dir) : null;
  if (own !== null) {
    const what = own === '' ? 'the picoharness package itself' : `the picoharness package's own ${own}/ folder`;
    return {
      problem: `${dir} is ${what}: it holds the shipped defaults and is never a root, so nothing a command does may write there`,
      fix: 'name a root with --root DIR (make one with pico init DIR; npm start makes and uses ./root, which git ignores)',
    };
  }
  if (mode === 'make') {
    let file = false;
    try {
      file = !statSync(dir).isDirectory();
    } catch { /* not there yet: it is made */ }
    return file ? { problem: `${shown} is a file, not a folder`, fix: 'name a folder to make the root in (pico init DIR)' } : null;
  }
  if (mode === 'folder') {
    return isDir(dir) ? null : { problem: `no folder at ${shown}: the hub writes into a folder that exists`, fix: `mkdir ${shown} (the hub's unit makes /var/lib/picoharness-hub itself)` };
  }
  if (isRoot(dir)) return null;
  const where = from === 'cwd' ? `${dir}, the current folder` : from === 'env' ? `${dir}, which PICO_ROOT names` : shown;
  const what = !isDir(dir) ? '' : ': the folder holds no manifests/ or sessions/';
  const name = from === 'cwd' ? '; or name a root with --root DIR' : '';
  return { problem: `no root at ${where}${what} (pico init ${shown} makes one${name})`, fix: null };
}
