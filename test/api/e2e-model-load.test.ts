/**
 * Issue 15 item 4: "/metrics … model load times". A model load happens in
 * the session worker, not in the ledger; it reaches the daemon as progress
 * (worker.ts → loop.ts → the observer) and is counted in
 * pico_model_load_duration_seconds. A real daemon runs a job whose step is
 * served by a real tiny GGUF model (stories260K; skipped, never failed, when
 * ../shared/models is absent).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { HAVE_MODELS, TINY_PROMPT, TINY_SCHEMA, tinyManifest } from '../models/helpers.js';
import { call, metric, postJob, startApiDaemon } from './client.js';

describe.skipIf(!HAVE_MODELS)('model load times in /metrics', () => {
  it('a job served by a local model counts one model load for that provider, and its provider calls', async () => {
    const root = tempRoot('pico-e2e-api-model-');
    initRoot(root);
    // a schema only the model serves, so the policy has no code provider to prefer
    writeFileSync(join(root, 'manifests', 'schemas', 'tiny_note@1.json'), JSON.stringify(TINY_SCHEMA));
    writeFileSync(join(root, 'prompts', 'tiny-note.md'), TINY_PROMPT);
    const capFile = join(root, 'manifests', 'capabilities', 'extract@1.json');
    const cap = JSON.parse(readFileSync(capFile, 'utf8')) as { schemas: string[] };
    cap.schemas.push('tiny_note@1');
    writeFileSync(capFile, JSON.stringify(cap));
    writeFileSync(join(root, 'manifests', 'providers', 'tiny.json'), JSON.stringify({ ...tinyManifest(), schemas: ['tiny_note@1'] }));
    const api = await startApiDaemon(root, '127.0.0.1:0');
    const job = {
      job: 'job@1', goal: 'note the disk', budget_class: 'attended',
      plan: [{ step: 'note', tool: 'read_file', args: { path: 'examples/data/df.txt' }, capability: 'extract@1', schema: 'tiny_note@1' }],
    };
    const r = await postJob(api, JSON.stringify(job));
    expect(r.status, r.body).toBe(202);
    const { id } = JSON.parse(r.body) as { id: string };
    await api.d.waitFor((l) => l.event === 'finished' && l.session === id, 60_000);
    let text = '';
    for (let i = 0; i < 40 && metric(text, 'pico_jobs_finished_total') === 0; i++) {
      text = (await call(api, 'GET', '/metrics')).body;
      await sleep(50);
    }
    expect(metric(text, 'pico_model_load_duration_seconds_count', { provider: 'tiny' })).toBe(1);
    expect(metric(text, 'pico_model_load_duration_seconds_sum', { provider: 'tiny' })).toBeGreaterThan(0);
    const load = api.d.lines.find((l) => l.event === 'model_loaded' && l.session === id);
    expect(load).toMatchObject({ provider: 'tiny', step: 'note' });
    // the model was called at least once (a retry with feedback is a second call)
    const calls = metric(text, 'pico_provider_call_duration_seconds_count', { capability: 'extract@1' });
    expect(calls).toBeGreaterThanOrEqual(1);
    api.d.child.kill('SIGTERM');
    expect(await api.d.exited).toBe(0);
  }, 120_000);
});
