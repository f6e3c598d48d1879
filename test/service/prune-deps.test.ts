/**
 * systemd/prune-deps.sh (issue 24: "the production install carries no compiler or type
 * checker", only this platform's llama.cpp): run for real on a node_modules tree laid out as
 * npm leaves it, it removes the other platforms' llama.cpp packages, node-llama-cpp's source
 * bundle and better-sqlite3's sources and build leftovers, and keeps what runs; --list changes
 * nothing; a linked node_modules (install.sh --link-deps, a development checkout) is never touched.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const SCRIPT = fileURLToPath(new URL('../../systemd/prune-deps.sh', import.meta.url));
const HERE = ({ 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'linux-arm': 'linux-armv7l' } as Record<string, string>)[`${process.platform}-${process.arch}`];

const KEPT = [
  `@node-llama-cpp/${HERE}/bins/x/libllama.so`, 'node-llama-cpp/dist/index.js', 'node-llama-cpp/llama/binariesGithubRelease.json',
  'better-sqlite3/build/Release/better_sqlite3.node', 'better-sqlite3/lib/index.js', 'pino/pino.js',
];
const PRUNED = [
  ...['linux-arm64', 'linux-armv7l', 'linux-x64'].filter((p) => p !== HERE).map((p) => `@node-llama-cpp/${p}/bins/x/libllama.so`),
  'node-llama-cpp/llama/gitRelease.bundle', 'better-sqlite3/deps/sqlite3/sqlite3.c', 'better-sqlite3/src/addon.cpp',
  'better-sqlite3/build/Release/obj/gen/sqlite3/sqlite3.c', 'better-sqlite3/build/Release/obj.target/x.o', 'better-sqlite3/build/Release/sqlite3.a',
  'better-sqlite3/build/Release/test_extension.node',
];

/** An app folder whose node_modules holds every file of KEPT and PRUNED. */
function app(): string {
  const dir = tempDir('pico-prune-');
  for (const f of [...KEPT, ...PRUNED]) {
    mkdirSync(dirname(join(dir, 'node_modules', f)), { recursive: true });
    writeFileSync(join(dir, 'node_modules', f), 'x');
  }
  return dir;
}

const run = (...args: string[]) => spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8' });

describe.skipIf(!HERE)('systemd/prune-deps.sh', () => {
  it('removes other platforms\' llama.cpp, the llama.cpp sources and better-sqlite3\'s sources and build leftovers, and keeps what runs', () => {
    const dir = app();
    const r = run(dir);
    expect(r.status, r.stderr).toBe(0);
    for (const f of KEPT) expect(existsSync(join(dir, 'node_modules', f)), f).toBe(true);
    for (const f of PRUNED) expect(existsSync(join(dir, 'node_modules', f)), f).toBe(false);
  });

  it('--list names what it would remove and changes nothing', () => {
    const dir = app();
    const r = run('--list', dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(join(dir, 'node_modules', 'node-llama-cpp/llama/gitRelease.bundle'));
    expect(r.stdout).not.toContain(`@node-llama-cpp/${HERE}`);
    for (const f of [...KEPT, ...PRUNED]) expect(existsSync(join(dir, 'node_modules', f)), f).toBe(true);
  });

  it('never touches a linked node_modules (a development checkout linked by install.sh --link-deps)', () => {
    const checkout = app();
    const linked = tempDir('pico-prune-link-');
    symlinkSync(join(checkout, 'node_modules'), join(linked, 'node_modules'));
    const r = run(linked);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/is a link/);
    for (const f of [...KEPT, ...PRUNED]) expect(existsSync(join(checkout, 'node_modules', f)), f).toBe(true);
  });

  it('--help is help: the comment block at the top, exit 0, and no folder named --help is looked for', () => {
    const r = run('--help');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^What a production box never uses/);
    expect(r.stdout).toContain('prune-deps.sh --list APP_DIR');
    expect(r.stdout).not.toMatch(/set -eu|node_modules is not a folder/);
    const bad = run('--bogus', tempDir('pico-prune-bogus-'));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown option --bogus');
  });

  it('an app without node_modules is the user\'s mistake: exit 2 and the fix', () => {
    const r = run(tempDir('pico-prune-empty-'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/install the dependencies first/);
  });
});
