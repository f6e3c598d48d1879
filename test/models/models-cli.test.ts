/**
 * Issue 15, item 6: "`pico models [--json]` lists id, file, size, hash,
 * measured tokens/s and last use; `pico models rm ID`." The compiled CLI on
 * a root made by `pico init`, the real stories260K provisioned into models/,
 * a real call recorded as a session and ingested into real memory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processIdentity } from '../../src/daemon/proc.js';
import { makeRoot } from '../helpers/root.js';
import { execFile } from 'node:child_process';
import { MAIN_JS } from '../daemon/spawn.js';

/** Run the compiled CLI without blocking the test worker (a model call takes seconds; spawnSync would starve vitest's RPC). */
function pico(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    execFile(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 90_000 }, (err, stdout, stderr) => {
      ok({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}
import { HAVE_MODELS, RANDOM, STORIES, STORIES_SHA } from './helpers.js';

const provisioned = async (root: string, id: string, file = STORIES): Promise<void> => {
  const r = await pico(['provision', file, '--id', id, '--implements', 'extract@1', '--root', root, '--threads', '1', '--no-probe']);
  expect(r.code, r.stderr).toBe(0);
};
type Listing = { models: { id: string; file: string; size: number; sha256: string; threads: number; decode_tokens_per_s: number | null; calls: number | null; last_used: string | null; last_session: string | null }[]; unused: { file: string; size: number }[]; memory: boolean };
const list = async (root: string): Promise<Listing> => {
  const r = await pico(['models', '--root', root, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listing;
};

describe.skipIf(!HAVE_MODELS)('pico models', () => {
  it('lists each model with file, size, pinned hash, measured decode rate, calls and the last session that used it, and files no manifest uses', async () => {
    const root = makeRoot('pico-models-cli-');
    expect(existsSync(path.join(root, 'models')), 'pico init makes models/').toBe(true);
    const p = await pico(['provision', STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--threads', '1']);
    expect(p.code, p.stderr).toBe(0);
    let l = await list(root);
    expect(l.memory).toBe(false);
    expect(l.models).toEqual([expect.objectContaining({ id: 'tiny', file: 'models/stories260K.gguf', size: 1_185_376, sha256: STORIES_SHA, threads: 1, calls: null, last_used: null })]);
    expect(l.models[0]!.decode_tokens_per_s).toBeGreaterThan(0);
    writeFileSync(path.join(root, 'in.txt'), 'Mar  3 10:15:07 web01 nginx[812]: error: upstream timed out\n');
    const call = await pico(['call', 'extract@1', '--schema', 'log_summary@2', '--input', path.join(root, 'in.txt'), '--provider', 'tiny', '--root', root, '--json']);
    const session = (JSON.parse(call.stdout) as { session: string }).session;
    expect((await pico(['memory', 'ingest', '--root', root])).code).toBe(0);
    copyFileSync(RANDOM, path.join(root, 'models', 'stray.gguf'));
    l = await list(root);
    expect(l.models[0]).toMatchObject({ id: 'tiny', last_session: session });
    expect(l.models[0]!.calls).toBeGreaterThan(0);
    expect(Date.parse(l.models[0]!.last_used!)).toBeGreaterThan(Date.now() - 600_000);
    expect(l.unused).toEqual([{ file: 'models/stray.gguf', size: 1_750_560 }]);
    const human = await pico(['models', '--root', root]);
    expect(human.stdout).toMatch(/tiny\s+models\/stories260K\.gguf\s+1\.2 MB\s+270cba1bd510…/);
    expect(human.stdout).toContain(session);
    expect(human.stdout).toMatch(/no manifest uses[\s\S]*models\/stray\.gguf/);
  }, 120_000);

  it('rm removes the manifest and its file in models/, and keeps a file another manifest still uses', async () => {
    const root = makeRoot('pico-models-rm-');
    await provisioned(root, 'a');
    await provisioned(root, 'b'); // the same file: already in models/
    const first = await pico(['models', 'rm', 'a', '--root', root]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/removed .*manifests\/providers\/a\.json\nkept the weights: .*still used by b/);
    expect(existsSync(path.join(root, 'models/stories260K.gguf'))).toBe(true);
    const second = await pico(['models', 'rm', 'b', '--root', root, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ id: 'b', file: path.join(root, 'models/stories260K.gguf'), kept: null });
    expect(existsSync(path.join(root, 'models/stories260K.gguf'))).toBe(false);
    expect(await list(root)).toMatchObject({ models: [], unused: [] });
  }, 60_000);

  it('rm never deletes weights outside models/: the manifest goes, the file stays', async () => {
    const root = makeRoot('pico-models-out-');
    await provisioned(root, 'tiny');
    const manifest = path.join(root, 'manifests/providers/tiny.json');
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), file: STORIES }, null, 2));
    const r = await pico(['models', 'rm', 'tiny', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/outside .*models: not removed/);
    expect(existsSync(STORIES)).toBe(true);
    expect(existsSync(manifest)).toBe(false);
  }, 60_000);

  it('rm of an unknown id, or of a provider that is not a model, is a usage error (exit 2) and removes nothing', async () => {
    const root = makeRoot('pico-models-unknown-');
    await provisioned(root, 'tiny');
    const unknown = await pico(['models', 'rm', 'nope', '--root', root]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no model provider "nope".*pico models/);
    const shell = JSON.parse(readFileSync(path.join(root, 'manifests/providers', 'log-summary-parser.json'), 'utf8')) as { id: string; kind: string };
    const notModel = await pico(['models', 'rm', shell.id, '--root', root]);
    expect(notModel.code).toBe(2);
    expect(notModel.stderr).toMatch(new RegExp(`is a ${shell.kind} provider, not a model`));
    expect(existsSync(path.join(root, 'manifests/providers/tiny.json'))).toBe(true);
  }, 60_000);

  it('rm refuses (exit 1) while the daemon runs a job whose composition has the model, and keeps everything', async () => {
    const root = makeRoot('pico-models-busy-');
    await provisioned(root, 'tiny');
    // a live daemon as the CLI sees one: the lock names a running process (this test's), status.json its job
    const daemonDir = path.join(root, 'sessions', '.daemon');
    mkdirSync(daemonDir, { recursive: true });
    writeFileSync(path.join(daemonDir, 'lock'), `${process.pid}\n${processIdentity(process.pid) ?? ''}\n`);
    const session = '20261201-120000-0123456789ab';
    mkdirSync(path.join(root, 'sessions', session));
    writeFileSync(path.join(root, 'sessions', session, 'composition.json'), JSON.stringify({ providers: { tiny: {} } }));
    writeFileSync(path.join(daemonDir, 'status.json'), JSON.stringify({ state: 'running', running: { session, step: 's1' } }));
    const r = await pico(['models', 'rm', 'tiny', '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`running job ${session}, which may call "tiny"`));
    expect(existsSync(path.join(root, 'manifests/providers/tiny.json'))).toBe(true);
    expect(existsSync(path.join(root, 'models/stories260K.gguf'))).toBe(true);
    // between jobs it goes ahead, and says the worker forgets it at its next start
    writeFileSync(path.join(daemonDir, 'status.json'), JSON.stringify({ state: 'running', running: null }));
    const idle = await pico(['models', 'rm', 'tiny', '--root', root]);
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toMatch(/systemctl reload picoharness/);
  }, 60_000);
});
