/**
 * Run a CommonJS bundle of picoharness through V8's code cache (issue 32).
 *
 * A new session worker used to spend most of its start loading some 300 ES modules: finding
 * each file, reading it, compiling it. `npm run build` puts the worker's code into one CommonJS
 * file (scripts/bundle-worker.mjs, dist/bundle/worker.cjs); this runs it the way node runs a
 * CommonJS module, but through `vm.Script` with the code V8 compiled in an earlier start, so
 * that the functions a start needs are not parsed and compiled again.
 *
 * The cache is V8's own format and V8 checks it: made by another node, other V8 flags or another
 * source, it is rejected and the bundle compiles as if there were none. Its file name carries a
 * digest of the bundle's text (the build writes it into the first line), of node's version and
 * of the flags, so a stale cache is never even offered. A cache that is missing or was rejected
 * is written again once start-up is over (bundle-hooks.ts startupDone), to a temporary name and
 * renamed; where the folder may not be written (an install owned by root), the bundle runs
 * without one, which is still quicker than the separate modules.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { installBundleHooks } from './bundle-hooks.js';

/** The first line of a bundle: `// picoharness bundle <digest of the rest>`. */
const HEAD = /^\/\/ picoharness bundle ([0-9a-f]{16,64})\n/;

export interface BundleRun {
  /** the cache file this process looks for and would write */
  cacheFile: string;
  /** 'used': V8 took the cache; 'none': there was none; 'rejected': V8 would not take it */
  cache: 'used' | 'none' | 'rejected';
}

/** The cache file for `bundle` under this node and these flags, or null when the bundle has no digest line. */
export function cacheFileFor(bundle: string, text: string, execArgv: readonly string[] = process.execArgv): string | null {
  const m = HEAD.exec(text);
  if (!m) return null;
  const key = createHash('sha256').update(`${m[1]}\0${process.version}\0${process.arch}\0${execArgv.join('\0')}`).digest('hex').slice(0, 16);
  return `${bundle}.${key}.cache`;
}

/**
 * Load and run `bundle` as this process's main module. Throws what reading or running it throws
 * (the caller, a tiny entry file, lets that end the process as a module's error would).
 */
export function runBundle(bundle: string): BundleRun {
  const text = readFileSync(bundle, 'utf8');
  const cacheFile = cacheFileFor(bundle, text);
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined; // none yet, or unreadable: compile
    }
  }
  // the wrapper node itself puts around a CommonJS module, on the same line so positions stay true
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${text}\n})`, { filename: bundle, cachedData });
  const run: BundleRun = { cacheFile: cacheFile ?? '', cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used' };
  let kept = false;
  installBundleHooks(
    (specifier) => import(specifier),
    () => {
      if (kept || run.cache === 'used' || !cacheFile) return;
      kept = true;
      keepCache(cacheFile, script.createCachedData());
    },
  );
  const mod = { exports: {} as unknown, filename: bundle, id: '.', loaded: false };
  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  fn(mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  mod.loaded = true;
  return run;
}

/** Write the cache beside the bundle, whole or not at all; a folder that may not be written keeps none. */
function keepCache(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}
