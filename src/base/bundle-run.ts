/**
 * Run a CommonJS bundle of picoharness through V8's code cache (issue 32).
 *
 * The daemon and each new session worker used to spend most of their start loading ES modules:
 * finding each file, reading it, compiling it. `npm run build` puts each process's code into one
 * CommonJS file (scripts/bundles.mjs: dist/bundle/daemon.cjs, worker.cjs); this runs one the way
 * node runs a CommonJS module, but through `vm.Script` with the code V8 compiled in an earlier
 * start, so that the functions a start needs are not parsed and compiled again.
 *
 * The cache is V8's own format and V8 checks it: made by another node, other V8 flags or another
 * source, it is rejected and the bundle compiles as if there were none. Its file name carries a
 * digest of the bundle's text (the build writes it into the first line), of node's version and
 * of the flags, so a stale cache is never even offered. The session worker's cache, missing or
 * rejected, is written again once it is warm (bundle-hooks.ts startupDone), to a temporary name
 * and renamed, in systemd's cache folder for the service when there is one ($CACHE_DIRECTORY,
 * systemd/picoharness.service) and beside the bundle otherwise. The daemon's is made by the
 * build (KeepCache says why). Where none can be had, a bundle runs without one, which is still
 * quicker than the separate modules.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { installBundleHooks } from './bundle-hooks.js';

/** The first line of a bundle: `// picoharness bundle <digest of the rest>`. */
const HEAD = /^\/\/ picoharness bundle ([0-9a-f]{16,64})\n/;
/** Its second: `// node builtins: <node's modules it requires, by name>` (scripts/bundles.mjs). */
const BUILTINS = /^\/\/ picoharness bundle [0-9a-f]{16,64}\n\/\/ node builtins: ([a-z0-9_/ ]*)\n/;

export interface BundleRun {
  /** what the bundle's entry module exports */
  exports: unknown;
  /** 'used': V8 took the cache; 'none': there was none; 'rejected': V8 would not take it */
  cache: 'used' | 'none' | 'rejected';
}

/**
 * dist/bundle/<name> when the build made it and it is current: not older than the last
 * compilation (a `tsc -b` by hand after `npm run build` leaves it behind the modules; an install
 * has no record of compiling, and its bundle is current). Null otherwise, or with PICO_BUNDLE=0
 * (to compare, or to read stack traces with the modules' file names): the modules run then.
 */
export function currentBundle(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.PICO_BUNDLE === '0') return null;
  // beside the compiled file, or the build output when run from sources (the tests)
  for (const dist of ['../../', '../../dist/']) {
    const bundle = fileURLToPath(new URL(`${dist}bundle/${name}`, import.meta.url));
    const b = statSync(bundle, { throwIfNoEntry: false });
    if (!b) continue;
    return bundleCurrent(bundle, fileURLToPath(new URL(`${dist}tsconfig.tsbuildinfo`, import.meta.url))) ? bundle : null;
  }
  return null;
}

/** The bundle exists and is not older than the compilation record (none: it is). */
export function bundleCurrent(bundle: string, buildInfo: string): boolean {
  const b = statSync(bundle, { throwIfNoEntry: false });
  if (!b) return false;
  const info = statSync(buildInfo, { throwIfNoEntry: false });
  return !info || b.mtimeMs >= info.mtimeMs;
}

/**
 * Where the cache for `bundle` under this node and these flags is looked for, in order, and the
 * first is where it is written: systemd's cache folder for the service, then beside the bundle
 * (where the build's warm-up leaves the daemon's). Null when the bundle has no digest line.
 */
export function cacheFilesFor(bundle: string, text: string, execArgv: readonly string[] = process.execArgv, env: NodeJS.ProcessEnv = process.env): string[] | null {
  const m = HEAD.exec(text);
  if (!m) return null;
  // the flags V8 checks a cache against come from the command line and from NODE_OPTIONS: both
  // name the file, so processes started two ways keep two caches rather than rewriting one in turn
  const key = createHash('sha256').update(`${m[1]}\0${process.version}\0${process.arch}\0${execArgv.join('\0')}\0${env.NODE_OPTIONS ?? ''}`).digest('hex').slice(0, 16);
  const name = `${basename(bundle)}.${key}.cache`;
  const dirs = [env.CACHE_DIRECTORY?.split(':')[0], dirname(bundle)].filter((d): d is string => !!d);
  return [...new Set(dirs)].map((d) => join(d, name));
}

/**
 * When a bundle's run keeps its code cache, once start-up is over (bundle-hooks.ts startupDone):
 * 'missing' when there was none or V8 rejected it — the session worker; 'warm-up' only in the
 * build's warm-up start (PICO_BUNDLE_WARM=1, scripts/bundles.mjs), which then stops — the
 * daemon, which runs its bundle only with a cache (runBundle says why).
 */
export type KeepCache = 'missing' | 'warm-up';

/**
 * Load and run `bundle` as a CommonJS module; what its entry exports. Throws what reading or
 * running it throws, as an import of the modules would. With `keep: 'warm-up'` (the daemon) a
 * bundle without a cache V8 takes is not run (null), but in the warm-up itself: compiled whole
 * without one, it costs a long-lived process about 4 MB more resident memory than its modules
 * do (measured), so the caller runs the modules instead. `v8Flags` are set before the bundle is
 * compiled (setFlagsAfterBuiltins says why not on the command line).
 */
export function runBundle(bundle: string, keep: KeepCache = 'missing', env: NodeJS.ProcessEnv = process.env, v8Flags: readonly string[] = []): BundleRun | null {
  const text = readFileSync(bundle, 'utf8');
  if (v8Flags.length > 0) setFlagsAfterBuiltins(text, v8Flags);
  // flags set here are checked against a cache as those of the command line are: they name it too
  const files = cacheFilesFor(bundle, text, [...process.execArgv, ...v8Flags], env) ?? [];
  let cachedData: Buffer | undefined;
  for (const f of files) {
    try {
      cachedData = readFileSync(f);
      break;
    } catch {
      cachedData = undefined; // none there, or unreadable: the next place, else compile
    }
  }
  // the wrapper node itself puts around a CommonJS module, on the same line so positions stay true
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${text}\n})`, { filename: bundle, cachedData });
  const cache = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  const warmUp = env.PICO_BUNDLE_WARM === '1';
  if (keep === 'warm-up' && cache !== 'used' && !warmUp) return null;
  let kept = false;
  installBundleHooks(
    (specifier) => import(specifier),
    () => {
      if (kept || files.length === 0) return;
      kept = true;
      if (warmUp) {
        // the build's warm-up: keep what start-up compiled (the build names no cache folder: beside
        // the bundle), then stop as on SIGTERM
        keepCache(bundle, files[0]!, script.createCachedData());
        process.kill(process.pid, 'SIGTERM');
      } else if (keep === 'missing' && cache !== 'used') {
        keepCache(bundle, files[0]!, script.createCachedData());
      }
    },
  );
  const mod = { exports: {} as unknown, filename: bundle, id: '.', loaded: false };
  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  fn(mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  mod.loaded = true;
  return { exports: mod.exports, cache };
}

/**
 * Set V8 flags for the rest of this process, once node's own modules that the bundle requires are
 * loaded. V8 checks every code cache against its flags, node's cache of its own modules too, made
 * when node was built with none: a V8 flag on the command line (the session worker's `--no-opt`)
 * made node compile from source each of its modules that is not in its start-up snapshot, some
 * hundred in a session worker (child_process, net, stream, crypto, fs/promises, …: 10–15 ms of its
 * start, measured). Loaded first and the flags set after, they come from node's cache, and the
 * bundle is compiled, and its own cache checked and made, under the flags set. A module node loads
 * later (a lazy one inside node) is compiled under the new flags, as all were before.
 */
function setFlagsAfterBuiltins(text: string, flags: readonly string[]): void {
  const need = BUILTINS.exec(text.slice(0, 4096))?.[1]?.split(' ').filter(Boolean) ?? [];
  const load = createRequire(import.meta.url);
  for (const id of need) load(`node:${id}`);
  for (const f of flags) setFlagsFromString(f);
}

/**
 * Write the cache, whole or not at all; a folder that may not be written keeps none. Caches of
 * this bundle made before it was built are of an older build, never offered again: they go.
 */
function keepCache(bundle: string, file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
    return;
  }
  try {
    const built = statSync(bundle).mtimeMs;
    const dir = dirname(file);
    for (const f of readdirSync(dir)) {
      if (!f.startsWith(`${basename(bundle)}.`) || !f.endsWith('.cache') || join(dir, f) === file) continue;
      if (statSync(join(dir, f)).mtimeMs < built) rmSync(join(dir, f), { force: true });
    }
  } catch {
    // a folder that cannot be listed keeps what it has
  }
}
