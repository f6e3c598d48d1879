/**
 * The package's own folder, its own sub-folders, and which of its files ship.
 *
 * The package (a checkout, or /opt/picoharness) holds the shipped defaults —
 * manifests/, prompts/, examples/, the shell providers — and is never a data
 * root (design §13): a root is made by `pico init` and holds copies. Two
 * questions follow, and this module answers both, so that `pico init`, the
 * CLI's refusal and systemd/install.sh cannot disagree:
 *
 * - is this folder the package itself? (`isPackageDir`: by real path, so a
 *   link or `.` does not slip past);
 * - which files of a shipped folder ship? In a git checkout, the files git
 *   tracks (`git ls-files`): a model manifest provisioned into the checkout by
 *   an older version, a generated sample log or an editor's backup is not a
 *   default, and a new root must not inherit it. An installed copy has no
 *   `.git`: install.sh copied only tracked files into it, so all of them ship.
 *   A new shipped file counts from `git add` on (git's index, not a commit):
 *   until then `pico init`, and so every test root, leaves it out.
 *
 * It reads and spawns `git` once per process (the answer is kept); it writes
 * nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the package itself: the nearest folder above this module holding package.json. */
export const PACKAGE_DIR = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dir;
})();

/** The real path of `dir`, or its resolved path when it does not exist (yet). */
function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** True when `dir` is the package's own folder (`pkg`, by default this package), whatever path names it. */
export function isPackageDir(dir: string, pkg = PACKAGE_DIR): boolean {
  return real(dir) === real(pkg);
}

/** The real path of `dir`, or of its nearest existing parent with the rest appended (a folder not made yet). */
function realOrParent(dir: string): string {
  const abs = resolve(dir);
  try {
    return realpathSync(abs);
  } catch {
    const up = dirname(abs);
    return up === abs ? abs : join(realOrParent(up), basename(abs));
  }
}

const ownFoldersOf = new Map<string, Set<string>>();

/** The package's own top-level folders: those git tracks files in (a checkout), or every one (an installed copy). */
function ownFolders(pkg: string): Set<string> {
  let found = ownFoldersOf.get(pkg);
  if (!found) {
    const r = existsSync(join(pkg, '.git')) ? spawnSync('git', ['-C', pkg, 'ls-files', '-z', '--cached'], { encoding: 'utf8', maxBuffer: 16 << 20 }) : null;
    found = r && r.status === 0 && !r.error
      ? new Set(r.stdout.split('\0').filter((f) => f.includes('/')).map((f) => f.slice(0, f.indexOf('/'))))
      : new Set(readdirSync(pkg, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
    ownFoldersOf.set(pkg, found);
  }
  return found;
}

/**
 * Whether `dir` is the package or lies in one of its own folders, whatever path names it: `''` for
 * the package itself, the top-level folder's name (`manifests`, `providers`, …) for a folder in
 * one, null otherwise. A folder the package does not hold as its own (the checkout's `./root`,
 * which git ignores and `npm start` uses) is null. Spawns git only for a folder inside the package.
 */
export function packageFolderOf(dir: string, pkg = PACKAGE_DIR): string | null {
  const d = realOrParent(dir);
  const p = real(pkg);
  if (d === p) return '';
  if (!d.startsWith(p + sep)) return null;
  const top = d.slice(p.length + 1).split(sep)[0]!;
  return ownFolders(p).has(top) ? top : null;
}

/** How the shipped files were told apart: by git (a checkout), or all files (an installed copy). */
export type ShippedBy = 'git' | 'all';

export interface Shipped {
  by: ShippedBy;
  /** paths relative to the package folder, '/'-separated, sorted */
  files: string[];
}

const known = new Map<string, Shipped>();

/**
 * The regular files under `folders` (relative to `pkg`) that ship with the package: tracked by
 * git in a checkout, every one in an installed copy. Files that git tracks but that are gone
 * from the disk are left out.
 */
export function shippedFiles(folders: readonly string[], pkg = PACKAGE_DIR): Shipped {
  const key = `${real(pkg)}\0${folders.join('\0')}`;
  let found = known.get(key);
  if (!found) {
    found = tracked(pkg, folders) ?? { by: 'all', files: walk(pkg, folders) };
    known.set(key, found);
  }
  return { by: found.by, files: [...found.files] };
}

/** The files git tracks under `folders`, or null when `pkg` is not a git checkout (or git is not installed). */
function tracked(pkg: string, folders: readonly string[]): Shipped | null {
  if (!existsSync(join(pkg, '.git'))) return null;
  const r = spawnSync('git', ['-C', pkg, 'ls-files', '-z', '--cached', '--', ...folders], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0 || r.error) return null;
  const files = r.stdout.split('\0').filter((f) => f !== '' && isFile(join(pkg, f)));
  return { by: 'git', files: [...new Set(files)].sort() };
}

/** Every regular file under `folders`, walked without following links. */
function walk(pkg: string, folders: readonly string[]): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    const abs = join(pkg, rel);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const name of readdirSync(abs)) visit(`${rel}/${name}`);
    else if (st.isFile()) out.push(rel);
  };
  for (const f of folders) visit(f);
  return out.sort();
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
