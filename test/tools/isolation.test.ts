// Every shipped tool runs under every isolation level this machine offers (issue 30 item 8), as root
// (whose programs run as the sandbox user) and as the service's own user: each run gives its fact, or
// a failure whose plain cause its manifest (or the path check) declares for a state of this machine —
// never "Permission denied", never a refusal to run. The root is a fresh `pico init` root in a folder
// only its owner may enter (mkdtemp, 0700), as /root or the service's 0750 state folder would be.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hideBwrap, isRoot, runMany, runShipped, type ToolOutcome } from '../helpers/machine-state.js';
import { toolManifestSchema } from '../../src/registry/manifest.js';
import { runTool } from '../../src/tools/run.js';
import { makeWorkDir } from '../../src/world/workdir.js';
import { worldAt } from '../../src/world/sandbox.js';
import { providerError } from '../helpers/provider-error.js';
import { makeRoot, REPO } from '../helpers/root.js';

const TOOLS = readdirSync(join(REPO, 'manifests/tools')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();

/** Arguments each shipped tool is run with (files from the root's examples/). */
const ARGS: Record<string, { args: Record<string, unknown>; approved?: boolean }> = {
  apt_upgradable: { args: {} },
  audio_info: { args: { path: 'examples/data/tone.wav' } },
  capture_df: { args: {} },
  du_top: { args: { path: 'examples/data', depth: 1 } },
  failed_units: { args: {} },
  file_stat: { args: { path: 'examples/data/syslog.txt' } },
  image_info: { args: { path: 'examples/data/sample.png' } },
  journal_disk: { args: {} },
  journal_window: { args: { since: '-1h' } },
  kernel_log: { args: {} },
  listening_sockets: { args: {} },
  load_top: { args: {} },
  log_files_top: { args: {} },
  memory_usage: { args: {} },
  network: { args: {} },
  pressure: { args: {} },
  process_find: { args: { name: 'node' } },
  // keep more than the archive holds: the run deletes nothing
  prune_archive: { args: { dir: 'examples/archive', keep: 1000 }, approved: true },
  read_file: { args: { path: 'examples/data/syslog.txt' } },
  thermal: { args: {} },
  throttling: { args: {} },
  top_memory: { args: {} },
  unit_log: { args: { unit: 'ssh.service', lines: 20 } },
  unit_status: { args: { unit: 'ssh.service' } },
};

/** What a run may end in: its output (and the fact its code parser makes), or a failure classified into a cause its manifest declares (or the path check's). */
function problem(o: ToolOutcome): string | null {
  if (o.unavailable) return null;
  if (o.fact || (o.output !== undefined && o.output.trim() !== '')) return null;
  if (o.error && o.cause) {
    const manifest = JSON.parse(readFileSync(join(REPO, 'manifests/tools', `${o.tool}.json`), 'utf8')) as { causes?: { id: string }[] };
    if ((manifest.causes ?? []).some((c) => c.id === o.cause!.id) || o.cause.id === 'no_such_path') return null;
  }
  return `${o.tool} at ${o.level ?? 'the machine\'s level'} as uid ${o.uid}: ${o.error ?? 'no fact'} ${o.message ?? ''}`;
}

/** A root as `pico init` makes it, in a folder only its owner may enter (0700), or one anyone may (0755). */
function rootFor(open: boolean): string {
  const root = makeRoot('pico-iso-');
  if (open) chmodSync(root, 0o755);
  return root;
}

function runAll(level: string | undefined, opts: { uid?: number; open?: boolean } = {}): ToolOutcome[] {
  const missing = TOOLS.filter((t) => !ARGS[t]);
  expect(missing, `add example arguments for ${missing.join(', ')} to ARGS in test/tools/isolation.test.ts`).toEqual([]);
  return runMany(TOOLS.map((t) => ({ tool: t, ...ARGS[t]! })), { root: rootFor(opts.open ?? false), ...(level ? { level } : {}), ...(opts.uid !== undefined ? { uid: opts.uid } : {}) });
}

/** The tools that read what this machine has: they give their output whatever the level. */
const READS_HERE = ['apt_upgradable', 'capture_df', 'memory_usage', 'load_top', 'network', 'read_file', 'file_stat', 'audio_info', 'image_info', 'process_find', 'prune_archive'];

describe('every shipped tool under every isolation level', () => {
  for (const level of ['full', 'partial', 'network', 'none'] as const) {
    it(`as root (programs run as the sandbox user), at "${level}", with the root in a folder closed to others`, (ctx) => {
      const outcomes = runAll(level);
      if (outcomes.every((o) => o.unavailable)) {
        ctx.skip(`this machine cannot give isolation "${level}": ${outcomes[0]!.unavailable}`);
        return;
      }
      if (level === 'none') {
        // no wrapper, no mount namespace: a program that reads files in the root cannot reach them, and
        // says so instead of failing with "Permission denied"; the rest run in their own folder as ever
        const refused = outcomes.filter((o) => /^tool [a-z_]+: .* failed with not run: it runs as uid 65534, which may not enter .* install bubblewrap \(bwrap\), or keep the root under folders other users may enter$/.test(o.message ?? ''));
        expect(refused.map((o) => o.tool).sort()).toEqual(['audio_info', 'file_stat', 'image_info', 'prune_archive']);
        expect(outcomes.filter((o) => !refused.includes(o)).map(problem).filter(Boolean)).toEqual([]);
        return;
      }
      expect(outcomes.map(problem).filter(Boolean)).toEqual([]);
      for (const t of READS_HERE) expect(outcomes.find((o) => o.tool === t)?.output, `${t} at ${level}`).toBeTruthy();
    }, 300_000);
  }

  it('as root, at "none", with the root in a folder anyone may enter', () => {
    const outcomes = runAll('none', { open: true });
    expect(outcomes.map(problem).filter(Boolean)).toEqual([]);
    for (const t of READS_HERE) expect(outcomes.find((o) => o.tool === t)?.output, t).toBeTruthy();
  }, 300_000);

  it.skipIf(!isRoot)('as the service\'s own user (not root: programs run as that user), at the level the machine gives it', () => {
    const outcomes = runAll(undefined, { uid: 4242 });
    expect(outcomes.every((o) => o.uid === 4242)).toBe(true);
    expect(outcomes.map(problem).filter(Boolean)).toEqual([]);
    for (const t of ['apt_upgradable', 'capture_df', 'memory_usage', 'load_top', 'read_file', 'process_find']) {
      expect(outcomes.find((o) => o.tool === t)?.output, t).toBeTruthy();
    }
  }, 300_000);
});

describe('apt needs a temp folder it may write', () => {
  it('apt without a writable temp folder says so in words (apt\'s real output, TMPDIR pointed at nothing so it falls back to the read-only /tmp)', async (ctx) => {
    const world = await worldAt('partial');
    if (!world) {
      ctx.skip('this machine cannot give isolation "partial" (its /tmp would be writable)');
      return;
    }
    const shipped = toolManifestSchema.parse(JSON.parse(readFileSync(join(REPO, 'manifests/tools/apt_upgradable.json'), 'utf8')));
    const noTemp = { ...shipped, command: shipped.command.map((c) => c.replace('exec apt ', 'TMPDIR=/nonexistent exec apt ')) };
    const root = makeRoot('pico-apt-');
    const e = await providerError(runTool(noTemp, {}, { root, workDir: await makeWorkDir(root, 'state', 'apt'), world }));
    expect(e.message).toMatch(/Unable to mkstemp .*Read-only file system/);
    expect(e.detail?.cause).toEqual({ id: 'apt_no_temp', plain: 'apt found no temp folder it may write, so it could not read its package lists' });
  }, 120_000);

  it.skipIf(!isRoot || !existsSync('/usr/bin/unshare'))('examples/jobs/are-updates-available.json answers on a box without bubblewrap (bwrap hidden: the world settles for unshare, "partial")', () => {
    const root = makeRoot('pico-nobwrap-');
    const run = [process.execPath, join(REPO, 'dist/src/cli/main.js'), 'run', join(REPO, 'examples/jobs/are-updates-available.json'), '--root', root, '--json'];
    const hide = hideBwrap();
    const argv = hide ? ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `${hide} && exec "$@"`, '-', ...run] : run;
    const out = execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
    const result = JSON.parse(out) as { outcome: string; answer: string };
    expect(result.outcome).toBe('answered');
    expect(result.answer).toMatch(/package|upgrade/);
  }, 120_000);

  it('apt_upgradable answers under partial isolation, as root, with its root in a folder closed to others', () => {
    const r = runShipped('apt_upgradable', {}, { root: makeRoot('pico-apt-'), level: 'partial' });
    if (r.unavailable) return; // no unshare here: the "none" level case is covered above
    expect(r.error, r.message).toBeUndefined();
    expect(r.fact!.count).toEqual(expect.any(Number));
  }, 120_000);
});
