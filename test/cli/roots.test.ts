/**
 * Issue 37 item 3 and issue 36 finding 9: one root check for every command (src/root/place.ts,
 * called by src/cli/main.ts before a command loads). A misspelt `--root` is named as such ("no
 * root at WRONG (pico init WRONG makes one)", exit 2) by every command that takes one, and none
 * creates a root but `pico init` and `pico daemon --init`; the fleet's agent and hub follow the
 * root rules of the other writing commands; `pico init` and `pico daemon --init` refuse a folder
 * the package ships. The compiled CLI (dist/; build first) against real folders.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_DIR } from '../../src/base/package.js';
import { initRoot } from '../../src/root/init.js';
import { COMMANDS } from '../helpers/commands.js';
import { tempDir } from '../helpers/temp.js';
import { MAIN_JS, runAsync } from '../daemon/spawn.js';


/** pico (as user `uid`, when given) run to its end without blocking this fork (see test/setup.ts). */
function pico(args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; uid?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = o.uid === undefined ? [process.execPath, MAIN_JS, ...args] : ['setpriv', `--reuid=${o.uid}`, `--regid=${o.uid}`, '--clear-groups', process.execPath, MAIN_JS, ...args];
  return runAsync(argv[0]!, argv.slice(1), { cwd: o.cwd, env: { ...process.env, PICO_ROOT: '', ...o.env } });
}

/** What git says of the package's folder (unchanged: nothing was written into it), or null outside a checkout. */
function gitStatus(): string | null {
  const r = spawnSync('git', ['-C', PACKAGE_DIR, 'status', '--porcelain', '--untracked-files=all', '--', 'providers', 'manifests', 'prompts', 'examples'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

describe('one root check for every command', () => {
  it('a misspelt root is named and nothing is created', async () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(30);
    const base = tempDir('pico-wrong-root-');
    const wrong = join(base, 'WRONG');
    // every command that takes --root, with the arguments it would need; the fleet's two root commands
    const lines = [...COMMANDS.filter((c) => c !== 'init' && c !== 'fleet').map((c) => [c]), ['fleet', 'agent', '--box', 'b1', '--server', 'nats://127.0.0.1:1']];
    const job = join(PACKAGE_DIR, 'examples', 'jobs', 'why-is-the-disk-full.json');
    const args: Record<string, string[]> = { run: [job], submit: [job], plan: ['why is the disk full'], manifests: ['check'], memory: ['stats'], recall: ['disk'], gc: ['--older-than', '30d'], failures: ['list'], eval: ['--goals', join(PACKAGE_DIR, 'examples', 'eval', 'goals.json')] };
    for (const line of lines) {
      const r = await pico([...line, ...(args[line[0]!] ?? []), '--root', wrong]);
      expect(r.code, `pico ${line.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, `pico ${line.join(' ')}`).toContain(`no root at ${wrong} (pico init ${wrong} makes one)`);
      expect(existsSync(wrong), `pico ${line.join(' ')} created ${wrong}`).toBe(false);
    }
    // named by PICO_ROOT, or the current folder when neither names one: said so
    const env = await pico(['status'], { env: { PICO_ROOT: wrong } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(`no root at ${wrong}, which PICO_ROOT names (pico init ${wrong} makes one)`);
    const here = await pico(['submit', job], { cwd: base });
    expect(here.code).toBe(2);
    expect(here.stderr).toContain(`no root at ${base}, the current folder: the folder holds no manifests/ or sessions/`);
    expect(readdirSync(base)).toEqual([]);
  }, 300_000);

  it('only pico init and pico daemon --init make a root', async () => {
    const base = tempDir('pico-make-root-');
    expect((await pico(['init', join(base, 'a')])).code).toBe(0);
    expect(existsSync(join(base, 'a', 'manifests', 'tools', 'read_file.json'))).toBe(true);
    // a command that only reads the new root runs; the same command on its neighbour is refused
    expect((await pico(['manifests', 'check', '--root', join(base, 'a')])).code).toBe(0);
    expect((await pico(['manifests', 'check', '--root', join(base, 'b')])).code).toBe(2);
    expect(existsSync(join(base, 'b'))).toBe(false);
  });

  it('pico init and pico daemon --init refuse a folder the package ships, and copy nothing into it', async () => {
    const before = gitStatus();
    for (const dir of [join(PACKAGE_DIR, 'providers'), join(PACKAGE_DIR, 'manifests'), join(PACKAGE_DIR, 'manifests', 'new-root'), PACKAGE_DIR]) {
      for (const line of [['init', dir], ['daemon', '--init', '--root', dir]]) {
        const r = await pico(line);
        expect(r.code, `pico ${line.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(/is the picoharness package('s own [a-z]+\/ folder| itself): it holds the shipped defaults and is never a root/);
        expect(r.stderr).toMatch(/fix: .*pico init DIR/);
      }
    }
    expect(existsSync(join(PACKAGE_DIR, 'manifests', 'new-root'))).toBe(false);
    if (before !== null) expect(gitStatus()).toBe(before);
  }, 120_000); // eight commands, each a process start: seconds apiece on a loaded box

  it('pico fleet agent and pico fleet hub refuse the package folder (exit 2); the hub writes only into a folder that exists', async () => {
    for (const line of [['fleet', 'agent', '--box', 'b1'], ['fleet', 'hub']]) {
      const r = await pico([...line, '--server', 'nats://127.0.0.1:1', '--root', PACKAGE_DIR]);
      expect(r.code, `pico ${line.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('is the picoharness package itself');
    }
    const missing = join(tempDir('pico-hub-'), 'hub');
    const hub = await pico(['fleet', 'hub', '--server', 'nats://127.0.0.1:1', '--root', missing]);
    expect(hub.code).toBe(2);
    expect(hub.stderr).toContain(`no folder at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)('pico fleet agent and pico fleet hub run only as the owner of their root (needs root; uid 65534 is the other user)', async () => {
    const box = tempDir('pico-agent-root-');
    initRoot(box);
    const hub = tempDir('pico-hub-root-');
    mkdirSync(join(hub, 'memory'));
    for (const [line, root] of [[['fleet', 'agent', '--box', 'b1'], box], [['fleet', 'hub'], hub]] as const) {
      chownSync(root, 65534, 65534);
      const r = await pico([...line, '--server', 'nats://127.0.0.1:1', '--root', root]);
      expect(r.code, `pico ${line.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/belongs to .*\(uid 65534\) but this runs as .*Run it as/);
    }
    // nothing of the hub was made as root in the other user's folder
    expect(readdirSync(hub)).toEqual(['memory']);
  });
});
