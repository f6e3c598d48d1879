#!/usr/bin/env node
/**
 * A step of `npm run build`: the session worker as one CommonJS file, dist/bundle/worker.cjs.
 *
 * A new session worker spent most of its start finding, reading and compiling some 300 ES
 * modules. Bundled into one file, run through V8's code cache (src/base/bundle-run.ts), it
 * starts in about half the time (issue 32; `npm run bench` shows the worker's cold start). The
 * daemon forks the bundle when it exists (src/daemon/worker-fork.ts); without esbuild (a
 * development dependency, like tsc) there is no bundle and the worker runs from its modules as
 * before, which works the same, only slower, and this script says so.
 *
 * The bundle is the compiled worker (dist/src/daemon/worker.js) and everything it imports, the
 * npm packages among them, except those with native code (better-sqlite3), those loaded only
 * when a model runs (node-llama-cpp, through bundle-hooks.ts importPackage) and those no worker
 * loads. `import.meta.url` means each module's own file still: every use is replaced by that
 * file's URL, worked out from where the bundle is when it runs, so paths read beside a module
 * (the composition's code digests, the providers folder) are the same files as unbundled, and
 * `createRequire(import.meta.url)(name)` is the bundle's own `require(name)`. Any
 * other use of `import.meta` stops the build, naming the file. The first line carries a digest
 * of the rest, which names the code cache (a cache of another build is never offered).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'dist', 'src', 'daemon', 'worker.js');
const OUT_DIR = join(ROOT, 'dist', 'bundle');
const OUT = join(OUT_DIR, 'worker.cjs');
const EXTERNAL = ['better-sqlite3', 'node-llama-cpp', '@node-llama-cpp/*', '@nats-io/*', 'prom-client', 'vega', 'vega-lite', 'pino-pretty'];

if (!existsSync(ENTRY)) {
  process.stderr.write(`bundle-worker: ${ENTRY} is not there; run tsc first (npm run build)\n`);
  process.exit(1);
}
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  rmSync(OUT_DIR, { recursive: true, force: true }); // a bundle of an older build must not run this one's daemon
  process.stdout.write('bundle-worker: esbuild is not installed (npm ci installs it); the session worker runs from its modules, which works the same but starts slower\n');
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
      // which esbuild can follow: pino goes into the bundle rather than being loaded file by file
      const out = text.replace(/\bcreateRequire\(import\.meta\.url\)\(/g, 'require(').replace(/\bimport\.meta\.url\b/g, `__picoModuleUrl(${rel})`);
      const left = /\bimport\.meta\b/.exec(out);
      if (left) return { errors: [{ text: `${args.path}: import.meta is used other than as import.meta.url; the worker bundle cannot keep its meaning (import.meta.url is replaced by the file's URL)` }] };
      return { contents: out, loader: 'js' };
    });
  },
};

const r = await esbuild.build({
  entryPoints: [ENTRY],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [importMetaUrl],
  banner: { js: "var __picoModuleUrl = (rel) => require('node:url').pathToFileURL(require('node:path').join(__dirname, rel)).href;" },
  write: false,
  logLevel: 'error',
  legalComments: 'none',
});
const body = r.outputFiles[0].text;
const digest = createHash('sha256').update(body).digest('hex').slice(0, 32);
const whole = `// picoharness bundle ${digest}\n${body}`;
if (existsSync(OUT) && readFileSync(OUT, 'utf8') === whole) {
  // this build's bundle is in place, and so is its cache: it is as new as the compilation again
  // (the daemon runs the modules instead of a bundle older than dist/tsconfig.tsbuildinfo)
  const now = new Date();
  utimesSync(OUT, now, now);
  process.exit(0);
}
mkdirSync(OUT_DIR, { recursive: true });
const tmp = `${OUT}.${process.pid}.tmp`;
writeFileSync(tmp, whole);
renameSync(tmp, OUT);
// caches of earlier bundles are never used again (their names carry the old digest): let them go
for (const f of readdirSync(OUT_DIR)) if (f.startsWith('worker.cjs.') && (f.endsWith('.cache') || f.endsWith('.tmp'))) rmSync(join(OUT_DIR, f), { force: true });
