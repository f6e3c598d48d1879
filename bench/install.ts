/**
 * Install benchmarks (issue 24): how big a production install is, and, when asked, how long
 * one takes on a fresh clone.
 *
 *   - sizes, always: from package-lock.json and the packages on disk here, what
 *     `npm ci --omit=dev` keeps as npm decides it (a package that is both a dev dependency and
 *     an optional peer of a production one is "devOptional" and stays: typescript was, until
 *     .npmrc's legacy-peer-deps), and what is left after systemd/prune-deps.sh, as
 *     systemd/install.sh installs (the script's --list says what it would remove). Each row
 *     names what it holds that a production box does not need (a type checker, llama.cpp
 *     builds for other platforms);
 *   - the same for real, only with PICO_BENCH_INSTALL=1 (it needs the registry and minutes):
 *     a `git clone` of this repository into a temporary folder, `npm ci --omit=dev` and the
 *     prune run there and timed, its node_modules measured, the folder removed. It never
 *     touches this repository's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_DIR } from '../src/root/runtime.js';
import type { BenchRow } from './types.js';

const GROUP = 'install';
const MB = 1024 * 1024;

interface LockEntry { dev?: boolean; optional?: boolean; devOptional?: boolean; peer?: boolean; os?: string[]; cpu?: string[] }

/** Bytes of a folder tree (files and links as stored; links not followed). */
function bytesOf(path: string): number {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.size;
  let sum = 0;
  for (const name of readdirSync(path)) sum += bytesOf(join(path, name));
  return sum;
}

/** Sum of the on-disk sizes of the lockfile's packages that `keep` keeps (nested ones are inside their parent). */
function keptBytes(dir: string, keep: (path: string, e: LockEntry) => boolean): { bytes: number; kept: string[] } {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const kept: string[] = [];
  for (const [path, e] of Object.entries(lock.packages)) {
    if (path === '' || !keep(path, e)) continue;
    kept.push(path);
  }
  // only the outermost kept folders are summed (a nested node_modules lies inside its parent)
  const outer = kept.filter((p) => !kept.some((q) => q !== p && p.startsWith(`${q}/`)));
  let bytes = 0;
  for (const p of outer) if (existsSync(join(dir, p))) bytes += bytesOf(join(dir, p));
  return { bytes, kept };
}

/** Whether a package with these os/cpu fields installs on this machine (npm's own filter). */
function fitsHere(e: LockEntry): boolean {
  return (!e.os || e.os.includes(process.platform)) && (!e.cpu || e.cpu.includes(process.arch));
}

/** What a production box carries that it does not need, named for a row's note. */
function extras(kept: string[]): string {
  const llama = kept.filter((p) => p.startsWith('node_modules/@node-llama-cpp/')).map((p) => p.slice('node_modules/@node-llama-cpp/'.length));
  const tools = ['typescript', 'vitest', 'esbuild', 'vite'].filter((t) => kept.includes(`node_modules/${t}`));
  return `llama.cpp builds: ${llama.join(', ') || 'none'}; compilers/type checkers: ${tools.join(', ') || 'none'}`;
}

/** What systemd/prune-deps.sh would remove from DIR/node_modules (it changes nothing with --list). */
function prunedPaths(dir: string): string[] {
  const out = execFileSync('sh', [join(PACKAGE_DIR, 'systemd', 'prune-deps.sh'), '--list', dir], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

/** The sizes `npm ci --omit=dev` keeps and what the prune leaves of it, from the lockfile and the packages on disk here. */
function sizeRows(dir: string): BenchRow[] {
  const omitDev = keptBytes(dir, (_, e) => !e.dev && (!e.optional || fitsHere(e)));
  const pruned = prunedPaths(dir);
  const prunedBytes = pruned.reduce((sum, p) => sum + bytesOf(p), 0);
  const left = omitDev.kept.filter((k) => !pruned.some((p) => p === join(dir, k)));
  return [
    { group: GROUP, name: '`npm ci --omit=dev`: node_modules', value: Math.round((omitDev.bytes / MB) * 10) / 10, unit: 'MB', note: extras(omitDev.kept) },
    { group: GROUP, name: 'as systemd/install.sh installs (then prune-deps.sh)', value: Math.round(((omitDev.bytes - prunedBytes) / MB) * 10) / 10, unit: 'MB', note: `goal <= 120; ${extras(left)}; bytes of the files, not disk blocks` },
  ];
}

/** `npm ci --omit=dev` and the prune in a fresh clone: seconds and MB. */
function installForReal(): BenchRow[] {
  const dir = mkdtempSync(join(tmpdir(), 'pico-bench-install-'));
  try {
    execFileSync('git', ['clone', '-q', PACKAGE_DIR, join(dir, 'clone')]);
    const cwd = join(dir, 'clone');
    const t0 = performance.now();
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd, stdio: 'ignore' });
    const s = (performance.now() - t0) / 1000;
    execFileSync('sh', [join(cwd, 'systemd', 'prune-deps.sh'), cwd]);
    return [
      { group: GROUP, name: '`npm ci --omit=dev` on a fresh clone: time', value: Math.round(s), unit: 's', note: 'goal <= 90; registry, npm cache and better-sqlite3\'s prebuilt binary as this machine reaches them now' },
      { group: GROUP, name: 'the same, then prune-deps.sh: node_modules', value: Math.round((bytesOf(join(cwd, 'node_modules')) / MB) * 10) / 10, unit: 'MB', note: 'goal <= 120; bytes of the files' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** All install rows. */
export async function benchInstall(): Promise<BenchRow[]> {
  const rows = sizeRows(PACKAGE_DIR);
  if (process.env.PICO_BENCH_INSTALL !== '1') {
    rows.push({ group: GROUP, name: '`npm ci --omit=dev` on a fresh clone: time', value: NaN, unit: 's', note: 'skipped: set PICO_BENCH_INSTALL=1 to clone and install for real (needs the registry; minutes)' });
    return rows;
  }
  return [...rows, ...installForReal()];
}
