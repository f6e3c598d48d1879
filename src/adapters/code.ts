/**
 * The `code` adapter: a provider that is a function in `providers/`.
 *
 * Why: deterministic code comes first (design P3), and it is the cheapest way
 * to satisfy a capability — no subprocess, no model. The manifest's `entry`
 * names a function registered in `providers/index.ts`; the adapter calls it
 * with exactly the recorded input and returns the value for the ladder to
 * validate. A throw is the provider's fault and becomes `tool_failed`; an
 * unknown entry is a manifest typo and says which entries exist.
 *
 * It deliberately does not validate the value (the ladder does) and does not
 * isolate the function: code providers are trusted project code, reviewed like
 * the runtime, and must stay pure (design P1).
 */
import { codeProviders } from '../../providers/index.js';
import type { CodeProvider } from '../../providers/types.js';
import type { ManifestOfKind } from '../registry/manifest.js';
import { ProviderError, type ProviderAdapter, type ProviderRequest, type ProviderResponse } from '../runtime/provider.js';

type CodeManifest = ManifestOfKind<'code'>;

/** The entries registered in providers/index.ts, sorted, for messages and `pico manifests check`. */
export function knownCodeEntries(registered: Record<string, CodeProvider> = codeProviders): string[] {
  return Object.keys(registered).sort();
}

/** The function a manifest names; throws a tool_failed naming the manifest and the known entries. */
export function codeEntry(manifest: CodeManifest, registered: Record<string, CodeProvider> = codeProviders): CodeProvider {
  const fn = Object.hasOwn(registered, manifest.entry) ? registered[manifest.entry] : undefined;
  if (typeof fn !== 'function') {
    throw new ProviderError('tool_failed', `provider ${manifest.id}: entry "${manifest.entry}" is not registered in providers/index.ts; `
      + `known entries: ${knownCodeEntries(registered).join(', ') || '(none)'} — fix "entry" in the manifest or register the function`);
  }
  return fn;
}

/** Build the code adapter over a table of providers (the shipped table unless a test passes its own). */
export function createCodeAdapter(registered: Record<string, CodeProvider> = codeProviders): ProviderAdapter<CodeManifest> {
  return {
    kind: 'code',
    isModel: false,
    identity: (manifest) => manifest.id,
    // Call the function with the recorded input; a throw is the provider's fault.
    async invoke(manifest: CodeManifest, request: ProviderRequest): Promise<ProviderResponse> {
      const fn = codeEntry(manifest, registered);
      const started = performance.now();
      try {
        const value: unknown = await fn({ text: request.input, capability: request.capability, schemaId: request.schemaId });
        return { kind: 'value', value };
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        throw new ProviderError('tool_failed', `provider ${manifest.id} (entry ${manifest.entry}) threw: ${msg}`,
          { durationMs: Math.round(performance.now() - started) });
      }
    },
  };
}
