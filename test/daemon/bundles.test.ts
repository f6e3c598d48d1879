/**
 * Issue 32: the daemon and its session worker start from bundles run through V8's code cache
 * (scripts/bundles.mjs, src/base/bundle-run.ts). The runner keeps a cache once start-up is over,
 * uses it next time, writes it again when V8 rejects it, runs without one where it cannot be
 * written, names it by the bundle's digest and node's flags, and keeps it in systemd's cache
 * folder when the service has one; `pico daemon` runs its bundle and the daemon forks the
 * worker's when the build made them and they are current, and the modules otherwise; a bundled
 * daemon still says a user's mistake as one (exit 2), and keeps its cache once READY; and a job
 * run by the bundled worker records the same composition (its code digests are found beside each
 * module, through import.meta.url) as one run by the modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleCurrent, cacheFilesFor, currentBundle } from '../../src/base/bundle-run.js';
import { workerScript } from '../../src/daemon/worker-fork.js';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { tempDir } from '../helpers/temp.js';
import { tempRoot } from './helpers.js';
import { finished, picoAsync, startDaemon, stopDaemon } from './spawn.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const RUNNER = join(DIST, 'src', 'base', 'bundle-run.js');

/** A bundle that says where it runs, imports a package through the hook, and ends its start-up. */
function tinyBundle(dir: string, digest = 'a'.repeat(32)): string {
  const file = join(dir, 'tiny.cjs');
  writeFileSync(file, `// picoharness bundle ${digest}
const path = require('node:path');
function busy(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
globalThis[Symbol.for('picoharness.bundle.import')]('node:os').then((os) => {
  process.stdout.write(JSON.stringify({ file: __filename, dir: __dirname, sep: path.sep, os: typeof os.cpus, busy: busy(1000) }) + '\\n');
  globalThis[Symbol.for('picoharness.bundle.started')]();
});
`);
  return file;
}

/** Run `bundle` with the runner in a new node (no node flags; `v8Flags` set by the runner); its line and what the runner said of the cache. */
function run(bundle: string, v8Flags: string[] = []): { said: Record<string, unknown>; cache: string } {
  const main = join(bundle, '..', 'run.mjs');
  writeFileSync(main, `import { runBundle } from ${JSON.stringify(RUNNER)};\nconst r = runBundle(process.argv[2], 'missing', process.env, process.argv.slice(3));\nprocess.on('exit', () => process.stdout.write(JSON.stringify(r) + '\\n'));\n`);
  const out = execFileSync(process.execPath, [main, bundle, ...v8Flags], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [said, r] = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { said: said!, cache: r!.cache as string };
}

describe('the bundle runner and its code cache', () => {
  it('runs a bundle as a CommonJS module, keeps a cache once start-up is over, and uses it the next time', () => {
    const dir = tempDir('pico-bundle-');
    const bundle = tinyBundle(dir);
    const cacheFile = cacheFilesFor(bundle, readFileSync(bundle, 'utf8'), [], {})![0]!;
    expect(existsSync(cacheFile)).toBe(false);
    const first = run(bundle);
    expect(first.said).toEqual({ file: bundle, dir, sep: '/', os: 'function', busy: 2997 });
    expect(first.cache).toBe('none');
    expect(readFileSync(cacheFile).length).toBeGreaterThan(0);
    expect(run(bundle)).toEqual({ said: first.said, cache: 'used' });
  });

  it('writes a cache V8 rejects again, and runs where the cache cannot be written', () => {
    const dir = tempDir('pico-bundle-');
    const bundle = tinyBundle(dir);
    const cacheFile = cacheFilesFor(bundle, readFileSync(bundle, 'utf8'), [], {})![0]!;
    writeFileSync(cacheFile, 'not a code cache at all');
    expect(run(bundle).cache).toBe('rejected');
    expect(readFileSync(cacheFile, 'utf8')).not.toBe('not a code cache at all');
    expect(run(bundle).cache).toBe('used');
    // a cache that cannot be written (here a folder stands in its place): the bundle still runs, nothing is left behind
    rmSync(cacheFile);
    mkdirSync(cacheFile);
    const r = run(bundle);
    expect(r.said.busy).toBe(2997);
    expect(r.cache).toBe('none');
    expect(readFileSync(bundle, 'utf8')).toContain('picoharness bundle');
    expect(execFileSync('ls', ['-a', dir], { encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('sets V8 flags it is given after loading the node modules the bundle names, before compiling it; they name its cache, which is used the next time', () => {
    const dir = tempDir('pico-bundle-');
    const bundle = join(dir, 'flags.cjs');
    // %IsBeingInterpreted compiles only under --allow-natives-syntax: the flag is set before the bundle is compiled
    writeFileSync(bundle, `// picoharness bundle ${'c'.repeat(32)}
// node builtins: os zlib
const early = ['os', 'zlib'].map((m) => process.moduleLoadList.includes('NativeModule ' + m));
process.stdout.write(JSON.stringify({ early, natives: typeof %IsBeingInterpreted() }) + '\\n');
globalThis[Symbol.for('picoharness.bundle.started')]();
`);
    const flags = ['--allow-natives-syntax'];
    const cacheFor = (f: string[]): string => cacheFilesFor(bundle, readFileSync(bundle, 'utf8'), f, {})![0]!;
    const plain = cacheFor([]);
    const flagged = cacheFor(flags);
    expect(flagged).not.toBe(plain);
    const first = run(bundle, flags);
    expect(first).toEqual({ said: { early: [true, true], natives: 'boolean' }, cache: 'none' });
    expect(existsSync(flagged)).toBe(true);
    expect(existsSync(plain)).toBe(false);
    expect(run(bundle, flags).cache).toBe('used'); // made and checked under the same flags
    expect(() => run(bundle)).toThrow(/SyntaxError/); // without them the bundle does not even compile
  });

  it('names the cache by the bundle digest, node and the flags, looks in $CACHE_DIRECTORY first, and offers none for a bundle without a digest', () => {
    const name = (text: string, argv: string[] = [], env: NodeJS.ProcessEnv = {}): string[] | null => cacheFilesFor('/x/w.cjs', text, argv, env);
    const a = name(`// picoharness bundle ${'a'.repeat(32)}\n1`)!;
    expect(a).toHaveLength(1);
    expect(a[0]).toMatch(/^\/x\/w\.cjs\.[0-9a-f]{16}\.cache$/);
    expect(name(`// picoharness bundle ${'b'.repeat(32)}\n1`)).not.toEqual(a);
    expect(name(`// picoharness bundle ${'a'.repeat(32)}\n1`, ['--lite-mode'])).not.toEqual(a);
    expect(name(`// picoharness bundle ${'a'.repeat(32)}\n1`, [], { NODE_OPTIONS: '--max-old-space-size=200' })).not.toEqual(a);
    expect(name(`// picoharness bundle ${'a'.repeat(32)}\n2`)).toEqual(a); // the digest stands for the text
    expect(name(`// picoharness bundle ${'a'.repeat(32)}\n1`, [], { CACHE_DIRECTORY: '/var/cache/picoharness' })).toEqual([a[0]!.replace('/x/', '/var/cache/picoharness/'), a[0]]);
    expect(name('1')).toBeNull();
  });
});

describe('what runs', () => {
  it('the bundles, which npm run build made; the modules with PICO_BUNDLE=0', () => {
    for (const name of ['daemon.cjs', 'worker.cjs']) {
      expect(readFileSync(join(DIST, 'bundle', name), 'utf8')).toMatch(/^\/\/ picoharness bundle [0-9a-f]{32}\n/);
      expect(currentBundle(name, {})).toBe(join(DIST, 'bundle', name));
      expect(currentBundle(name, { PICO_BUNDLE: '0' })).toBeNull();
    }
    expect(currentBundle('nothing.cjs', {})).toBeNull();
    expect(workerScript({})).toBe(join(DIST, 'src', 'daemon', 'worker-bundled.js'));
    expect(workerScript({ PICO_BUNDLE: '0' })).toBe(join(DIST, 'src', 'daemon', 'worker.js'));
  });

  it('a daemon runs its bundle only with a code cache for its flags, which a warm-up start keeps and then stops; a bundled daemon says a user\'s mistake as one (exit 2)', async () => {
    const caches = tempDir('pico-bundle-cache-');
    const readyOf = async (env: NodeJS.ProcessEnv): Promise<string> => {
      const root = tempRoot('pico-bundle-ready-');
      initRoot(root);
      const d = startDaemon(root, { CACHE_DIRECTORY: caches, ...env });
      const ready = await d.waitFor((l) => l.event === 'ready');
      await stopDaemon(d);
      return ready.code as string;
    };
    // none for these flags (the build's warm-up used the service's): the modules run, and nothing is written
    expect(await readyOf({})).toBe('modules');
    expect(readdirSync(caches).filter((f) => f.startsWith('daemon.cjs.'))).toEqual([]); // (the worker keeps its own there once warm)
    // the warm-up start keeps one once READY and stops by itself, exit 0
    const root = tempRoot('pico-bundle-warm-');
    initRoot(root);
    const warm = startDaemon(root, { CACHE_DIRECTORY: caches, PICO_BUNDLE_WARM: '1' });
    expect(await warm.exited).toBe(0);
    expect(readdirSync(caches).filter((f) => /^daemon\.cjs\.[0-9a-f]{16}\.cache$/.test(f))).toHaveLength(1);
    expect(await readyOf({})).toBe('bundle');
    const bad = await picoAsync(['daemon', '--root', tempRoot('pico-bundle-bad-'), '--grace-ms', 'soon'], { env: { CACHE_DIRECTORY: caches } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^pico daemon: --grace-ms must be a positive whole number/);
    expect(bad.stderr).not.toMatch(/internal error/);
  }, 90_000);
});

describe('a bundle behind the modules', () => {
  it('a bundle older than the last compilation is not current; one without a build record is', () => {
    const dir = tempDir('pico-bundle-');
    const bundle = join(dir, 'worker.cjs');
    const info = join(dir, 'tsconfig.tsbuildinfo');
    writeFileSync(bundle, '');
    expect(bundleCurrent(bundle, info)).toBe(true);
    writeFileSync(info, '');
    utimesSync(bundle, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(bundleCurrent(bundle, info)).toBe(false);
    utimesSync(bundle, new Date(), new Date(Date.now() + 1_000));
    expect(bundleCurrent(bundle, info)).toBe(true);
    expect(bundleCurrent(join(dir, 'none.cjs'), info)).toBe(false);
  });
});

describe('a job run by the bundled worker', () => {
  /** One example job through a real daemon on a new root; the session's composition document. */
  async function composition(env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
    const root = tempRoot('pico-bundle-e2e-');
    initRoot(root);
    const d = startDaemon(root, env);
    await d.waitFor((l) => l.event === 'ready');
    const job = readFileSync(join(DIST, '..', 'examples', 'jobs', 'why-is-the-disk-full.json'));
    const { id } = await dropIntoInbox(job, root);
    await d.waitFor(finished(id), 30_000);
    await stopDaemon(d);
    const doc = JSON.parse(readFileSync(join(root, 'sessions', id, 'composition.json'), 'utf8')) as Record<string, unknown>;
    return doc;
  }

  it('records the same composition, code digests included, as one run by the modules', async () => {
    const bundled = await composition({});
    const modules = await composition({ PICO_BUNDLE: '0' });
    expect(bundled).toEqual(modules);
    expect(JSON.stringify(bundled)).not.toContain('"missing"');
  }, 60_000);
});
