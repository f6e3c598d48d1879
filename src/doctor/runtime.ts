/**
 * Doctor checks of the Node runtime and the native modules picoharness
 * loads: the Node version (20 or later: the code uses its APIs, and the
 * shipped lock file's native builds target it), better-sqlite3 (memory: an
 * in-memory database is opened and queried) and node-llama-cpp (GGUF
 * models: the module is imported and the prebuilt binding package for this
 * platform is located, but no model and no binding is loaded — that costs
 * seconds and memory, and `pico probe` does it). Nothing is written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ok, type Check } from './check.js';

/** The folder and version of the package above a resolved module entry (its `exports` hide package.json itself). */
function packageOf(entryUrl: string): { dir: string; version: string } | null {
  let dir = dirname(fileURLToPath(entryUrl));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'node-llama-cpp') return { dir, version: pkg.version ?? '?' };
  }
  return null;
}

/** Node 20 or later; the fix says what to do on Debian 12, whose nodejs is 18. */
export function nodeCheck(version = process.versions.node): Check {
  const major = Number(version.split('.')[0]);
  if (major >= 20) return ok('node', 'node version', `node ${version}`);
  return {
    group: 'node', name: 'node version', level: 'fail', detail: `node ${version}: picoharness needs Node 20 or later`,
    fix: 'Debian 12 (bookworm) ships nodejs 18: install Node 20+ from NodeSource (deb.nodesource.com, node_20.x) or an official build from nodejs.org, then reinstall (npm ci --omit=dev) so the native modules match; Debian 13 and Raspberry Pi OS based on it ship Node 20',
  };
}

/** better-sqlite3 loads and runs a query in an in-memory database. */
export async function sqliteCheck(): Promise<Check> {
  try {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    const v = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    db.close();
    return ok('modules', 'better-sqlite3', `loads; SQLite ${v} (memory/episodic.db works)`);
  } catch (err) {
    return {
      group: 'modules', name: 'better-sqlite3', level: 'fail', detail: `does not load: ${(err as Error).message.split('\n')[0]}`,
      fix: 'its native build does not match this Node: run `npm rebuild better-sqlite3` (or `npm ci --omit=dev` again) with the Node that runs picoharness',
    };
  }
}

/** node-llama-cpp imports, and which prebuilt binding it would use here (nothing is loaded). */
export async function llamaCheck(hasModels: boolean): Promise<Check> {
  const name = 'node-llama-cpp';
  let pkg: { dir: string; version: string } | null = null;
  try {
    pkg = packageOf(import.meta.resolve('node-llama-cpp'));
    await import('node-llama-cpp');
  } catch (err) {
    return {
      group: 'modules', name, level: hasModels ? 'fail' : 'warn', detail: `does not import: ${(err as Error).message.split('\n')[0]}${hasModels ? '' : ' (no gguf provider needs it yet)'}`,
      fix: 'reinstall it with the Node that runs picoharness: `npm ci --omit=dev` in the install folder',
    };
  }
  const platform = `${process.platform}-${process.arch === 'arm' ? 'armv7l' : process.arch}`;
  const version = pkg?.version ?? '?';
  // the prebuilt binding is an optional dependency, installed beside it or inside it
  const binding = pkg && [join(pkg.dir, '..', '@node-llama-cpp', platform), join(pkg.dir, 'node_modules', '@node-llama-cpp', platform)].some((d) => existsSync(d)) ? `@node-llama-cpp/${platform}` : null;
  if (binding) return ok('modules', name, `${version} imports; prebuilt binding ${binding} (CPU); no model loaded`);
  return {
    group: 'modules', name, level: 'warn', detail: `${version} imports, but no prebuilt binding for ${platform} is installed: it would build llama.cpp from source on first use (minutes, needs cmake and a compiler)`,
    fix: 'install on a supported platform (linux-x64, linux-arm64, linux-armv7l) with `npm ci --omit=dev`, or run `npx --no node-llama-cpp source download` once',
  };
}
