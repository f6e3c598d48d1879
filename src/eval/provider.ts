/**
 * The live seam of `pico eval`: one provider, reached through the adapters
 * exactly as the runtime reaches it, with one adapter set (so one model load)
 * for the whole run.
 *
 * Only text providers can be compared (`gguf`, `http`, `shell`); `grammar`
 * needs a provider that decodes under a grammar (`gguf`, or an `http`
 * server honouring `response_format`), so a shell provider does not offer
 * it. A ProviderError on a call is that call's fault (its message kept); on
 * the run's first call it means the provider cannot run, and the run stops.
 */
import { createAdapters, disposeAdapters, invokeProvider, type Adapters } from '../adapters/index.js';
import { ProviderError } from '../runtime/provider.js';
import type { ProviderManifest } from '../registry/manifest.js';
import type { EvalCase } from './cases.js';
import type { Mode } from './modes.js';
import { ProviderUnavailable, type Caller, type CallOutcome } from './run.js';

/** Why a provider cannot be evaluated at all, or null. */
export function unsupported(p: ProviderManifest): string | null {
  return p.kind === 'code' ? `provider "${p.id}" is a code provider: it returns values, not text, so there is no harness to compare; evaluate a gguf, http or shell provider` : null;
}

/** The modes a provider can run. */
export function modesFor(p: ProviderManifest): Mode[] {
  return p.kind === 'shell' ? ['raw', 'extract', 'ladder', 'retry'] : ['raw', 'extract', 'ladder', 'retry', 'grammar'];
}

/** The identity written into the record: the same string facts carry. */
export function identityOf(adapters: Adapters, p: ProviderManifest): string {
  return (adapters[p.kind] as { identity(m: ProviderManifest): string }).identity(p);
}

export interface LiveSeam {
  call: Caller;
  identity: string;
  close(): Promise<void>;
}

/** Open the live seam for one provider. */
export function openProvider(p: ProviderManifest, root: string): LiveSeam {
  const adapters = createAdapters();
  let calls = 0;
  const call: Caller = async (c: EvalCase, purpose, messages, constrained, feedback): Promise<CallOutcome> => {
    const first = calls++ === 0;
    const started = performance.now();
    try {
      const r = await invokeProvider(adapters, p, {
        capability: c.capability, schemaId: c.schemaId, schema: c.schema, input: c.input ?? c.query ?? '',
        feedback, attempt: purpose.startsWith('retry-') ? Number(purpose.slice(6)) : 0, root,
        signal: new AbortController().signal, messages, constrain: constrained,
      });
      const ms = Math.round(performance.now() - started);
      const text = r.kind === 'text' ? r.text : JSON.stringify(r.value);
      return { text, error: null, ms, prompt_tokens: r.kind === 'text' ? (r.usage?.prompt_tokens ?? null) : null };
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      if (first && e.type === 'tool_failed') throw new ProviderUnavailable(e.message);
      return { text: null, error: `${e.type}: ${e.message}`, ms: Math.round(performance.now() - started), prompt_tokens: null };
    }
  };
  return { call, identity: identityOf(adapters, p), close: () => disposeAdapters(adapters) };
}
