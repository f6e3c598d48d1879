/**
 * Issue 15 item 3: "`pico doctor`: one line per check, ok / warn / fail with
 * the fix … each model's file against its pinned hash". On the real compiled
 * CLI, real roots and real files; the model file is a few bytes standing in
 * for weights (doctor hashes a file, it never loads a model).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeCheck } from '../../src/doctor/runtime.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { MAIN_JS, picoAsync as pico } from '../daemon/spawn.js';

type Doc = { ok: boolean; checks: { group: string; name: string; level: string; detail: string; fix: string }[] };

/** A gguf provider manifest naming `file` and pinning `sha256`. */
function ggufProvider(root: string, id: string, file: string, sha256: string): void {
  writeFileSync(join(root, 'manifests', 'providers', `${id}.json`), JSON.stringify({
    manifest: 'provider@1', id, description: 'a test model file', implements: ['extract@1'], schemas: ['log_summary@2'],
    kind: 'gguf', file, sha256, threads: 1, context_size: 2048, residency: 'cold', max_input_bytes: 8192, resource: null, cost: null,
    security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } }, confidence_floor: 0.5, escalates_to: [], priority: 100,
    sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 42, max_tokens: 64 }, prompt: 'extract-log-summary',
    limits: { timeout_ms: 60_000, max_output_bytes: 8192 },
  }, null, 2));
}

function goodRoot(): string {
  const root = tempRoot('pico-doctor-');
  initRoot(root);
  return root;
}

describe('pico doctor', () => {
  it('a good root gets only ok and warn lines, exit 0, and every line that is not ok carries a fix', async () => {
    const root = goodRoot();
    const r = await pico(['doctor', '--root', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.ok).toBe(true);
    expect(doc.checks.filter((c) => c.level === 'fail')).toEqual([]);
    for (const c of doc.checks.filter((x) => x.level !== 'ok')) expect(c.fix.length, `${c.group} ${c.name}`).toBeGreaterThan(0);
    for (const g of ['node', 'modules', 'sandbox', 'disk', 'root', 'models']) expect(doc.checks.some((c) => c.group === g), g).toBe(true);
    expect(doc.checks.find((c) => c.name === 'better-sqlite3')?.level).toBe('ok');
    expect(doc.checks.find((c) => c.name === 'sessions/rejected')?.level).toBe('ok'); // init makes it 0700
    // the human form: one line per check, starting with its level
    const human = await pico(['doctor', '--root', root]);
    expect(human.code).toBe(0);
    const lines = human.stdout.split('\n').filter((l) => /^(ok|warn|fail) /.test(l));
    expect(lines.length).toBe(doc.checks.length);
  }, 60_000);

  it('a model file whose bytes do not match the pinned sha256 fails, naming the file and the fix; exit 1', async () => {
    const root = goodRoot();
    mkdirSync(join(root, 'models'), { recursive: true });
    writeFileSync(join(root, 'models', 'tiny.gguf'), 'GGUF not really a model');
    ggufProvider(root, 'tiny-model', 'models/tiny.gguf', 'a'.repeat(64));
    const r = await pico(['doctor', '--root', root]);
    expect(r.code).toBe(1);
    const line = r.stdout.split('\n').find((l) => l.startsWith('fail') && l.includes('tiny-model'));
    expect(line).toContain(join(root, 'models', 'tiny.gguf'));
    expect(line).toContain('pins ' + 'a'.repeat(64));
    expect(r.stdout).toMatch(/fix: restore the original file, or .*pico provision/);
    expect(r.stderr).toContain('hashing'); // a person is told that it hashes, before it does
  }, 60_000);

  it('a matching model file is ok, and the second run takes the hash from the cache until the file changes', async () => {
    const root = goodRoot();
    mkdirSync(join(root, 'models'), { recursive: true });
    const file = join(root, 'models', 'tiny.gguf');
    writeFileSync(file, 'GGUF pinned bytes');
    ggufProvider(root, 'tiny-model', 'models/tiny.gguf', createHash('sha256').update('GGUF pinned bytes').digest('hex'));
    const first = JSON.parse((await pico(['doctor', '--root', root, '--json'])).stdout) as Doc;
    expect(first.checks.find((c) => c.name === 'tiny-model')).toMatchObject({ level: 'ok' });
    const second = await pico(['doctor', '--root', root, '--json']);
    expect((JSON.parse(second.stdout) as Doc).checks.find((c) => c.name === 'tiny-model')?.detail).toContain('cached');
    expect(second.stderr).not.toContain('hashing');
    writeFileSync(file, 'GGUF other bytes!'); // same size, new mtime and content
    const third = await pico(['doctor', '--root', root, '--json']);
    expect(third.code).toBe(1);
    expect((JSON.parse(third.stdout) as Doc).checks.find((c) => c.name === 'tiny-model')?.level).toBe('fail');
  }, 60_000);

  it('a missing model file fails naming the path; a readable rejected/ warns and a folder of another owner fails, each with its fix', async () => {
    const root = goodRoot();
    ggufProvider(root, 'gone-model', 'models/gone.gguf', 'b'.repeat(64));
    chmodSync(join(root, 'sessions', 'rejected'), 0o755);
    const asRoot = process.getuid?.() === 0; // only root can give a folder to another user
    if (asRoot) chownSync(join(root, 'memory'), 65534, 65534);
    const doc = JSON.parse((await pico(['doctor', '--root', root, '--json'])).stdout) as Doc;
    const gone = doc.checks.find((c) => c.name === 'gone-model')!;
    expect(gone.level).toBe('fail');
    expect(gone.detail).toContain(join(root, 'models', 'gone.gguf'));
    expect(doc.checks.find((c) => c.name === 'sessions/rejected')).toMatchObject({ level: 'warn', fix: `chmod 700 ${join(root, 'sessions', 'rejected')}` });
    if (asRoot) expect(doc.checks.find((c) => c.name === 'memory')).toMatchObject({ level: 'fail', fix: `chown -R 0 ${join(root, 'memory')}` });
  }, 60_000);

  it('Node below 20 fails, and the fix says what to do on Debian 12, whose nodejs is 18', () => {
    const c = nodeCheck('18.19.0');
    expect(c.level).toBe('fail');
    expect(c.fix).toContain('Debian 12');
    expect(c.fix).toContain('NodeSource');
    expect(nodeCheck('20.11.1').level).toBe('ok');
  });

  it('pico --version prints the package version from the package.json beside the code, whatever the current folder', async () => {
    const r = spawnSync(process.execPath, [MAIN_JS, '--version', '--json'], { encoding: 'utf8', cwd: tempRoot('pico-version-') });
    expect(r.status).toBe(0);
    const v = JSON.parse(r.stdout) as { name: string; version: string; node: string };
    expect(v).toMatchObject({ name: 'picoharness', node: process.versions.node });
    expect(v.version).toMatch(/^\d+\.\d+\.\d+/);
    expect((await pico(['-V'])).stdout).toBe(`picoharness ${v.version} (node ${process.versions.node})\n`);
  });
});
