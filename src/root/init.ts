/**
 * `pico init DIR`: a root laid out like the repository — manifests/,
 * providers/ (shell scripts; code providers ship inside the package),
 * prompts/, examples/, sessions/inbox/, memory/, models/ (provisioned GGUF files) — filled with the shipped
 * defaults. It never overwrites a file that exists, so running it on an
 * existing root only adds what is missing. It copies only what ships with
 * the package (src/base/package.ts: in a checkout, what git tracks), so a
 * file left in the package's folders — a generated sample, a manifest of a
 * model that is not there — never reaches a new root; and it refuses to make
 * the package's own folder, or one of the folders it ships (providers/,
 * manifests/, …), a root.
 */
import { copyFileSync, existsSync, mkdirSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_DIR, packageFolderOf, shippedFiles, type ShippedBy } from '../base/package.js';

const COPY = ['manifests', 'prompts', 'examples', 'providers'];

export interface InitReport {
  root: string;
  created: string[];
  kept: string[];
  /** how the shipped files were told apart: what git tracks (a checkout), or every file (an installed copy) */
  shipped_by: ShippedBy;
}

/** The package's own folder (or one it ships) was named as a root: its files are the shipped defaults, not a user's. */
export class PackageRootError extends Error {
  override name = 'PackageRootError';
  readonly fix: string;
  constructor(dir: string, folder = '') {
    super(`${dir} is ${folder === '' ? 'the picoharness package itself' : `the picoharness package's own ${folder}/ folder`}; it holds the shipped defaults and is never a root`);
    this.fix = 'make a root elsewhere and name it: pico init DIR, then --root DIR (npm start makes and uses ./root, which git ignores)';
  }
}

/** Create or complete a root at `dir` from the package's shipped defaults. */
export function initRoot(dir: string, from = PACKAGE_DIR): InitReport {
  const own = packageFolderOf(dir, from);
  if (own !== null) throw new PackageRootError(dir, own);
  const shipped = shippedFiles(COPY, from);
  const report: InitReport = { root: dir, created: [], kept: [], shipped_by: shipped.by };
  for (const d of ['sessions/inbox', 'sessions/rejected', 'memory', 'models', 'providers']) mkdirSync(join(dir, d), { recursive: true, ...(d === 'sessions/rejected' ? { mode: 0o700 } : {}) });
  for (const rel of shipped.files) {
    // Shell providers only: the code providers ship compiled inside the package.
    const shell = rel.startsWith('providers/');
    if (shell && !/^providers\/[^/]+\.sh$/.test(rel)) continue;
    const dst = join(dir, rel);
    if (existsSync(dst)) {
      report.kept.push(rel);
      continue;
    }
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(join(from, rel), dst);
    if (shell) chmodSync(dst, 0o755);
    report.created.push(rel);
  }
  return report;
}
