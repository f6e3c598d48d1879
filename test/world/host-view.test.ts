// host_view: a tool sees exactly what it names of the host ("fs", "pid", "net"), keeps every other
// protection, and its runs are reported at the level that remains — real runs through the real world
// on whatever this machine gives (the level arithmetic is checked for every machine level too).
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bestLevel, runLevel } from '../../src/registry/host-view.js';
import { runInWorld } from '../../src/world/run.js';
import type { WorldRequest } from '../../src/world/shapes.js';
import type { WorldCapabilities } from '../../src/world/capabilities.js';
import { worldCapabilities } from '../../src/world/sandbox.js';
import { makeWorkDir } from '../../src/world/workdir.js';
import { tempDir } from './helpers.js';

let caps: WorldCapabilities;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => { caps = await worldCapabilities(); });
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

/** A work dir and, beside it, a file the program must not be able to change. */
async function scene(): Promise<{ cwd: string; other: string }> {
  const t = await tempDir('pico-view-');
  cleanups.push(t.cleanup);
  await mkdir(join(t.dir, 'sessions', 's0'), { recursive: true });
  const other = join(t.dir, 'sessions', 's0', 'result.json');
  await writeFile(other, 'kept\n', { mode: 0o666 });
  await chmod(join(t.dir, 'sessions', 's0'), 0o777);
  for (const d of [t.dir, join(t.dir, 'sessions')]) await chmod(d, 0o755); // so a sandbox user could read it, where the sandbox shows it
  return { cwd: await makeWorkDir(t.dir, 's1', 0), other };
}

const sh = (script: string, cwd: string, more: Partial<WorldRequest> = {}) =>
  runInWorld({ argv: ['/bin/sh', '-c', script], cwd, timeoutMs: 10_000, maxOutputBytes: 1 << 20, ...more });
const hostIfaces = () => readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2).map((l) => l.split(':')[0]!.trim()).filter(Boolean).sort();
const PROBE = 'echo "procs=$(ls /proc | grep -c "^[0-9]")"; sed 1,2d /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\\n" ,; echo';

describe('the level a run with a host view is reported at', () => {
  it('each view lowers the run to what remains of the ladder: fs → partial, pid → network, net → none; nothing is ever raised', () => {
    expect(runLevel('full', [])).toBe('full');
    expect(runLevel('full', ['fs'])).toBe('partial');
    expect(runLevel('full', ['pid'])).toBe('network');
    expect(runLevel('full', ['net'])).toBe('none');
    expect(runLevel('full', ['fs', 'pid'])).toBe('network');
    expect(runLevel('partial', ['fs'])).toBe('partial');
    expect(runLevel('network', ['fs'])).toBe('network');
    expect(runLevel('none', ['fs'])).toBe('none');
    expect(bestLevel(['pid'])).toBe('network');
  });
});

describe('a run sees exactly what it names of the host', () => {
  it('"pid": the host\'s processes are visible, the network and the writes outside stay cut, and the run is not reported as better than "network"', async () => {
    const { cwd, other } = await scene();
    const r = await sh(`${PROBE}; echo x > '${other}' 2>/dev/null`, cwd, { hostView: ['pid'] });
    const plain = await sh(PROBE, cwd);
    expect(r.isolation).toBe(runLevel(caps.level, ['pid']));
    expect(r.hostView).toEqual(['pid']);
    if (caps.privateProc) {
      expect(Number(/procs=(\d+)/.exec(plain.stdout)![1])).toBeLessThanOrEqual(5);
      expect(Number(/procs=(\d+)/.exec(r.stdout)![1])).toBeGreaterThan(5);
    }
    if (!caps.network) expect(r.stdout).toContain('\nlo,\n');
    if (caps.readOnlyFilesystem) expect(await readFile(other, 'utf8')).toBe('kept\n');
  });

  it('"net": the host\'s interfaces are visible, /proc and the filesystem stay confined, and the run is "none"', async () => {
    const { cwd, other } = await scene();
    const r = await sh(`${PROBE}; echo x > '${other}' 2>/dev/null`, cwd, { hostView: ['net'] });
    expect(r.isolation).toBe('none');
    expect(r.stdout).toContain(`\n${hostIfaces().join(',')},\n`);
    if (caps.privateProc) expect(Number(/procs=(\d+)/.exec(r.stdout)![1])).toBeLessThanOrEqual(5);
    if (caps.readOnlyFilesystem) expect(await readFile(other, 'utf8')).toBe('kept\n');
  });

  it('"fs": the host\'s tree is visible read-only, and the pid and net namespaces stay the sandbox\'s', async () => {
    const { cwd, other } = await scene();
    const r = await sh(`${PROBE}; cat '${other}'; echo x > '${other}' 2>/dev/null`, cwd, { hostView: ['fs'] });
    expect(r.isolation).toBe(runLevel(caps.level, ['fs']));
    expect(r.stdout).toContain('kept'); // a host path outside the read paths: visible with "fs"
    if (caps.hostPathsHidden) expect((await sh(`cat '${other}'`, cwd)).stdout).not.toContain('kept'); // and hidden without it
    if (caps.readOnlyFilesystem) expect(await readFile(other, 'utf8')).toBe('kept\n');
    if (caps.privateProc) expect(Number(/procs=(\d+)/.exec(r.stdout)![1])).toBeLessThanOrEqual(5);
    if (!caps.network) expect(r.stdout).toContain('\nlo,\n');
  });

  it('requires_isolation is checked against the run level: a "pid" run that requires "partial" does not run, naming the view and what it opens', async () => {
    const { cwd } = await scene();
    const r = await sh('echo ran', cwd, { hostView: ['pid'], requires: 'partial' });
    expect(r.stdout).toBe('');
    expect(r.failed).toBe(true);
    expect(r.cause).toMatch(/requires isolation "partial"/);
    if (caps.level !== 'none' && caps.level !== 'network') {
      expect(r.cause).toMatch(/host_view \["pid"\] gets "network"/);
      expect(r.cause).toMatch(/private \/proc \(host_view "pid"/);
      expect(r.cause).toMatch(/drop host_view or lower requires_isolation/);
    }
  });
});
