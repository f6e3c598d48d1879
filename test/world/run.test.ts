// The execution world (design §7, "one execution world"): every claim here runs
// real subprocesses in real temporary directories.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { chmod, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runInWorld } from '../../src/world/run.js';
import { makeWorkDir } from '../../src/world/workdir.js';
import type { WorldCapabilities } from '../../src/world/capabilities.js';
import { NO_ISOLATION, tryWrapper, worldCapabilities } from '../../src/world/sandbox.js';
import { existsSync } from 'node:fs';
import { GONE_WITHIN_MS, SCRIPTS, killMarked, marker, survivorsAfter, tempDir } from './helpers.js';

let caps: WorldCapabilities;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => { caps = await worldCapabilities(); });
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

/** A fresh root with a work dir for step 0 of session "s1". */
async function workDir(): Promise<{ root: string; cwd: string }> {
  const t = await tempDir();
  cleanups.push(t.cleanup);
  return { root: t.dir, cwd: await makeWorkDir(t.dir, 's1', 0) };
}

const NONE = NO_ISOLATION;

describe('runInWorld', () => {
  it('says plainly what is and is not enforced on this machine', async () => {
    const all = [...caps.enforced, ...caps.notEnforced];
    for (const claim of ['no network', 'read-only filesystem outside declared paths', 'scrubbed environment']) {
      expect(all).toContain(claim);
    }
    expect(caps.enforced.includes('no network')).toBe(!caps.network);
    expect(caps.enforced.includes('read-only filesystem outside declared paths')).toBe(caps.readOnlyFilesystem);
  });

  it('a tool that hangs and ignores SIGTERM is stopped at its limit and leaves no process behind', async () => {
    const { cwd } = await workDir();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'hang.sh'), mark], cwd, timeoutMs: 300, maxOutputBytes: 1000 });
    expect(r.timedOut).toBe(true);
    expect(r.failed).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.durationMs).toBeGreaterThanOrEqual(300);
    expect(r.cause).toMatch(/300 ms wall-clock limit/);
    expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
  });

  it('a flood on stdout is cut at the cap, marked truncated, and killed', async () => {
    const { cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'flood.sh')], cwd, timeoutMs: 10_000, maxOutputBytes: 4096 });
    expect(r.truncated).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(r.failed).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBe(4096);
    expect(r.stdout.startsWith('flooding the world')).toBe(true);
    expect(r.cause).toMatch(/4096-byte cap/);
  });

  it('a cap in the middle of a multi-byte character never yields half a character', async () => {
    const { cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['printf', 'ééééé'], cwd, timeoutMs: 5000, maxOutputBytes: 5 });
    expect(r.truncated).toBe(true);
    expect(r.stdout).toBe('éé');
  });

  it('a grandchild in its own session that holds stdout open does not block the caller', async () => {
    const { cwd } = await workDir();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'grandchild.sh'), mark], cwd, timeoutMs: 20_000, maxOutputBytes: 1000 });
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toContain('parent done');
    expect(r.stdout).not.toContain('late');
    expect(r.durationMs).toBeLessThan(20_000);
    if (caps.treeDiesWithLeader) expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
  });

  it('without namespaces a grandchild holding the pipe still does not block (pipes are closed after the grace)', async () => {
    const { cwd } = await workDir();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'grandchild.sh'), mark], cwd, timeoutMs: 20_000, maxOutputBytes: 1000 },
      { capabilities: NONE });
    expect(r.isolation).toBe('none');
    expect(r.stdout).toContain('parent done');
    expect(r.timedOut).toBe(false);
  });

  it('without namespaces a hang is still stopped and its whole process group killed', async () => {
    const { cwd } = await workDir();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'hang.sh'), mark], cwd, timeoutMs: 200, maxOutputBytes: 1000 },
      { capabilities: NONE });
    expect(r.timedOut).toBe(true);
    expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
  });

  it('without namespaces a flood is still cut at the cap', async () => {
    const { cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'flood.sh')], cwd, timeoutMs: 10_000, maxOutputBytes: 3000 },
      { capabilities: NONE });
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBe(3000);
  });

  it.skipIf(!existsSync('/usr/bin/unshare'))('the network-only level cuts the network and says plainly the filesystem stays writable', async () => {
    const net = await tryWrapper('network', 'unshare', '/usr/bin/unshare');
    if (net === null) return; // user namespaces are blocked here; the probe reports "none"
    expect(net.notEnforced).toContain('read-only filesystem outside declared paths');
    expect(net.enforced).toContain('no network');
    const { root, cwd } = await workDir();
    await chmod(root, 0o777); // as root the program runs as the sandbox user, which may not write a root-owned folder anyway
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'write-outside.sh'), root], cwd, timeoutMs: 5000, maxOutputBytes: 1000 },
      { capabilities: net });
    expect(r.stdout).toContain('outside=ok');
  });

  it('the environment is scrubbed: a secret of the parent is not visible, HOME and TMPDIR are the work dir', async () => {
    const { cwd } = await workDir();
    process.env.PICO_TEST_SECRET = 'hunter2-do-not-leak';
    try {
      const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'env.sh')], cwd, timeoutMs: 5000, maxOutputBytes: 65536,
        env: { DECLARED: 'yes' } });
      expect(r.failed).toBe(false);
      expect(r.stdout).not.toContain('hunter2');
      const vars = Object.fromEntries(r.stdout.split('\n').filter((l) => l.includes('=') && !l.startsWith('cwd='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(vars).toMatchObject({ PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', HOME: cwd, TMPDIR: cwd, TZ: 'UTC', DECLARED: 'yes' });
      expect(Object.keys(vars).filter((k) => !['PATH', 'LANG', 'HOME', 'TMPDIR', 'TZ', 'DECLARED', 'PWD', 'SHLVL', 'OLDPWD', '_'].includes(k)))
        .toEqual([]);
    } finally {
      delete process.env.PICO_TEST_SECRET;
    }
  });

  it.skipIf(process.platform !== 'linux')('with a private /proc the daemon\'s environment cannot be read through /proc/*/environ', async () => {
    if (!caps.privateProc) return expect(caps.notEnforced).toContain('private /proc (other processes and their environments hidden)');
    const { cwd } = await workDir();
    process.env.PICO_TEST_SECRET = 'hunter3-do-not-leak';
    try {
      const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', '-c', 'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"'], cwd, timeoutMs: 5000,
        maxOutputBytes: 1 << 20 });
      expect(r.stdout).not.toContain('hunter3');
    } finally {
      delete process.env.PICO_TEST_SECRET;
    }
  });

  it('the work dir is the cwd, and it is owned by this run (mode 0700)', async () => {
    const { root, cwd } = await workDir();
    expect(cwd).toBe(join(root, 'sessions', 's1', 'work', '0'));
    expect((await stat(cwd)).mode & 0o777).toBe(0o700);
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['pwd'], cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(r.stdout.trim()).toBe(cwd);
  });

  it('the work dir is writable; anything outside the declared paths is not, where the OS allows it', async () => {
    const { root, cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'write-outside.sh'), root], cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(r.stdout).toContain('inside=ok');
    expect(r.stdout).toContain(caps.readOnlyFilesystem ? 'outside=refused' : 'outside=ok');
  });

  it('there is no network, where the OS allows it: a loopback server of the parent is unreachable', async () => {
    const { cwd } = await workDir();
    const server = createServer((s) => s.end('hello from the parent\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    cleanups.push(() => new Promise((r) => server.close(() => r())));
    const js = `require('net').connect(${port},'127.0.0.1').on('data',d=>process.stdout.write(d)).on('error',e=>{console.log('refused '+e.code)})`;
    const r = await runInWorld({ readable: [SCRIPTS], argv: [process.execPath, '-e', js], cwd, timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(r.stdout).toContain(caps.network ? 'hello from the parent' : 'refused');
  });

  it('stdin is closed after the input, and closed at once when there is none', async () => {
    const { cwd } = await workDir();
    const withInput = await runInWorld({ readable: [SCRIPTS], argv: ['cat'], stdin: 'line one\nline two\n', cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(withInput.stdout).toBe('line one\nline two\n');
    const without = await runInWorld({ readable: [SCRIPTS], argv: ['cat'], cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(without.timedOut).toBe(false);
    expect(without.stdout).toBe('');
    expect(without.failed).toBe(false);
  });

  it('a large input that the process never reads does not break the call', async () => {
    const { cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['echo', 'ignored'], stdin: 'x'.repeat(1 << 20), cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(r.stdout).toBe('ignored\n');
    expect(r.timedOut).toBe(false);
  });

  it('a non-zero exit has the same shape as success, with the exit code and stderr', async () => {
    const { cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'fail.sh')], cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(r).toMatchObject({ failed: true, exitCode: 3, timedOut: false, truncated: false, canceled: false, stdout: '' });
    expect(r.stderr).toContain('the input was not what I expected');
  });

  it('a command that does not exist fails in the result instead of throwing', async () => {
    const { cwd } = await workDir();
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['no-such-command-pico'], cwd, timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(r.failed).toBe(true);
    expect(r.exitCode).not.toBe(0);
  });

  it('an abort from the caller stops the run and marks it canceled', async () => {
    const { cwd } = await workDir();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await runInWorld({ readable: [SCRIPTS], argv: ['sh', join(SCRIPTS, 'hang.sh'), mark], cwd, timeoutMs: 30_000, maxOutputBytes: 1000,
      signal: ac.signal });
    expect(r.canceled).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
  });

  it('bad requests are refused before anything runs, naming the field', async () => {
    const { cwd } = await workDir();
    await expect(runInWorld({ readable: [SCRIPTS], argv: [], cwd, timeoutMs: 1, maxOutputBytes: 1 })).rejects.toThrow(/argv must be a non-empty/);
    await expect(runInWorld({ readable: [SCRIPTS], argv: ['true'], cwd, timeoutMs: 0, maxOutputBytes: 1 })).rejects.toThrow(/timeoutMs/);
    await expect(runInWorld({ readable: [SCRIPTS], argv: ['true'], cwd: 'relative/dir', timeoutMs: 10, maxOutputBytes: 1 })).rejects.toThrow(/cwd must be an absolute path/);
    await expect(runInWorld({ readable: [SCRIPTS], argv: ['true'], cwd, timeoutMs: 10, maxOutputBytes: 1.5 })).rejects.toThrow(/maxOutputBytes/);
    await expect(runInWorld({ readable: [SCRIPTS], argv: ['true'], cwd, timeoutMs: 10, maxOutputBytes: 1, env: { PATH: '/tmp' } }))
      .rejects.toThrow(/PATH is fixed by the execution world/);
  });
});

describe('makeWorkDir', () => {
  it('a session id that is a path is refused, not joined', async () => {
    const t = await tempDir();
    cleanups.push(t.cleanup);
    await expect(makeWorkDir(t.dir, '../escape', 0)).rejects.toThrow(/not a plain folder name/);
    await expect(makeWorkDir(t.dir, 's1', '../x')).rejects.toThrow(/step/);
    await expect(makeWorkDir(t.dir, 's1', 1.5)).rejects.toThrow(/step/);
  });

  it('an existing looser directory is tightened to 0700', async () => {
    const t = await tempDir();
    cleanups.push(t.cleanup);
    const first = await makeWorkDir(t.dir, 's2', 'prep');
    await writeFile(join(first, 'f'), 'x');
    const { chmod } = await import('node:fs/promises');
    await chmod(first, 0o755);
    await makeWorkDir(t.dir, 's2', 'prep');
    expect((await stat(first)).mode & 0o777).toBe(0o700);
  });
});
