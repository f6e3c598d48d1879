// Code and shell adapters, and the adapter set's lifecycle. Real subprocesses,
// real provider functions, no mocks.
import { afterEach, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import type { ProviderRequest } from '../../src/runtime/provider.js';
import { createCodeAdapter } from '../../src/adapters/code.js';
import { createShellAdapter } from '../../src/adapters/shell.js';
import { createAdapters, disposeAdapters, invokeProvider } from '../../src/adapters/index.js';
import { nodeLlamaCppImported } from '../../src/adapters/gguf-llama.js';
import { codeProviderSchema, ggufProviderSchema, shellProviderSchema, type ManifestOfKind } from '../../src/registry/manifest.js';
import { GONE_WITHIN_MS, killMarked, marker, survivorsAfter } from '../world/helpers.js';
import { providerError } from '../helpers/provider-error.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

const common = {
  manifest: 'provider@1', implements: ['extract@1'], max_input_bytes: 8192, resource: null, cost: null,
  security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } }, confidence_floor: null, escalates_to: [],
};

/** A shell provider manifest parsed by the real strict schema. */
function shell(id: string, command: string[], limits = { timeout_ms: 5000, max_output_bytes: 65536 }): ManifestOfKind<'shell'> {
  return shellProviderSchema.parse({ ...common, id, kind: 'shell', command, limits });
}

/** A code provider manifest parsed by the real strict schema. */
function code(id: string, entry: string): ManifestOfKind<'code'> {
  return codeProviderSchema.parse({ ...common, id, kind: 'code', entry });
}

/** A request as the runtime would make it, rooted at test/fixtures. */
function request(over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    capability: 'extract@1', schemaId: 'log_summary@2', schema: { type: 'object', required: ['total'] },
    input: 'Jan 1 00:00:01 host kernel: disk full\n', feedback: null, attempt: 1, root: FIXTURES,
    signal: new AbortController().signal, ...over,
  };
}

describe('shell adapter', () => {
  it('a provider that prints fenced JSON gets that text back untouched', async () => {
    const a = createShellAdapter();
    const r = await a.invoke(shell('fenced', ['scripts/echo-stdin.sh']), request());
    expect(r.kind).toBe('text');
    const sent = Buffer.byteLength(JSON.stringify({ input: request().input }), 'utf8');
    expect(r).toEqual({ kind: 'text', text: expect.stringMatching(/^Here is the result:\n```json\n\{"seen_bytes": \d+\}\n```\n$/) });
    const seen = Number(/"seen_bytes": (\d+)/.exec((r as { text: string }).text)![1]);
    expect(seen).toBeGreaterThan(sent);
  });

  it('stdin carries the input, capability, schema, schema id and feedback as one JSON document', async () => {
    const a = createShellAdapter();
    const req = request({ feedback: 'total: must be integer', input: 'line with "quotes" and ünïcödé\n' });
    const r = await a.invoke(shell('echo', ['scripts/stdin-json.sh']), req);
    expect(JSON.parse((r as { text: string }).text)).toEqual({
      input: req.input, capability: 'extract@1', schema: req.schema, schema_id: 'log_summary@2', feedback: 'total: must be integer',
    });
  });

  it('a bare command name is looked up on the world PATH, not against the root', async () => {
    const a = createShellAdapter();
    const r = await a.invoke(shell('cat', ['cat']), request());
    expect(JSON.parse((r as { text: string }).text).capability).toBe('extract@1');
  });

  it('a non-zero exit is tool_failed and carries stderr', async () => {
    const e = await providerError(createShellAdapter().invoke(shell('failing', ['scripts/fail.sh']), request()));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toMatch(/provider failing: .* exit code 3; stderr: fail.sh: the input was not what I expected/);
  });

  it('printing nothing is tool_empty', async () => {
    const e = await providerError(createShellAdapter().invoke(shell('quiet', ['scripts/silent.sh']), request()));
    expect(e.type).toBe('tool_empty');
  });

  it('a provider that hangs is stopped at its limit and is tool_timeout', async () => {
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const m = shell('stuck', ['scripts/hang.sh', mark], { timeout_ms: 300, max_output_bytes: 1000 });
    const e = await providerError(createShellAdapter().invoke(m, request()));
    expect(e.type).toBe('tool_timeout');
    expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
  });

  it('a provider that floods stdout is killed and is tool_failed', async () => {
    const m = shell('flood', ['scripts/flood.sh'], { timeout_ms: 10_000, max_output_bytes: 1000 });
    const e = await providerError(createShellAdapter().invoke(m, request()));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toMatch(/max_output_bytes = 1000/);
  });

  it('a missing executable is tool_failed, not a crash', async () => {
    const e = await providerError(createShellAdapter().invoke(shell('ghost', ['scripts/does-not-exist.sh']), request()));
    expect(e.type).toBe('tool_failed');
  });
});

describe('code adapter', () => {
  const table = {
    upper: ({ text }: { text: string }) => ({ text: text.toUpperCase() }),
    broken: () => { throw new Error('index out of range at line 3'); },
  };

  it('returns the function\'s value as a value response', async () => {
    const r = await createCodeAdapter(table).invoke(code('upper-p', 'upper'), request({ input: 'abc' }));
    expect(r).toEqual({ kind: 'value', value: { text: 'ABC' } });
  });

  it('a code provider\'s throw is tool_failed naming the provider and the error', async () => {
    const e = await providerError(createCodeAdapter(table).invoke(code('broken-p', 'broken'), request()));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toBe('provider broken-p (entry broken) threw: index out of range at line 3');
  });

  it('an unknown entry names the manifest and the known entries', async () => {
    const e = await providerError(createCodeAdapter(table).invoke(code('typo-p', 'uper'), request()));
    expect(e.message).toMatch(/provider typo-p: entry "uper" is not registered .* known entries: broken, upper/);
  });

  it('an inherited property name is not mistaken for an entry', async () => {
    const e = await providerError(createCodeAdapter(table).invoke(code('proto-p', 'toString'), request()));
    expect(e.message).toMatch(/entry "toString" is not registered/);
  });
});

describe('adapter set', () => {
  it('create → dispose with a call in flight leaves nothing running and never loads node-llama-cpp', async () => {
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const adapters = createAdapters();
    const m = shell('long', ['scripts/hang.sh', mark], { timeout_ms: 60_000, max_output_bytes: 1000 });
    const pending = invokeProvider(adapters, m, request());
    pending.catch(() => undefined);
    while ((await survivorsAfter(mark, 0)).length === 0) await new Promise((r) => setTimeout(r, 20));
    await disposeAdapters(adapters);
    await expect(pending).rejects.toThrow(/shell adapter disposed/);
    expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
    expect(nodeLlamaCppImported()).toBe(false);
    await expect(invokeProvider(adapters, m, request())).rejects.toThrow(/invoked after dispose/);
    await disposeAdapters(adapters);
  });

  it('the shipped code providers are wired: the log-summary entry answers a log_summary@2 request', async () => {
    const adapters = createAdapters();
    const r = await invokeProvider(adapters, code('log-summary-parser', 'log-summary'), request());
    expect(r.kind).toBe('value');
    expect(typeof (r as { value: unknown }).value).toBe('object');
    const e = await providerError(invokeProvider(adapters, code('log-summary-parser', 'log-summary'), request({ schemaId: 'disk_usage@1' })));
    expect(e.message).toMatch(/provider log-summary-parser \(entry log-summary\) threw: .*only produces log_summary@2/);
    await disposeAdapters(adapters);
  });

  it('a gguf identity is known from the manifest without loading the model runtime', () => {
    const adapters = createAdapters();
    const m = ggufProviderSchema.parse({
      ...common, id: 'tiny', kind: 'gguf', file: 'models/tiny.gguf', sha256: 'a'.repeat(64), prompt: 'prompts/x.md',
      sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 1, max_tokens: 64 }, limits: { timeout_ms: 1000, max_output_bytes: 1000 },
    });
    expect(adapters.gguf.identity(m)).toBe(`tiny@sha256:${'a'.repeat(64)}`);
    expect(adapters.gguf.isModel).toBe(true);
    expect(adapters.code.isModel).toBe(false);
    expect(nodeLlamaCppImported()).toBe(false);
  });
});
