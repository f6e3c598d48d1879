/**
 * Issue 36, "Replay": a session folder is a file the daemon does not own once
 * it is copied in (from a backup, another box, an attacker). `pico replay
 * --all` must finish whatever a session's files are, and must never run a
 * program that only the planted session names. The compiled CLI on `pico
 * init` roots, with real FIFOs, real links and a real shell provider.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN_JS, picoAsync as pico } from '../daemon/spawn.js';
import { makeRoot, put, shellProvider } from '../helpers/root.js';

/** `pico ARGS`, killed after `ms` (a replay that hangs on a planted file is the failure). */
function picoWithin(args: string[], ms: number): Promise<{ code: number | null; stdout: string; stderr: string; hung: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MAIN_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, ms);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, hung });
    });
  });
}

/** A copy of session `from` under the id `to`, its own id written into its ledger and result. */
function copySession(root: string, from: string, to: string): string {
  const dir = join(root, 'sessions', to);
  cpSync(join(root, 'sessions', from), dir, { recursive: true });
  for (const f of ['events.jsonl', 'result.json']) writeFileSync(join(dir, f), readFileSync(join(dir, f), 'utf8').replaceAll(from, to));
  return dir;
}

describe('pico replay --all against planted session files', () => {
  it('finishes when a session\'s events.jsonl, composition.json or result.json is a FIFO or a link to /dev/zero, naming each such file', async () => {
    const root = makeRoot('pico-replay-planted-');
    const run = await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const good = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const planted: Record<string, string> = {};
    let n = 0;
    for (const file of ['events.jsonl', 'composition.json', 'result.json']) {
      for (const kind of ['fifo', 'zero']) {
        const id = `20261203-0000${String(n++).padStart(2, '0')}-00000000000a`;
        const dir = copySession(root, good, id);
        rmSync(join(dir, file));
        if (kind === 'fifo') expect(spawnSync('mkfifo', [join(dir, file)]).status).toBe(0);
        else symlinkSync('/dev/zero', join(dir, file));
        planted[id] = `${file} ${kind}`;
      }
    }
    const all = await picoWithin(['replay', '--all', '--root', root], 90_000);
    expect(all.hung, `replay --all hung: ${all.stdout}${all.stderr}`).toBe(false);
    const lines = all.stdout.trim().split('\n');
    expect(lines.some((l) => new RegExp(`^identical +${good} `).test(l)), all.stdout + all.stderr).toBe(true);
    for (const [id, what] of Object.entries(planted)) {
      const row = lines.find((l) => l.includes(id));
      expect(row, `${what}: ${all.stdout}${all.stderr}`).toMatch(/^skipped +\S+ +damaged: /);
      expect(row, what).toContain(what.split(' ')[0]);
    }
    expect(lines.at(-1)).toBe(`7 session(s): 1 identical, 0 differ, 0 refused, 6 skipped`);
  }, 150_000);

  it('never runs a program only a planted session names: a session whose recorded providers are not the root\'s is refused, saying so, and pico check still passes it', async () => {
    // the program runs in the execution world (no host paths, no network): it is seen from here by its
    // command line in /proc while it sleeps, as any process on this machine is
    const mark = `pico-planted-${process.pid}-${Date.now()}`;
    const seen = watchForProcess(mark);
    // box A: the disk parser is a shell provider, a system program with arguments
    const a = makeRoot('pico-replay-program-a-');
    rmSync(join(a, 'manifests', 'providers', 'disk-usage-parser.json'));
    put(a, 'manifests/providers/disk-sh.json', shellProvider('disk-sh', ['/bin/sh', '-c', 'cat >/dev/null; sleep 1; printf "{}"', mark], { schemas: ['disk_usage@1'], priority: 0 }));
    const run = await pico(['run', join(a, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', a, '--json']);
    expect(run.code === 0 || run.code === 1, run.stderr).toBe(true);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    expect(seen.count(), 'the provider ran on box A').toBeGreaterThan(0);
    expect(readFileSync(join(a, 'sessions', id, 'composition.json'), 'utf8')).toContain('"disk-sh"');

    // root B never had that provider; the session is planted into it whole
    const b = makeRoot('pico-replay-program-b-');
    cpSync(join(a, 'sessions', id), join(b, 'sessions', id), { recursive: true });
    const check = await pico(['check', id, '--root', b]);
    expect(check.code, check.stdout + check.stderr).toBe(0);

    seen.reset();
    const one = await pico(['replay', id, '--root', b]);
    expect(one.code, one.stdout + one.stderr).toBe(1);
    expect(one.stdout).toContain(`refused: session ${id}`);
    expect(one.stdout).toMatch(/providers\.disk-sh: .*shell provider/);
    const all = await pico(['replay', '--all', '--root', b, '--json']);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout)).toMatchObject({ refused: 1, identical: 0 });
    seen.stop();
    expect(seen.count(), 'the planted program ran during replay').toBe(0);
    expect(readdirSync(join(b, 'sessions')).filter((n) => /^\d{8}-/.test(n))).toEqual([id]);
  }, 150_000);
});

/** Count the processes whose command line holds `mark`, looking every 50 ms until stopped. */
function watchForProcess(mark: string): { count: () => number; reset: () => void; stop: () => void } {
  const pids = new Set<string>();
  const look = (): void => {
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(mark)) pids.add(pid);
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(look, 50);
  return { count: () => pids.size, reset: () => pids.clear(), stop: () => (look(), clearInterval(timer)) };
}
