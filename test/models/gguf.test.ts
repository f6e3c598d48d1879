/**
 * Issue 5, "Done when": a grammar-constrained extract@1 call yields JSON that
 * either passes the ladder or is refused with a classified error; the same
 * input and seed give byte-identical output twice; a sha256 mismatch is
 * refused; residency keeps or releases models as the manifest says.
 * Real model (stories260K), real node-llama-cpp, one thread.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGgufAdapter } from '../../src/adapters/gguf.js';
import { ProviderError } from '../../src/runtime/provider.js';
import { compileSchema, runLadder } from '../../src/ladder/index.js';
import {
  ggufManifest, HAVE_MODELS, LOG_SUMMARY, makeRoot, RANDOM, RANDOM_SHA, request, SAMPLE_LOG, STORIES_SHA, tinyManifest, tinyRequest,
} from './helpers.js';

describe.skipIf(!HAVE_MODELS)('gguf adapter on stories260K', () => {
  const root = makeRoot();
  const adapter = createGgufAdapter();
  afterAll(() => adapter.dispose!());

  it('a grammar-constrained extract@1 call with the shipped prompt passes the ladder or is refused with a classified error', async () => {
    const m = ggufManifest();
    const out = await adapter.invoke(m, request(root));
    await adapter.release!(m);
    expect(out.kind).toBe('text');
    const text = (out as { text: string }).text;
    expect(text.trimStart().startsWith('{"host":') || text.trimStart().startsWith('{ "host":')).toBe(true); // the grammar fixes the shape
    const verdict = runLadder({ text }, compileSchema(LOG_SUMMARY, 'log_summary@2'), { source: SAMPLE_LOG });
    if (verdict.ok) expect(Object.keys(verdict.value as object).sort()).toEqual(Object.keys(LOG_SUMMARY.properties as object).sort());
    else expect(['grammar', 'schema', 'range', 'crosscheck']).toContain(verdict.kind);
    if (!verdict.ok) expect(verdict.error).not.toBe('');
  });

  it('a short grammar-constrained answer is complete JSON with exactly the schema keys', async () => {
    const m = tinyManifest();
    const out = (await adapter.invoke(m, tinyRequest(root))) as { text: string };
    await adapter.release!(m);
    expect(Object.keys(JSON.parse(out.text) as object)).toEqual(['level', 'count', 'seen']);
  });

  it('the same input and seed give byte-identical output twice, cold and warm', async () => {
    const cold = tinyManifest();
    const a = await adapter.invoke(cold, tinyRequest(root));
    await adapter.release!(cold);
    const b = await adapter.invoke(cold, tinyRequest(root));
    await adapter.release!(cold);
    expect(b).toEqual(a);
    const warm = tinyManifest({ residency: 'warm' });
    const c = await adapter.invoke(warm, tinyRequest(root));
    const d = await adapter.invoke(warm, tinyRequest(root)); // same context, fresh sequence
    expect(c).toEqual(a);
    expect(d).toEqual(a);
    await adapter.dispose!();
  });

  it('a sha256 mismatch is refused before anything is loaded, naming both hashes and the fix', async () => {
    const fresh = createGgufAdapter();
    const bad = ggufManifest({ sha256: '0'.repeat(64) });
    const err = await fresh.invoke(bad, request(root)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).type).toBe('tool_failed');
    expect((err as Error).message).toContain('0'.repeat(64));
    expect((err as Error).message).toContain(STORIES_SHA);
    expect((err as Error).message).toContain('pico provision');
    expect(fresh.held()).toEqual({ models: 0, grammars: 0, llama: false });
  });

  it('cold is released after the step, warm stays until another model loads, pinned stays until dispose', async () => {
    const cold = tinyManifest({ id: 'cold' });
    await adapter.invoke(cold, tinyRequest(root));
    expect(adapter.held()).toMatchObject({ models: 1, grammars: 1 });
    await adapter.release!(cold);
    expect(adapter.held()).toMatchObject({ models: 0, grammars: 0 });

    const pinned = tinyManifest({ id: 'pinned', residency: 'pinned' });
    const warm = tinyManifest({ id: 'warm', residency: 'warm', file: RANDOM, sha256: RANDOM_SHA });
    await adapter.invoke(pinned, tinyRequest(root));
    await adapter.release!(pinned);
    await adapter.invoke(warm, tinyRequest(root));
    await adapter.release!(warm);
    expect(adapter.held().models).toBe(2);
    await adapter.invoke(cold, tinyRequest(root)); // loading a third model evicts warm, keeps pinned
    expect(adapter.held().models).toBe(2);
    await adapter.release!(cold);
    expect(adapter.held().models).toBe(1);
    await adapter.dispose!();
    expect(adapter.held()).toEqual({ models: 0, grammars: 0, llama: false });
  });

  it('identity pins the weights: id@sha256:<weights>', () => {
    expect(adapter.identity(ggufManifest())).toBe(`tiny@sha256:${STORIES_SHA}`);
  });

  it('a prompt for another schema is refused as a tool failure that says which prompt to point at', async () => {
    const err = await adapter.invoke(ggufManifest(), { ...request(root), schemaId: 'other_summary@1' }).catch((e: unknown) => e);
    expect((err as ProviderError).type).toBe('tool_failed');
    expect((err as Error).message).toMatch(/serves extract@1 → log_summary@2.*other_summary@1/);
  });

  it('a timeout from limits.timeout_ms is a tool_timeout, not a generic failure', async () => {
    const m = tinyManifest({ limits: { timeout_ms: 1, max_output_bytes: 8192 } });
    const err = await adapter.invoke(m, tinyRequest(root)).catch((e: unknown) => e);
    await adapter.release!(m);
    expect((err as ProviderError).type).toBe('tool_timeout');
  });
});
