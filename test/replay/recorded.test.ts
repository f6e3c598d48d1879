/**
 * Issue 21 item 7: "removing an unused model makes older sessions refuse replay." A session's
 * composition document records every manifest it ran under; replay runs under those when the
 * root's have changed since, so removing a model the session never called (`pico models rm`)
 * leaves it replayable, byte for byte. What the document holds only as digests (code, prompts,
 * programs) is still this root's: a changed prompt is refused, naming it. The compiled CLI on a
 * `pico init` root (build first).
 */
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRoot } from '../helpers/root.js';
import { picoAsync as pico } from '../daemon/spawn.js';

/** A gguf provider the example job never calls (the code parsers serve its steps first). */
function unusedModel(root: string): void {
  const weights = randomBytes(4096);
  writeFileSync(join(root, 'models', 'unused.gguf'), weights);
  writeFileSync(join(root, 'manifests', 'providers', 'unused.json'), JSON.stringify({
    manifest: 'provider@1', id: 'unused', implements: ['extract@1'], kind: 'gguf', schemas: ['log_summary@2'],
    file: 'models/unused.gguf', sha256: createHash('sha256').update(weights).digest('hex'), threads: 1, context_size: 2048, residency: 'cold',
    max_input_bytes: 4096, resource: null, cost: null, security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: null, escalates_to: [], sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 42, max_tokens: 64 },
    prompt: 'extract-log-summary', limits: { timeout_ms: 20_000, max_output_bytes: 8192 },
  }, null, 2));
}

describe('replay after the root changed', () => {
  it('a session replays identically after an unused model is removed with pico models rm; a changed prompt is refused, naming it', async () => {
    const root = makeRoot('pico-replay-recorded-');
    unusedModel(root);
    const run = await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const events = readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8');
    expect(events).not.toMatch(/"provider":"unused/);
    expect(readFileSync(join(root, 'sessions', id, 'composition.json'), 'utf8')).toContain('"unused"');

    const rm = await pico(['models', 'rm', 'unused', '--root', root]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(join(root, 'manifests', 'providers', 'unused.json'))).toBe(false);
    expect(existsSync(join(root, 'models', 'unused.gguf'))).toBe(false);
    const after = await pico(['replay', id, '--root', root]);
    expect(after.stdout, after.stderr).toMatch(/^identical: \d+ events replayed byte for byte/);
    expect(after.code).toBe(0);
    // a new session runs under the root as it is now
    expect((await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root])).code).toBe(0);

    appendFileSync(join(root, 'prompts', 'extract-log-summary.md'), '\nBe brief.\n');
    const refused = await pico(['replay', id, '--root', root]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`refused: session ${id} was recorded under another composition; differences:\n  prompts.extract-log-summary: changed`);
    expect(refused.stdout).not.toContain('providers.unused');
  }, 120_000);
});
