/**
 * The `http` kind against a real HTTP server on 127.0.0.1. No llama-server or
 * Ollama can run on the build machines (no network, no GPU, no binary), so
 * this file starts a small server of its own that speaks the OpenAI
 * chat-completions protocol and records what it was sent; each test sets how
 * it answers. Real sockets, real fetch, no mocks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAdapter } from '../../src/adapters/http.js';
import { assertLoopback, isLoopbackUrl } from '../../src/adapters/http-loopback.js';
import { ProviderError } from '../../src/runtime/provider.js';
import { httpProviderSchema } from '../../src/registry/manifest.js';
import { makeRoot, request, SAMPLE_LOG } from './helpers.js';

type Reply = (res: import('node:http').ServerResponse) => void;
let reply: Reply = () => undefined;
const seen: Array<Record<string, unknown>> = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url, method: req.method, body: JSON.parse(body) as unknown });
      reply(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const json = (status: number, doc: unknown): Reply => (res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof doc === 'string' ? doc : JSON.stringify(doc));
};
const completion = (content: unknown) => ({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

function manifest(over: Record<string, unknown> = {}) {
  return httpProviderSchema.parse({
    manifest: 'provider@1', id: 'local', implements: ['extract@1'], kind: 'http', endpoint: base, model: 'qwen2.5-0.5b',
    max_input_bytes: 4096, resource: null, cost: null, security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: null, escalates_to: [], sampler: { determinism: 'seeded', temperature: 0.7, top_k: 40, seed: 11, max_tokens: 256 },
    prompt: 'extract-log-summary', limits: { timeout_ms: 2000, max_output_bytes: 8192 }, ...over,
  });
}

describe('http adapter against a local OpenAI-compatible server', () => {
  const root = makeRoot();
  const adapter = createHttpAdapter();

  it('posts chat/completions with a strict json_schema response_format and a greedy seeded sampler, and returns the text', async () => {
    reply = json(200, completion('{"host":"web01"}'));
    seen.length = 0;
    const out = await adapter.invoke(manifest(), request(root, SAMPLE_LOG, 'error_count: expected integer'));
    expect(out).toEqual({ kind: 'text', text: '{"host":"web01"}' });
    const sent = seen[0]!;
    expect(sent.url).toBe('/v1/chat/completions');
    const body = sent.body as Record<string, any>;
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'log_summary_2', strict: true } });
    expect(body.response_format.json_schema.schema.$id).toBe('log_summary@2');
    expect(body).toMatchObject({ model: 'qwen2.5-0.5b', temperature: 0, top_k: 1, seed: 11, max_tokens: 256 });
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[1].content).toContain(SAMPLE_LOG);
    expect(body.messages[1].content).toContain('error_count: expected integer'); // retry feedback reaches the model
    expect(body.messages[0].content).not.toContain(SAMPLE_LOG); // T1 data never enters the instructions
  });

  it('a non-loopback endpoint is refused before any request', async () => {
    seen.length = 0;
    const err = await adapter.invoke(manifest({ endpoint: 'http://10.0.0.5:8080/v1' }), request(root)).catch((e: unknown) => e);
    expect((err as ProviderError).type).toBe('tool_failed');
    expect((err as Error).message).toContain('not on loopback');
    expect(seen).toHaveLength(0);
    expect(() => assertLoopback({ id: 'x', endpoint: 'http://example.com/v1' })).toThrow(/P9/);
    expect(['http://localhost:1/v1', 'http://127.0.0.2:1', 'http://[::1]:8080/v1'].every(isLoopbackUrl)).toBe(true);
    expect(['http://127.0.0.1.example.com/v1', 'http://0.0.0.0:1', 'not a url'].some(isLoopbackUrl)).toBe(false);
  });

  it('a server that is down is a tool_failed that says to start it', async () => {
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const port = (down.address() as AddressInfo).port;
    await new Promise<void>((r) => down.close(() => r()));
    const err = await adapter.invoke(manifest({ endpoint: `http://127.0.0.1:${port}/v1` }), request(root)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).type).toBe('tool_failed');
    expect((err as Error).message).toMatch(/ECONNREFUSED.*is the server running/);
  });

  it('a server slower than limits.timeout_ms is a tool_timeout', async () => {
    reply = (res) => setTimeout(() => json(200, completion('{}'))(res), 1000);
    const err = await adapter.invoke(manifest({ limits: { timeout_ms: 100, max_output_bytes: 8192 } }), request(root)).catch((e: unknown) => e);
    expect((err as ProviderError).type).toBe('tool_timeout');
  });

  it('bad answers are classified: non-200, non-JSON, no choices, empty content', async () => {
    const cases: Array<[Reply, string, RegExp]> = [
      [json(500, 'model not loaded'), 'tool_failed', /HTTP 500: model not loaded/],
      [json(200, '<html>hi</html>'), 'tool_failed', /non-JSON/],
      [json(200, { choices: [] }), 'tool_failed', /without "choices"/],
      [json(200, completion(null)), 'tool_failed', /content is object/],
      [json(200, completion('  ')), 'tool_empty', /empty content/],
    ];
    for (const [r, type, message] of cases) {
      reply = r;
      const err = await adapter.invoke(manifest(), request(root)).catch((e: unknown) => e);
      expect((err as ProviderError).type).toBe(type);
      expect((err as Error).message).toMatch(message);
    }
  });
});
