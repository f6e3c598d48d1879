/**
 * Install benchmarks (issue 24): how big a production install is, and, when asked, how long
 * one takes on a fresh clone.
 *
 *   - sizes, always: from package-lock.json and the packages on disk here, what each way of
 *     installing keeps — `npm ci --omit=dev` as npm decides it (a package that is both a dev
 *     dependency and an optional peer of a production one, as typescript is of node-llama-cpp,
 *     is "devOptional" and stays unless optional ones are omitted too), and the production
 *     recipe of the README (`npm ci --omit=dev --omit=optional`, then the one llama.cpp
 *     package of this platform). Each row names what it holds that a production box does not
 *     need (a type checker, llama.cpp builds for other platforms);
 *   - the recipe for real, only with PICO_BENCH_INSTALL=1 (it needs the registry and
 *     minutes): a `git clone` of this repository into a temporary folder, the recipe run there
 *     and timed, its node_modules measured, the folder removed. It never touches this
 *     repository's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_DIR } from '../src/runtime/runtime.js';
import type { BenchRow } from './types.js';

const GROUP = 'install';
const MB = 1024 * 1024;

interface LockEntry { dev?: boolean; optional?: boolean; devOptional?: boolean; peer?: boolean; os?: string[]; cpu?: string[] }

/** The npm package of node-llama-cpp's prebuilt binary for this platform (CPU build), or null when there is none. */
export function llamaPlatformPackage(platform: string = process.platform, arch: string = process.arch): string | null {
  const names: Record<string, string> = {
    'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'linux-arm': 'linux-armv7l',
    'darwin-arm64': 'mac-arm64-metal', 'darwin-x64': 'mac-x64', 'win32-x64': 'win-x64', 'win32-arm64': 'win-arm64',
  };
  const n = names[`${platform}-${arch}`];
  return n ? `@node-llama-cpp/${n}` : null;
}

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

/** The sizes the two ways of installing keep, from the lockfile and the packages on disk here. */
function sizeRows(dir: string): BenchRow[] {
  const platform = llamaPlatformPackage();
  const omitDev = keptBytes(dir, (_, e) => !e.dev && (!e.optional || fitsHere(e)));
  const recipe = keptBytes(dir, (path, e) => !e.dev && !e.devOptional && (!e.optional || (platform !== null && path === `node_modules/${platform}`)));
  return [
    { group: GROUP, name: '`npm ci --omit=dev`: node_modules', value: Math.round((omitDev.bytes / MB) * 10) / 10, unit: 'MB', note: extras(omitDev.kept) },
    { group: GROUP, name: 'production recipe (README): node_modules', value: Math.round((recipe.bytes / MB) * 10) / 10, unit: 'MB', note: `goal <= 120; ${extras(recipe.kept)}` },
  ];
}

/** The README's production recipe in a fresh clone: seconds and MB. */
function recipeForReal(): BenchRow[] {
  if (process.env.PICO_BENCH_INSTALL !== '1') {
    return [];
  }
  const platform = llamaPlatformPackage();
  const dir = mkdtempSync(join(tmpdir(), 'pico-bench-install-'));
  try {
    execFileSync('git', ['clone', '-q', PACKAGE_DIR, join(dir, 'clone')]);
    const cwd = join(dir, 'clone');
    const t0 = performance.now();
    execFileSync('npm', ['ci', '--omit=dev', '--omit=optional', '--no-audit', '--no-fund'], { cwd, stdio: 'ignore' });
    if (platform) execFileSync('npm', ['install', '--no-save', '--omit=dev', '--no-audit', '--no-fund', `${platform}@${llamaVersion(cwd)}`], { cwd, stdio: 'ignore' });
    const s = (performance.now() - t0) / 1000;
    return [
      { group: GROUP, name: 'production recipe on a fresh clone: time', value: Math.round(s), unit: 's', note: 'goal <= 90; registry and npm cache as this machine has them now' },
      { group: GROUP, name: 'production recipe on a fresh clone: node_modules', value: Math.round((bytesOf(join(cwd, 'node_modules')) / MB) * 10) / 10, unit: 'MB', note: 'goal <= 120' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The node-llama-cpp version the lockfile pins (its platform package must match it). */
function llamaVersion(dir: string): string {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  return lock.packages['node_modules/node-llama-cpp']?.version ?? 'latest';
}

/** All install rows. */
export async function benchInstall(): Promise<BenchRow[]> {
  const rows = sizeRows(PACKAGE_DIR);
  if (process.env.PICO_BENCH_INSTALL !== '1') {
    rows.push({ group: GROUP, name: 'production recipe on a fresh clone: time', value: NaN, unit: 's', note: 'skipped: set PICO_BENCH_INSTALL=1 to clone and install for real (needs the registry; minutes)' });
  }
  return [...rows, ...recipeForReal()];
}
