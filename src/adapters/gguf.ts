/**
 * The `gguf` provider kind: a local GGUF model run in-process on the CPU.
 *
 * A call verifies the pinned weights (sha256), renders the prompt envelope
 * (system = instructions and field rules, user = the bounded T1 data section
 * and any retry feedback), applies the model's own chat template (the chat
 * wrapper node-llama-cpp resolves from the model — never a hand-written one),
 * and decodes under a grammar built from the requested JSON Schema. A seeded
 * sampler is greedy (temperature 0, top-k 1, fixed seed), so the same input
 * gives the same bytes. The output is returned as text: a grammar guarantees
 * form, not values, so the runtime still runs it through the ladder.
 *
 * Residency: a model loads on first use; `release()` disposes it after the
 * step unless the manifest says warm or pinned.
 *
 * `pico eval` may hand over messages it rendered itself and ask for an
 * unconstrained decode (`constrain: false`); the runtime never does. Every
 * answer reports the prompt and output tokens the sequence's meter counted. Loading another model first
 * evicts every loaded model that is not pinned (one model at a time, P5). A caller's
 * `onProgress` hears the count of tokens generated so far after every decoded token.
 * `dispose()` releases everything, the Llama backend included.
 */
import type { Llama, LlamaChatSession as ChatSession } from 'node-llama-cpp';
import type { ManifestOfKind, Sampler } from '../registry/manifest.js';
import { loadPrompt, PromptError } from '../prompts/envelope.js';
import { inputLimit } from '../prompts/bound.js';
import { renderPrompt } from '../prompts/render.js';
import { disposeEntry, grammarFor, loadEntry, type LoadedModel } from './gguf-entry.js';
import { importNodeLlamaCpp, openLlama } from './gguf-llama.js';
import { verifyWeights } from './gguf-weights.js';
import { reportModelLoad } from './model-loads.js';
import { ProviderError, type ProviderAdapter, type ProviderRequest, type ProviderResponse } from '../runtime/provider.js';

export type GgufManifest = ManifestOfKind<'gguf'>;

export interface GgufAdapter extends ProviderAdapter<GgufManifest> {
  /** What the adapter holds right now (for leak tests and status output). */
  held(): { models: number; grammars: number; llama: boolean };
}

/** The sampling options node-llama-cpp gets for a manifest's sampler. */
export function samplingOptions(s: Sampler): { temperature: number; topK: number; topP?: number; seed: number; maxTokens: number } {
  if (s.determinism === 'seeded') return { temperature: 0, topK: 1, seed: s.seed, maxTokens: s.max_tokens };
  return { temperature: s.temperature, topK: s.top_k, ...(s.top_p !== undefined ? { topP: s.top_p } : {}), seed: s.seed, maxTokens: s.max_tokens };
}

/** The key of a loaded model: everything that changes what gets loaded. */
function entryKey(m: GgufManifest, file: string): string {
  return [m.id, file, m.sha256, m.threads, m.context_size].join('\0');
}

/** Create a gguf adapter; node-llama-cpp is imported on the first call, not here. */
export function createGgufAdapter(): GgufAdapter {
  const entries = new Map<string, LoadedModel>();
  let llama: Promise<Llama> | null = null;
  let chain: Promise<unknown> = Promise.resolve();

  /** Run calls one at a time even if a caller overlaps them. */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };

  /** The backend, opened once per adapter. */
  const backend = (): Promise<Llama> => {
    llama ??= openLlama().catch((e: unknown) => {
      llama = null;
      throw new ProviderError('tool_failed', `gguf: ${(e as Error).message}`);
    });
    return llama;
  };

  /** Dispose and forget the entries selected by `pick`, reporting every failure. */
  const drop = async (pick: (e: LoadedModel) => boolean): Promise<void> => {
    const errors: unknown[] = [];
    for (const e of [...entries.values()].reverse()) {
      if (!pick(e)) continue;
      entries.delete(e.key);
      await disposeEntry(e).catch((err: unknown) => errors.push(err));
    }
    if (errors.length > 0) throw new AggregateError(errors, 'gguf: releasing models failed');
  };

  /** The loaded model for a manifest, loading it (and evicting others) when absent. */
  const acquire = async (m: GgufManifest, file: string): Promise<{ llama: Llama; entry: LoadedModel }> => {
    const key = entryKey(m, file);
    const l = await backend();
    const hit = entries.get(key);
    if (hit) return { llama: l, entry: hit };
    await drop((e) => e.residency !== 'pinned');
    try {
      const t0 = performance.now();
      const entry = await loadEntry(l, key, { file, threads: m.threads, contextSize: m.context_size, residency: m.residency });
      reportModelLoad({ provider: m.id, ms: performance.now() - t0 });
      entries.set(key, entry);
      return { llama: l, entry };
    } catch (e) {
      throw new ProviderError('tool_failed', `provider "${m.id}": cannot load ${file}: ${(e as Error).message}; check that it is a GGUF model this node-llama-cpp supports and that memory suffices`);
    }
  };

  /** One constrained chat completion. */
  const call = async (m: GgufManifest, req: ProviderRequest): Promise<ProviderResponse> => {
    const file = await verifyWeights(req.root, m);
    let rendered = req.messages;
    try {
      rendered ??= renderPrompt(await loadPrompt(req.root, m.prompt), {
        schema: req.schema, schemaId: req.schemaId, capability: req.capability, input: req.input,
        feedback: req.feedback, maxInputBytes: m.max_input_bytes, params: { input_limit_bytes: inputLimit(m.max_input_bytes) },
      });
    } catch (e) {
      if (e instanceof PromptError) throw new ProviderError('tool_failed', e.message);
      throw e;
    }
    const { llama: l, entry } = await acquire(m, file);
    const grammar = req.constrain === false ? undefined : await grammarFor(l, entry, req.schema);
    const { LlamaChatSession } = await importNodeLlamaCpp();
    const timeout = AbortSignal.timeout(m.limits.timeout_ms);
    const signal = AbortSignal.any([req.signal, timeout]);
    const started = Date.now();
    const sequence = entry.context.getSequence();
    let session: ChatSession | undefined;
    try {
      session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: rendered.system, chatWrapper: 'auto' });
      // progress counts the tokens node-llama-cpp hands back as it decodes; it does not change what is decoded
      const report = req.onProgress;
      let generated = 0;
      const onToken = report ? (tokens: readonly unknown[]) => {
        if (tokens.length > 0) report({ output_tokens: (generated += tokens.length) });
      } : undefined;
      const text = await session.prompt(rendered.user, { ...samplingOptions(m.sampler), ...(grammar ? { grammar } : {}), ...(onToken ? { onToken } : {}), signal });
      if (text.trim() === '') throw new ProviderError('tool_empty', `provider "${m.id}" produced no text`, { durationMs: Date.now() - started });
      if (Buffer.byteLength(text) > m.limits.max_output_bytes) {
        throw new ProviderError('tool_failed', `provider "${m.id}" produced ${Buffer.byteLength(text)} bytes, above limits.max_output_bytes ${m.limits.max_output_bytes}; lower sampler.max_tokens or raise the limit`);
      }
      const usage = { prompt_tokens: sequence.tokenMeter.usedInputTokens, output_tokens: sequence.tokenMeter.usedOutputTokens };
      return { kind: 'text', text, usage };
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      const durationMs = Date.now() - started;
      if (timeout.aborted) throw new ProviderError('tool_timeout', `provider "${m.id}" did not finish within limits.timeout_ms ${m.limits.timeout_ms}`, { durationMs });
      if (req.signal.aborted) throw e;
      throw new ProviderError('tool_failed', `provider "${m.id}" failed while generating: ${(e as Error).message} (context_size is ${m.context_size} tokens; raise it in the manifest when the prompt does not fit)`, { durationMs });
    } finally {
      session?.dispose({ disposeSequence: false });
      sequence.dispose();
    }
  };

  return {
    kind: 'gguf',
    isModel: true,
    identity: (m) => `${m.id}@sha256:${m.sha256}`,
    invoke: (m, req) => serial(() => call(m, req)),
    tokenizer: (m, root) => serial(async () => {
      const file = await verifyWeights(root, m);
      const { entry } = await acquire(m, file);
      return { tokenize: (text: string) => entry.model.tokenize(text) };
    }),
    release: (m) => serial(() => drop((e) => e.key.startsWith(`${m.id}\0`) && e.residency === 'cold')),
    dispose: () =>
      serial(async () => {
        const errors: unknown[] = [];
        await drop(() => true).catch((e: unknown) => errors.push(e));
        const l = llama;
        llama = null;
        if (l) await (await l.catch(() => null))?.dispose().catch((e: unknown) => errors.push(e));
        if (errors.length > 0) throw new AggregateError(errors, 'gguf: dispose failed');
      }),
    held: () => ({
      models: entries.size,
      grammars: [...entries.values()].reduce((n, e) => n + e.grammars.size, 0),
      llama: llama !== null,
    }),
  };
}
