/**
 * The `http` provider kind: an OpenAI-compatible chat-completions server on
 * loopback (llama-server, Ollama), asked for JSON that fits the requested
 * schema through `response_format: json_schema` (strict).
 *
 * The messages are the same rendered prompt envelope the gguf kind uses; the
 * server applies the model's chat template. Temperature, top-k and seed come
 * from the manifest's sampler (a seeded sampler is greedy), the timeout from
 * `limits.timeout_ms`. Every way the server can fail — down, slow, non-200,
 * non-JSON, no choices, empty content — is a ProviderError whose type is the
 * ledger failure event. The output is returned as text for the ladder; the
 * server's own schema enforcement is not trusted to replace it. The call does
 * not stream, so a caller's `onProgress` hears one count, when the answer arrives.
 */
import type { ManifestOfKind } from '../registry/manifest.js';
import { inputLimit } from '../prompts/bound.js';
import { loadPrompt, PromptError } from '../prompts/envelope.js';
import { renderPrompt } from '../prompts/render.js';
import { samplingOptions } from './gguf.js';
import { assertLoopback } from './http-loopback.js';
import { ProviderError, type ProviderAdapter, type ProviderRequest, type ProviderResponse, type ProviderUsage } from '../runtime/provider.js';

export type HttpManifest = ManifestOfKind<'http'>;

/** The request body for one chat completion. */
export function chatBody(m: HttpManifest, req: Pick<ProviderRequest, 'schemaId' | 'schema' | 'constrain'>, system: string, user: string): Record<string, unknown> {
  const s = samplingOptions(m.sampler);
  return {
    model: m.model,
    messages: [{ role: 'system', content: system }, { role: 'user', content: user }],
    temperature: s.temperature,
    top_k: s.topK,
    ...(s.topP !== undefined ? { top_p: s.topP } : {}),
    seed: s.seed,
    max_tokens: s.maxTokens,
    stream: false,
    ...(req.constrain === false ? {} : { response_format: { type: 'json_schema', json_schema: { name: req.schemaId.replace(/[^A-Za-z0-9_-]/g, '_'), schema: req.schema, strict: true } } }),
  };
}

/** The server's `usage` block, when it sent a well-formed one. */
function usageOf(raw: string): ProviderUsage | undefined {
  const u = (JSON.parse(raw) as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
  if (typeof u?.prompt_tokens !== 'number') return undefined;
  return { prompt_tokens: u.prompt_tokens, output_tokens: typeof u.completion_tokens === 'number' ? u.completion_tokens : null };
}

/** The assistant text out of a chat-completions answer, or a ProviderError saying what was wrong. */
function contentOf(m: HttpManifest, raw: string, durationMs: number): string {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    throw new ProviderError('tool_failed', `provider "${m.id}": ${m.endpoint} answered with non-JSON (${JSON.stringify(raw.slice(0, 120))}); is it an OpenAI-compatible server?`, { durationMs });
  }
  const choices = (doc as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new ProviderError('tool_failed', `provider "${m.id}": ${m.endpoint} answered without "choices"; expected an OpenAI chat-completions response`, { durationMs });
  }
  const content = (choices[0] as { message?: { content?: unknown } }).message?.content;
  if (typeof content !== 'string') {
    throw new ProviderError('tool_failed', `provider "${m.id}": choices[0].message.content is ${content === undefined ? 'missing' : typeof content}, expected a string`, { durationMs });
  }
  if (content.trim() === '') throw new ProviderError('tool_empty', `provider "${m.id}": the server returned empty content`, { durationMs });
  return content;
}

/** Create the http adapter; it holds nothing between calls. */
export function createHttpAdapter(): ProviderAdapter<HttpManifest> {
  /** One chat completion against the manifest's endpoint. */
  const call = async (m: HttpManifest, req: ProviderRequest): Promise<ProviderResponse> => {
    try {
      assertLoopback(m);
    } catch (e) {
      throw new ProviderError('tool_failed', (e as Error).message);
    }
    let rendered = req.messages;
    try {
      rendered ??= renderPrompt(await loadPrompt(req.root, m.prompt), {
        schema: req.schema, schemaId: req.schemaId, capability: req.capability, input: req.input, feedback: req.feedback,
        maxInputBytes: m.max_input_bytes, params: { input_limit_bytes: inputLimit(m.max_input_bytes) },
      });
    } catch (e) {
      if (e instanceof PromptError) throw new ProviderError('tool_failed', e.message);
      throw e;
    }
    const url = `${m.endpoint.replace(/\/+$/, '')}/chat/completions`;
    const timeout = AbortSignal.timeout(m.limits.timeout_ms);
    const started = Date.now();
    let status: number;
    let raw: string;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody(m, req, rendered.system, rendered.user)),
        signal: AbortSignal.any([req.signal, timeout]),
      });
      status = res.status;
      raw = await res.text();
    } catch (e) {
      const durationMs = Date.now() - started;
      if (timeout.aborted) throw new ProviderError('tool_timeout', `provider "${m.id}": ${url} did not answer within limits.timeout_ms ${m.limits.timeout_ms}`, { durationMs });
      if (req.signal.aborted) throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ProviderError(
        'tool_failed',
        `provider "${m.id}": cannot reach ${url} (${cause?.code ?? cause?.message ?? (e as Error).message}); is the server running? start it or remove the manifest`,
        { durationMs },
      );
    }
    const durationMs = Date.now() - started;
    if (status !== 200) {
      throw new ProviderError('tool_failed', `provider "${m.id}": ${url} answered HTTP ${status}: ${raw.slice(0, 200)}`, { durationMs });
    }
    const text = contentOf(m, raw, durationMs);
    if (Buffer.byteLength(text) > m.limits.max_output_bytes) {
      throw new ProviderError('tool_failed', `provider "${m.id}": ${Buffer.byteLength(text)} bytes of output, above limits.max_output_bytes ${m.limits.max_output_bytes}`, { durationMs });
    }
    const usage = usageOf(raw);
    // the request does not stream (stream: false), so the only count there is arrives with the answer
    if (usage?.output_tokens != null) req.onProgress?.({ output_tokens: usage.output_tokens });
    return { kind: 'text', text, ...(usage ? { usage } : {}) };
  };

  return {
    kind: 'http',
    isModel: true,
    identity: (m) => `${m.id}@${m.model}`,
    invoke: call,
    release: async () => undefined,
    dispose: async () => undefined,
  };
}
