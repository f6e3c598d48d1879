// Each Pi admin tool family run for real through the runtime: a one-tool job in a temp root, the
// real command in the execution world, its code parser, the ladder, a committed fact and the
// answer. Where this machine cannot give an answer (no systemd as PID 1, no journalctl) the test
// asserts the classified outcome the runtime records instead, or skips saying why.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { makeRoot, newSession, REPO } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

/** On PATH as the execution world sets it. */
const has = (program: string) => ['/usr/local/bin', '/usr/bin', '/bin'].some((d) => existsSync(join(d, program)));
const systemdRuns = existsSync('/run/systemd/system');

/** Run a job of one tool step plus the answer; the ledger and the result. */
async function runTool(tool: string, schema: string, args: Record<string, unknown> = {}) {
  rt = await openRuntime(makeRoot('pico-admin-'));
  const job = parseJob({
    job: 'job@1', goal: `check ${tool}`, budget_class: 'attended',
    plan: [
      { step: 'look', tool, args, capability: 'extract@1', schema },
      { step: 'answer', capability: 'answer@1', schema: 'answer@1', from: ['look'] },
    ],
  });
  const id = newSession(rt, job);
  const result = await rt.runSession(id);
  const events = readLedger(rt.sessionDir(id));
  const fact = events.find((e): e is Extract<LedgerEvent, { type: 'fact_added' }> => e.type === 'fact_added' && e.step === 'look');
  return { result, events, fact: fact?.fact as Record<string, unknown> | undefined };
}

/** The manifest's own shell script run with a PATH that lacks the program, as on a machine without it. */
function scriptWithout(tool: string, keep: string[]): { status: number; stdout: string; stderr: string } {
  const manifest = JSON.parse(readFileSync(join(REPO, 'manifests/tools', `${tool}.json`), 'utf8')) as { command: string[] };
  const bin = tempDir('pico-path-');
  for (const p of keep) symlinkSync(execFileSync('/bin/sh', ['-c', `command -v ${p}`], { encoding: 'utf8' }).trim(), join(bin, p));
  mkdirSync(join(bin, 'home'));
  const [sh, ...rest] = manifest.command.filter((a) => !/^(--[a-z-]+=)?\{\w+\??\}$/.test(a));
  try {
    const stdout = execFileSync(sh!, rest, { env: { PATH: bin, HOME: join(bin, 'home') }, encoding: 'utf8', stdio: 'pipe' });
    return { status: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('disk usage', () => {
  it.skipIf(!has('df'))('capture_df reduces this machine\'s df to disk_usage@1 with a fullest filesystem', async () => {
    const { result, fact } = await runTool('capture_df', 'disk_usage@1');
    expect(result.outcome).toBe('answered');
    expect(fact!.fullest).toMatchObject({ used_percent: expect.any(Number) });
  });
});

describe('memory, load and processes', () => {
  it('memory_usage reads this machine\'s /proc/meminfo into a fact whose total matches MemTotal', async () => {
    const { result, fact } = await runTool('memory_usage', 'memory_usage@1');
    expect(result.outcome).toBe('answered');
    const kib = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
    expect(fact!.total_bytes).toBe(kib * 1024);
    expect(fact!.used_percent).toEqual(expect.any(Number));
  });

  it.skipIf(!has('ps'))('load_top sees the host\'s processes (host_view pid), not only the sandbox\'s own', async () => {
    const { result, fact } = await runTool('load_top', 'load_processes@1', { sort: 'mem' });
    expect(result.outcome).toBe('answered');
    expect(fact!.sorted_by).toBe('memory');
    const pids = (fact!.processes as { pid: number }[]).map((p) => p.pid);
    expect(pids.length).toBeGreaterThan(3);
    expect(fact!.cpus).toBeGreaterThanOrEqual(1);
  });
});

describe('temperature and throttling', () => {
  it('thermal answers on any machine; without thermal zones or vcgencmd its fact abstains and says which source was missing', async () => {
    const { result, fact } = await runTool('thermal', 'thermal@1');
    expect(result.outcome).toBe('answered');
    if (!has('vcgencmd')) {
      expect(fact!.throttled_hex).toBeNull();
      expect(fact!.under_voltage_now).toBeNull();
      expect(fact!.note).toMatch(/vcgencmd is not installed/);
    }
    if ((fact!.zones as unknown[]).length === 0) expect(fact!.note).toMatch(/no readable thermal zone/);
    // the host's zones (read_paths bound into the sandbox), however many this machine has
    const zones = existsSync('/sys/class/thermal') ? readdirSync('/sys/class/thermal').filter((z) => z.startsWith('thermal_zone') && existsSync(`/sys/class/thermal/${z}/temp`)) : [];
    expect((fact!.zones as unknown[]).length).toBe(zones.length);
  });
});

describe('network', () => {
  it.skipIf(!has('ip'))('network sees the host\'s interfaces (host_view net), not only the sandbox\'s loopback', async () => {
    const { result, fact } = await runTool('network', 'network@1');
    expect(result.outcome).toBe('answered');
    expect(fact!.source).toBe('ip');
    const host = readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2).map((l) => l.split(':')[0]!.trim()).filter(Boolean);
    expect((fact!.interfaces as { name: string }[]).map((i) => i.name).sort()).toEqual(host.sort());
  });

  it('without ip the tool reads /proc/net, and the parser says what it cannot know', async () => {
    const run = scriptWithout('network', ['cat']);
    expect(run.stdout).toMatch(/^== \/proc\/net\/dev/);
    const { parseNetwork } = await import('../../providers/network/index.js');
    const v = parseNetwork(run.stdout);
    expect(v.source).toBe('proc');
    expect(v.interfaces.map((i) => i.name)).toContain('lo');
    expect(v.interfaces.every((i) => i.mac === null && i.ipv4 === null)).toBe(true);
  });
});

describe('a file\'s metadata', () => {
  it('file_stat reports the size stat gives for a file inside read_paths', async () => {
    const { result, fact } = await runTool('file_stat', 'file_metadata@1', { path: 'examples/data/df.txt' });
    expect(result.outcome).toBe('answered');
    expect(fact!.size_bytes).toBe(readFileSync(join(REPO, 'examples/data/df.txt')).length);
    expect(fact!.type).toBe('regular file');
  });

  it('a path outside read_paths ends the step as tool_failed, naming read_paths', async () => {
    const { events } = await runTool('file_stat', 'file_metadata@1', { path: '/root' });
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(JSON.stringify(failed)).toMatch(/outside read_paths|cannot be resolved/);
  });
});

describe('upgradable packages', () => {
  it.skipIf(!has('apt'))('apt_upgradable reads the local package lists and counts what apt lists', async () => {
    const { result, fact } = await runTool('apt_upgradable', 'upgradable_packages@1');
    expect(result.outcome).toBe('answered');
    expect(fact!.count).toEqual((fact!.packages as unknown[]).length);
    // the same lists the host's apt reads (read_paths bound into the sandbox), not an empty fresh root
    const host = execFileSync('apt', ['list', '--upgradable'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    expect(fact!.count).toBe(host.split('\n').filter((l) => l.includes('[upgradable from:')).length);
  }, 60_000);

  it('without apt the tool fails with exit 127 and says so', () => {
    const run = scriptWithout('apt_upgradable', []);
    expect(run.status).toBe(127);
    expect(run.stderr).toMatch(/apt is not installed on this machine/);
  });
});

describe('the journal', () => {
  const journal = ['/var/log/journal', '/run/log/journal'].some((d) => existsSync(d) && readdirSync(d).length > 0);
  it.skipIf(!has('journalctl'))(`journal_window on this machine ${journal ? 'reduces the journal to log_summary@2 and log_lines@1' : 'fails as tool_failed with the cause "there is no journal on this machine"'}`, async () => {
    const { result, fact, events } = await runTool('journal_window', 'log_lines@1', { since: '-1h', priority: 'err' });
    if (journal) {
      expect(result.outcome).toBe('answered');
      expect(fact!.lines_read).toEqual(expect.any(Number));
    } else {
      expect(events.find((e) => e.type === 'tool_failed')).toMatchObject({ tool: 'journal_window', cause: { id: 'no_journal', plain: 'there is no journal on this machine' } });
      expect(fact).toBeUndefined();
    }
  });

  it('without journalctl the tool fails with exit 127 and says so', () => {
    const run = scriptWithout('journal_window', []);
    expect(run.status).toBe(127);
    expect(run.stderr).toMatch(/journalctl is not installed on this machine/);
  });
});

describe('systemd units', () => {
  it.skipIf(!has('systemctl'))(`unit_status and failed_units ${systemdRuns ? 'answer' : 'fail as tool_failed, quoting systemctl (systemd is not PID 1 here)'}`, async () => {
    for (const [tool, schema, args] of [['unit_status', 'unit_status@1', { unit: 'ssh.service' }], ['failed_units', 'failed_units@1', {}]] as const) {
      const { result, events, fact } = await runTool(tool, schema, args);
      if (systemdRuns) {
        expect(result.outcome, tool).toBe('answered');
        expect(fact, tool).toBeTruthy();
      } else {
        const failed = events.find((e) => e.type === 'tool_failed');
        expect(JSON.stringify(failed), tool).toMatch(/systemctl .* failed with exit code 1: System has not been booted with systemd/);
        expect(fact, tool).toBeUndefined();
        expect(result.outcome, tool).not.toBe('answered');
      }
    }
  });
});
