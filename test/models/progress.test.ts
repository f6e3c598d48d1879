/**
 * Issue 15 item 7 with the real tiny model: "during a model call, tokens generated so far".
 * The gguf adapter's onProgress hears growing counts from node-llama-cpp's decode loop and
 * decodes the same bytes with or without it; under the real daemon the worker's side file
 * (sessions/<id>/progress.json, what `pico watch` reads) exists while the model call runs and is
 * gone when it ends. stories260K, one thread.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGgufAdapter } from '../../src/adapters/gguf.js';
import { picoAsync as pico, startDaemon } from '../daemon/spawn.js';
import { HAVE_MODELS, makeRoot, tinyManifest, tinyRequest } from './helpers.js';
import { modelRoot } from '../progress/model-root.js';

describe.skipIf(!HAVE_MODELS)('token progress from the gguf adapter', () => {
  const adapter = createGgufAdapter();
  afterAll(() => adapter.dispose!());

  it('onProgress hears a growing count of generated tokens, and the output is the same bytes without it', async () => {
    const root = makeRoot();
    const m = tinyManifest();
    const counts: number[] = [];
    const a = await adapter.invoke(m, { ...tinyRequest(root), onProgress: (p) => counts.push(p.output_tokens) });
    await adapter.release!(m);
    const b = await adapter.invoke(m, tinyRequest(root));
    await adapter.release!(m);
    expect(b).toEqual(a);
    expect(counts.length).toBeGreaterThan(3);
    for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThan(counts[i - 1]!);
    const usage = (a as { usage?: { output_tokens: number | null } }).usage!;
    expect(counts.at(-1)!).toBeLessThanOrEqual(usage.output_tokens!);
    expect(counts.at(-1)!).toBeGreaterThan(0);
  });
});

describe.skipIf(!HAVE_MODELS)('the progress side file under the real daemon', () => {
  it('exists while the model call runs, names the step and the model, and is gone when the session ends', async () => {
    const root = modelRoot();
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const job = join(root, 'tiny-job.json');
    writeFileSync(job, JSON.stringify({ job: 'job@1', goal: 'note the log', budget_class: 'attended', plan: [{ step: 'n', tool: 'read_file', args: { path: 'examples/data/syslog.txt' }, capability: 'extract@1', schema: 'tiny_note@1' }] }));
    const sub = await pico(['submit', job, '--root', root]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const dir = join(root, 'sessions', id);
    const seen: Record<string, unknown>[] = [];
    while (!existsSync(join(dir, 'result.json'))) {
      try {
        seen.push(JSON.parse(readFileSync(join(dir, 'progress.json'), 'utf8')) as Record<string, unknown>);
      } catch {
        // not there (yet, or any more)
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(seen.length, 'the side file was never seen during the call').toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ progress: 'progress@1', session: id, step: 'n', provider: 'tiny', kind: 'gguf', attempt: 1 });
    expect(existsSync(join(dir, 'progress.json'))).toBe(false);
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).not.toContain('progress');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
