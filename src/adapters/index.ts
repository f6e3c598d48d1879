/**
 * The adapter set: one adapter per provider kind, created and disposed together.
 *
 * Why: the runtime only ever asks "adapter for this manifest's kind", so adding
 * a kind is a line here, not a runtime change. `code` and `shell` are built at
 * once (they hold nothing). `gguf` and `http` are loaded lazily with a dynamic
 * `import()` on their first invoke, so node-llama-cpp (hundreds of MB of
 * native code) never loads on a box that only runs parsers.
 *
 * The identity written into facts must not depend on whether a model is
 * loaded yet, so it is computed here from the manifest: `id` for code and
 * shell, `id@sha256:<weights>` for gguf, `id@<model>` for http.
 *
 * `disposeAdapters` releases everything in reverse creation order and reports
 * every failure at once (AggregateError); after it, the set refuses use.
 * This module deliberately does not choose providers (the policy does).
 */
import type { ManifestOfKind, ProviderKind, ProviderManifest } from '../registry/manifest.js';
import { createCodeAdapter } from './code.js';
import { createShellAdapter } from './shell.js';
import type { ProviderAdapter, ProviderRequest, ProviderResponse } from '../runtime/provider.js';

export type Adapters = { [K in ProviderKind]: ProviderAdapter<ManifestOfKind<K>> };

type ModelKind = 'gguf' | 'http';
type Loader<K extends ModelKind> = () => Promise<ProviderAdapter<ManifestOfKind<K>>>;

/** An adapter that imports its real implementation on first use. */
function lazyAdapter<K extends ModelKind>(kind: K, load: Loader<K>, identity: (m: ManifestOfKind<K>) => string): ProviderAdapter<ManifestOfKind<K>> {
  let loading: Promise<ProviderAdapter<ManifestOfKind<K>>> | null = null;
  let disposed = false;

  // Load once; a failed load is not cached, so a later call can try again.
  const real = (): Promise<ProviderAdapter<ManifestOfKind<K>>> => {
    loading ??= load().catch((err: unknown) => {
      loading = null;
      throw new Error(`${kind} adapter: could not load src/adapters/${kind}.js (${(err as Error).message}); check the install`);
    });
    return loading;
  };

  return {
    kind: kind as ManifestOfKind<K>['kind'],
    isModel: true,
    identity,
    // Load the implementation on first use, then delegate.
    async invoke(manifest, request) {
      if (disposed) throw new Error(`${kind} adapter: invoked after dispose(); create the adapters again with createAdapters()`);
      return (await real()).invoke(manifest, request);
    },
    // The model's tokenizer, when the implementation has one (gguf does; an http server does not say).
    async tokenizer(manifest, root) {
      if (disposed) throw new Error(`${kind} adapter: used after dispose()`);
      const impl = await real();
      if (!impl.tokenizer) throw new Error(`${kind} adapter: no tokenizer`);
      return impl.tokenizer(manifest, root);
    },
    // Release one manifest's resources, only if the implementation was ever loaded.
    async release(manifest) {
      if (loading) await (await loading.catch(() => null))?.release?.(manifest);
    },
    // Dispose the implementation if it was ever loaded; refuse use afterwards.
    async dispose() {
      disposed = true;
      const loaded = loading ? await loading.catch(() => null) : null;
      await loaded?.dispose?.();
    },
  };
}

/** Create one adapter per provider kind; gguf and http load on first invoke. */
export function createAdapters(): Adapters {
  return {
    code: createCodeAdapter(),
    shell: createShellAdapter(),
    gguf: lazyAdapter('gguf', async () => (await import('./gguf.js')).createGgufAdapter(), (m) => `${m.id}@sha256:${m.sha256}`),
    http: lazyAdapter('http', async () => (await import('./http.js')).createHttpAdapter(), (m) => `${m.id}@${m.model}`),
  };
}

/** The adapter for a manifest's kind, typed for that manifest. */
export function adapterFor<M extends ProviderManifest>(adapters: Adapters, manifest: M): ProviderAdapter<M> {
  return adapters[manifest.kind] as unknown as ProviderAdapter<M>;
}

/** Invoke the provider a manifest describes through the adapter of its kind. */
export function invokeProvider(adapters: Adapters, manifest: ProviderManifest, request: ProviderRequest): Promise<ProviderResponse> {
  return adapterFor(adapters, manifest).invoke(manifest, request);
}

/** Release every adapter, last created first; all are tried, and all failures are reported together. */
export async function disposeAdapters(adapters: Adapters): Promise<void> {
  const order: ProviderKind[] = ['http', 'gguf', 'shell', 'code'];
  const errors: unknown[] = [];
  for (const kind of order) {
    try {
      await adapters[kind].dispose?.();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `disposeAdapters: ${errors.length} adapter(s) failed to release; see .errors`);
}
