// Escapes from the execution world (issue 14, "a sandbox that holds"): each test runs a real
// shell script as the program, through the real world, and the escape must fail. Where this
// machine cannot enforce what a test needs, the test checks that the world says so instead.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { WORLD_LIMITS } from '../../src/world/settings.js';
import { runInWorld } from '../../src/world/run.js';
import type { WorldRequest } from '../../src/world/shapes.js';
import type { WorldCapabilities } from '../../src/world/capabilities.js';
import { worldCapabilities } from '../../src/world/sandbox.js';
import { makeWorkDir } from '../../src/world/workdir.js';
import { pidsWith, tempDir } from './helpers.js';

let caps: WorldCapabilities;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => { caps = await worldCapabilities(); });
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

/** A root with a work dir for session s1 and, beside it, another session's finished result. */
async function scene(): Promise<{ root: string; cwd: string; other: string }> {
  const t = await tempDir('pico-escape-');
  cleanups.push(t.cleanup);
  const other = join(t.dir, 'sessions', 's0', 'result.json');
  await mkdir(join(t.dir, 'sessions', 's0'), { recursive: true });
  await writeFile(other, '{"outcome":"answered"}\n', { mode: 0o666 });
  await chmod(join(t.dir, 'sessions', 's0'), 0o777); // writable by anyone: only the sandbox may stop the write
  return { root: t.dir, cwd: await makeWorkDir(t.dir, 's1', 0), other };
}

function sh(script: string, cwd: string, more: Partial<WorldRequest> = {}): ReturnType<typeof runInWorld> {
  return runInWorld({ argv: ['/bin/sh', '-c', script], cwd, timeoutMs: 10_000, maxOutputBytes: 1 << 20, ...more });
}

const CAPS_SENTENCE = 'no capabilities (cannot mount, unmount or remount)';
const HIDDEN_SENTENCE = 'host paths hidden (only system folders, read_paths and its own folder are visible)';

describe('the world holds against a hostile program', () => {
  it.skipIf(!existsSync('/usr/bin/bwrap'))('with bubblewrap installed every protection is observed and the level is "full"', () => {
    expect(caps.level).toBe('full');
    expect(caps.notEnforced.filter((s) => !s.startsWith('a total memory limit'))).toEqual([]);
  });

  it('remounting / read-write does not let it overwrite another session\'s result.json', async () => {
    if (!caps.capabilitiesDropped) return expect(caps.notEnforced).toContain(CAPS_SENTENCE);
    const { cwd, other } = await scene();
    const r = await sh(`mount -o remount,bind,rw / ; mount -o remount,rw / ; mount -t tmpfs none /mnt; echo pwned > '${other}'; echo done`, cwd);
    expect(r.stdout).toContain('done');
    expect(await readFile(other, 'utf8')).toBe('{"outcome":"answered"}\n');
  });

  it('unmounting /proc does not show the host\'s processes or their environments', async () => {
    if (!caps.privateProc || !caps.capabilitiesDropped) return expect(caps.notEnforced).toContain(CAPS_SENTENCE);
    const { cwd } = await scene();
    const secret = `pico-secret-${process.pid}-${Date.now()}`;
    const holder = spawn('sleep', ['30'], { env: { ...process.env, PICO_HOLDER_SECRET: secret }, stdio: 'ignore' });
    cleanups.push(() => { holder.kill('SIGKILL'); });
    const r = await sh('umount /proc; umount -l /proc; echo "count=$(ls /proc | grep -c "^[0-9]")"; cat /proc/1/environ /proc/*/environ 2>/dev/null | tr "\\0" "\\n"', cwd);
    expect(r.stdout).not.toContain(secret);
    expect(Number(/count=(\d+)/.exec(r.stdout)?.[1])).toBeLessThanOrEqual(6);
  });

  it('a unix socket of the host under the temp folder is neither visible nor reachable', async () => {
    const { root, cwd } = await scene();
    const path = join(root, 'host.sock');
    const server = createServer((s) => s.end('hello from the host\n'));
    await new Promise<void>((r) => server.listen(path, r));
    await chmod(path, 0o777);
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const js = `require('net').connect(${JSON.stringify(path)}).on('data',d=>process.stdout.write(d)).on('error',e=>console.log('refused '+e.code))`;
    const r = await runInWorld({ argv: [process.execPath, '-e', js], cwd, timeoutMs: 10_000, maxOutputBytes: 1000 });
    if (!caps.hostPathsHidden) return expect(caps.notEnforced).toContain(HIDDEN_SENTENCE);
    expect(r.stdout).not.toContain('hello from the host');
    const seen = await sh(`test -e '${path}' && echo visible || echo absent; ls /run /tmp 2>&1 | head -5`, cwd);
    expect(seen.stdout).toContain('absent');
  });

  it('a fork bomb is bounded by the process-count limit', async () => {
    if (!caps.limits.processes) return expect(caps.notEnforced).toContain('process-count limit');
    const { cwd } = await scene();
    // awk keeps going when a fork fails (dash would exit), so it can say how many it started
    const mark = `9.${process.pid}${Date.now() % 1000}`;
    const run = sh(`awk 'BEGIN { for (i = 0; i < 200; i++) if (system("sleep ${mark} &") == 0) n++; print "started=" n; fflush(); system("sleep 3") }' 2>/dev/null`,
      cwd, { timeoutMs: 3000 });
    await new Promise((r) => setTimeout(r, 1500));
    const outside = (await pidsWith(mark)).length;
    const r = await run;
    const alive = Number(/started=(\d+)/.exec(r.stdout)?.[1]);
    expect(outside).toBeLessThanOrEqual(WORLD_LIMITS.processes);
    expect(alive).toBeGreaterThan(0);
    expect(alive).toBeLessThanOrEqual(WORLD_LIMITS.processes + 2);
  });

  it('allocating 2 GB fails at the memory limit', async () => {
    if (!caps.limits.memory) return expect(caps.notEnforced).toContain('memory limit (per process)');
    const { cwd } = await scene();
    const r = await sh('awk \'BEGIN { s = "xxxxxxxxxxxxxxxx"; while (length(s) < 2147483648) s = s s; print "got " length(s) }\'; echo "awk=$?"', cwd, { timeoutMs: 30_000 });
    expect(r.stdout).not.toContain('got 2147483648');
    expect(r.stdout).toMatch(/awk=[1-9]/);
  });

  it('a file cannot grow past the file-size limit', async () => {
    if (!caps.limits.fileSize) return expect(caps.notEnforced).toContain('file-size limit');
    const { cwd } = await scene();
    await sh(`head -c ${WORLD_LIMITS.file_bytes + (1 << 20)} /dev/zero > big 2>/dev/null; true`, cwd, { timeoutMs: 30_000 });
    expect((await stat(join(cwd, 'big'))).size).toBeLessThanOrEqual(WORLD_LIMITS.file_bytes);
  });

  it('/etc/shadow and a file outside its read paths cannot be read; a declared read path can', async () => {
    const { root, cwd } = await scene();
    const outside = join(root, 'outside.txt');
    const inside = join(root, 'data');
    await mkdir(inside);
    await writeFile(outside, 'OUTSIDE-SECRET\n', { mode: 0o644 });
    await writeFile(join(inside, 'ok.txt'), 'DECLARED-DATA\n', { mode: 0o644 });
    await chmod(root, 0o755);
    const r = await sh(`cat /etc/shadow; cat '${outside}'; cat '${inside}/ok.txt'`, cwd, { readable: [inside] });
    expect(r.stdout).toContain('DECLARED-DATA');
    expect(r.stdout).not.toMatch(/^root:/m);
    if (!caps.hostPathsHidden) return expect(caps.notEnforced).toContain('reads of world-readable files');
    expect(r.stdout).not.toContain('OUTSIDE-SECRET');
  });

  it('nothing outside the work dir can be written, not even in a folder anyone may write', async () => {
    if (!caps.readOnlyFilesystem) return expect(caps.notEnforced).toContain('read-only filesystem outside declared paths');
    const { root, cwd, other } = await scene();
    await chmod(root, 0o777);
    const r = await sh(`echo x > '${root}/planted'; echo x > '${other}'; echo x > /tmp/pico-planted-${process.pid}; echo x > ./mine && echo wrote-own`, cwd);
    expect(r.stdout).toContain('wrote-own');
    expect(existsSync(join(root, 'planted'))).toBe(false);
    expect(existsSync(`/tmp/pico-planted-${process.pid}`)).toBe(false);
    expect(await readFile(other, 'utf8')).toBe('{"outcome":"answered"}\n');
  });

  it.skipIf(typeof process.getuid !== 'function' || process.getuid() !== 0)('as root, the program runs as the sandbox user, never root', async () => {
    const { cwd } = await scene();
    const r = await sh('id -u', cwd);
    expect(r.stdout.trim()).toBe(String(caps.runAsUid ?? 0));
    if (caps.dropperPath) expect(r.stdout.trim()).not.toBe('0');
  });

  const DIST = resolve(import.meta.dirname, '../../dist/src/world/run.js');
  it.skipIf(typeof process.getuid !== 'function' || process.getuid() !== 0 || !existsSync(DIST) || !existsSync('/usr/bin/setpriv'))(
    'a daemon running as uid 65534 gets a world that still cannot be remounted or unmounted', async () => {
      const { root, other } = await scene();
      await chmod(root, 0o777);
      const cwd = join(root, 'w');
      await mkdir(cwd, { mode: 0o777 });
      await chmod(cwd, 0o777);
      const script = `mount -o remount,rw / ; umount /proc; echo pwned > '${other}'; echo "count=$(ls /proc | grep -c '^[0-9]')"; id -u`;
      const js = `import(${JSON.stringify(DIST)}).then(async (m) => { const r = await m.runInWorld({ argv: ['/bin/sh', '-c', ${JSON.stringify(script)}], cwd: ${JSON.stringify(cwd)}, timeoutMs: 10000, maxOutputBytes: 100000 }); console.log(JSON.stringify(r)); })`;
      const out = spawnSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', js], { encoding: 'utf8', timeout: 30_000 });
      const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as { stdout: string; isolation: string };
      expect(await readFile(other, 'utf8')).toBe('{"outcome":"answered"}\n');
      if (r.isolation === 'none') return; // no user namespaces for an unprivileged user here: nothing to remount from
      expect(Number(/count=(\d+)/.exec(r.stdout)?.[1])).toBeLessThanOrEqual(6);
    });
});

describe('requires_isolation', () => {
  it('a program that requires more isolation than the machine gives does not run, and the cause names what is missing', async () => {
    const { NO_ISOLATION } = await import('../../src/world/sandbox.js');
    const { cwd } = await scene();
    const r = await runInWorld({ argv: ['/bin/sh', '-c', 'touch ran'], cwd, timeoutMs: 5000, maxOutputBytes: 100, requires: 'full' }, { capabilities: NO_ISOLATION });
    expect(r).toMatchObject({ failed: true, exitCode: null });
    expect(r.cause).toMatch(/requires isolation "full" and this machine gives "none"/);
    expect(r.cause).toMatch(/install bubblewrap/);
    expect(existsSync(join(cwd, 'ran'))).toBe(false);
  });

  it('a tool that requires "full" becomes tool_failed naming the missing isolation where the machine gives less, and runs where it gives it', async () => {
    const { runTool } = await import('../../src/tools/run.js');
    const { root, cwd } = await scene();
    const t = {
      manifest: 'tool@1' as const, name: 'strict', description: 'x', command: ['echo', 'hello'], input_schema: { type: 'object' },
      path_args: [], read_paths: [], output: { media: 'text' as const }, reducer: 'extract@1', effect: 'read_only' as const,
      idempotent: true, trust_out: 'T1' as const, limits: { timeout_ms: 5000, max_output_bytes: 100 }, requires_isolation: 'full' as const,
    };
    const run = runTool(t, {}, { root, workDir: cwd });
    if (caps.level === 'full') return expect((await run).output).toBe('hello\n');
    await expect(run).rejects.toMatchObject({ type: 'tool_failed', message: expect.stringMatching(/requires isolation "full"/) });
  });
});

describe('host_view (a tool that reports on the host, such as df)', () => {
  it('sees the host\'s mounts read-only, still cannot remount, and counts as "partial" for requires_isolation', async () => {
    const { cwd, other } = await scene();
    const r = await sh(`df -P -k /; mount -o remount,rw / 2>/dev/null; echo pwned > '${other}' 2>/dev/null; echo done`, cwd, { hostView: ['fs'] });
    expect(r.stdout).toContain('done');
    expect(await readFile(other, 'utf8')).toBe('{"outcome":"answered"}\n');
    if (caps.level !== 'full') return;
    expect(r.isolation).toBe('partial');
    expect(r.stdout.split('\n')[1]).not.toMatch(/^tmpfs/); // the host's root file system, not the sandbox's
    const strict = await sh('true', cwd, { hostView: ['fs'], requires: 'full' });
    expect(strict.cause).toMatch(/requires isolation "full" and a run with host_view \["fs"\] gets "partial"/);
  });
});
