/**
 * A scripted stand-in for a model server: an HTTP server on 127.0.0.1 that
 * speaks the OpenAI chat-completions protocol, answers each request with the
 * text a test's script gives it, and keeps the bodies it was sent. No
 * llama-server or Ollama can run on the build machines, so tests of the
 * `http` kind use this; the test's header says so.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatReply { text: string; delayMs?: number }

export interface ChatServer {
  /** the base URL a provider manifest names (`…/v1`) */
  endpoint: string;
  /** the parsed request bodies, in order */
  requests: { messages: { role: string; content: string }[] }[];
  close(): Promise<void>;
}

/** Start the server; `reply` is asked for each request's answer. */
export async function startChatServer(reply: (body: ChatServer['requests'][number]) => ChatReply): Promise<ChatServer> {
  const requests: ChatServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const doc = JSON.parse(body) as ChatServer['requests'][number];
      requests.push(doc);
      const next = reply(doc);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: next.text }, finish_reason: 'stop' }] }));
      }, next.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** An http provider manifest for plan@1 on that server (control-capable, the shipped `plan` prompt). */
export function plannerManifest(endpoint: string, id = 'scripted-planner'): Record<string, unknown> {
  return {
    manifest: 'provider@1', id, implements: ['plan@1'], schemas: ['plan@1'], kind: 'http', endpoint, model: 'scripted',
    max_input_bytes: 8192, resource: null, cost: null, security: { 'plan@1': { max_trust_in: 'T2', may_emit_control: true } },
    confidence_floor: null, escalates_to: [], sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 1, max_tokens: 256 },
    prompt: 'plan', limits: { timeout_ms: 10_000, max_output_bytes: 8192 },
  };
}

/** An http provider manifest for extract@1 → log_summary@2 on that server (a data provider, the shipped extract prompt); `over` replaces fields. */
export function extractorManifest(endpoint: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    manifest: 'provider@1', id: 'local', implements: ['extract@1'], schemas: ['log_summary@2'], kind: 'http', endpoint, model: 'scripted',
    max_input_bytes: 8192, resource: null, cost: null, security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: null, escalates_to: [], sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 1, max_tokens: 256 },
    prompt: 'extract-log-summary', limits: { timeout_ms: 5000, max_output_bytes: 8192 }, ...over,
  };
}
