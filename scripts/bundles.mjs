#!/usr/bin/env node
/**
 * A step of `npm run build`: the daemon and its session worker, each as one CommonJS file in
 * dist/bundle/ (daemon.cjs, worker.cjs).
 *
 * Each process spent most of its start finding, reading and compiling its ES modules (some 80
 * for the daemon, 300 for a session worker). Bundled into one file, run through V8's code cache
 * (src/base/bundle-run.ts), each starts in about half the CPU (issue 32; `npm run bench` shows
 * READY and the worker's cold start). `pico daemon` runs its bundle when it is there
 * (src/cli/main.ts), and the daemon forks the worker's (src/daemon/worker-fork.ts); without
 * esbuild (a development dependency, like tsc) there are none and both run from their modules as
 * before, which works the same, only slower, and this script says so.
 *
 * A bundle is its compiled entry and everything it imports, the npm packages among them, except
 * those with native code (better-sqlite3), those loaded only when a model runs (node-llama-cpp,
 * through bundle-hooks.ts importPackage) and those neither process loads. `import.meta.url` means
 * each module's own file still: every use is replaced by that file's URL, worked out from where
 * the bundle is when it runs, so paths read beside a module (the composition's code digests, the
 * providers folder, the worker's own script) are the same files as unbundled, and
 * `createRequire(import.meta.url)(name)` is the bundle's own `require(name)`. Any other use of
 * `import.meta` stops the build, naming the file. A bundle is without whitespace and with its
 * syntax shortened, names kept (stack traces still name the functions): the daemon keeps its
 * source in memory, and the smaller text took its idle resident memory 1.3 MB lower (measured:
 * 51.1 MB against 52.4 unminified and 52.0 for the modules). The first line of a bundle carries
 * a digest of the rest, which names its code cache (a cache of another build is never offered).
 *
 * Last, a warm-up: the daemon is started once from its new bundle, on a new root in a temporary
 * folder, with the node flags the service runs it with (the ExecStart of
 * systemd/picoharness.service, which npm start uses too); at READY it keeps its code cache beside
 * the bundle and stops (PICO_BUNDLE_WARM=1, src/base/bundle-run.ts says why the daemon never
 * makes its own). A warm-up that fails is said, and the daemon then runs from its modules.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist', 'bundle');
/** Each bundle: its file name in dist/bundle/ and its compiled entry. */
const BUNDLES = [
  { name: 'daemon.cjs', entry: join(ROOT, 'dist', 'src', 'cli', 'daemon.js') },
  { name: 'worker.cjs', entry: join(ROOT, 'dist', 'src', 'daemon', 'worker.js') },
];
const EXTERNAL = ['better-sqlite3', 'node-llama-cpp', '@node-llama-cpp/*', '@nats-io/*', 'prom-client', 'vega', 'vega-lite', 'pino-pretty'];

for (const b of BUNDLES) {
  if (!existsSync(b.entry)) {
    process.stderr.write(`bundles: ${b.entry} is not there; run tsc first (npm run build)\n`);
    process.exit(1);
  }
}
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  rmSync(OUT_DIR, { recursive: true, force: true }); // bundles of an older build must not run this one's code
  process.stdout.write('bundles: esbuild is not installed (npm ci installs it); the daemon and its worker run from their modules, which works the same but starts slower\n');
  process.exit(0);
}

/** Each module's `import.meta.url` as its own file's URL, found from the bundle's folder at run time. */
const importMetaUrl = {
  name: 'import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const rel = JSON.stringify(relative(OUT_DIR, args.path).split('\\').join('/'));
      // a module's own require called at once (base/log.ts loads pino so) is the bundle's require,
      // which esbuild can follow: the package goes into the bundle rather than being loaded file by file
      const out = text.replace(/\bcreateRequire\(import\.meta\.url\)\(/g, 'require(').replace(/\bimport\.meta\.url\b/g, `__picoModuleUrl(${rel})`);
      if (/\bimport\.meta\b/.test(out)) return { errors: [{ text: `${args.path}: import.meta is used other than as import.meta.url; a bundle cannot keep its meaning (import.meta.url is replaced by the file's URL)` }] };
      return { contents: out, loader: 'js' };
    });
  },
};

mkdirSync(OUT_DIR, { recursive: true });
for (const b of BUNDLES) {
  const r = await esbuild.build({
    entryPoints: [b.entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    plugins: [importMetaUrl],
    banner: { js: "var __picoModuleUrl = (rel) => require('node:url').pathToFileURL(require('node:path').join(__dirname, rel)).href;" },
    write: false,
    metafile: true,
    logLevel: 'error',
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
  });
  // the second line names node's own modules the bundle requires: a runner that sets V8 flags
  // loads them first, while node's compiled copies of them still fit (src/base/bundle-run.ts)
  const required = Object.values(r.metafile.outputs).flatMap((o) => o.imports).filter((i) => i.external && isBuiltin(i.path)).map((i) => i.path.replace(/^node:/, ''));
  // and node's global `performance`, which loads perf_hooks on first use
  const builtins = [...new Set([...required, ...(/\bperformance\.now\(/.test(r.outputFiles[0].text) ? ['perf_hooks'] : [])])].sort();
  const body = `// node builtins: ${builtins.join(' ')}\n${r.outputFiles[0].text.replace(/^#!.*\n/, '')}`;
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 32);
  const whole = `// picoharness bundle ${digest}\n${body}`;
  const out = join(OUT_DIR, b.name);
  if (existsSync(out) && readFileSync(out, 'utf8') === whole) {
    // this build's bundle is in place, and so is its cache: it is as new as the compilation again
    // (a bundle older than dist/tsconfig.tsbuildinfo is not run: bundle-run.ts currentBundle)
    const now = new Date();
    utimesSync(out, now, now);
    continue;
  }
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, whole);
  renameSync(tmp, out);
  // caches of the earlier bundle are never used again (their names carry the old digest): let them go
  for (const f of readdirSync(OUT_DIR)) if (f.startsWith(`${b.name}.`) && (f.endsWith('.cache') || f.endsWith('.tmp'))) rmSync(join(OUT_DIR, f), { force: true });
}

/** The node flags the service runs the daemon with: between node and the script in the unit's ExecStart. */
function serviceFlags() {
  const unit = readFileSync(join(ROOT, 'systemd', 'picoharness.service'), 'utf8');
  const m = /^ExecStart=\S*node((?:\s+--\S+)*)\s+\S*\/dist\/src\/cli\/main\.js daemon\b/m.exec(unit);
  if (!m) throw new Error('systemd/picoharness.service: no ExecStart=… node [flags] …/dist/src/cli/main.js daemon line to take the flags from');
  return m[1].trim().split(/\s+/).filter(Boolean);
}

// the cache the service's daemon looks for beside its bundle (no cache folder, no NODE_OPTIONS)
const { cacheFilesFor } = await import(join(ROOT, 'dist', 'src', 'base', 'bundle-run.js'));
const daemonBundle = join(OUT_DIR, 'daemon.cjs');
const flags = serviceFlags();
const wanted = cacheFilesFor(daemonBundle, readFileSync(daemonBundle, 'utf8'), flags, {})[0];
if (!existsSync(wanted)) {
  const tmp = mkdtempSync(join(tmpdir(), 'pico-warm-'));
  try {
    const r = spawnSync(process.execPath, [...flags, join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'daemon', '--init', '--root', join(tmp, 'root')], {
      env: { ...process.env, PICO_BUNDLE_WARM: '1', PICO_LOG_LEVEL: 'error', NOTIFY_SOCKET: '', CACHE_DIRECTORY: '', NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (!existsSync(wanted)) process.stdout.write(`bundles: the daemon's warm-up start kept no code cache (exit ${r.status ?? r.signal}${r.stderr ? `: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}); the daemon runs from its modules\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
