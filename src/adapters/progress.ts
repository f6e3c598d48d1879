/**
 * Progress of provider calls, for a person watching a run.
 *
 * Why: a model call can take half a minute, and the ledger only hears of it
 * when it ends. `withProgress` wraps an adapter so that whoever runs a session
 * (`pico run`, the daemon's worker) hears when each call starts, how many
 * tokens it has generated so far, and when it ends. It sits outside the step:
 * the runtime's loop and the ledger never see it, so a run with progress on
 * writes exactly the ledger a run without it writes (replay stays
 * byte-identical). It does not render anything (src/progress/ does) and does
 * not throttle: the listener decides how often to show.
 */
import type { ProviderManifest } from '../registry/manifest.js';
import type { ProviderAdapter } from '../runtime/provider.js';

/** One report about a provider call in flight. */
export interface ProviderProgress {
  phase: 'started' | 'tokens' | 'ended';
  provider: string;
  kind: ProviderManifest['kind'];
  attempt: number;
  /** tokens generated so far; null when the provider cannot say (code, shell) or has not said yet */
  output_tokens: number | null;
  /** ms since this call started */
  ms: number;
}

export type ProgressListener = (p: ProviderProgress) => void;

/** The adapter with every invoke reported to `listen`; everything else is the adapter's own. */
export function withProgress<M extends ProviderManifest>(adapter: ProviderAdapter<M>, listen: ProgressListener): ProviderAdapter<M> {
  const wrapped = Object.create(adapter) as ProviderAdapter<M>;
  wrapped.invoke = async (manifest, request) => {
    const t0 = performance.now();
    let tokens: number | null = null;
    const tell = (phase: ProviderProgress['phase']): void => {
      // a listener's bug must not fail a provider call: progress is a courtesy, not part of the step
      try {
        listen({ phase, provider: manifest.id, kind: manifest.kind, attempt: request.attempt, output_tokens: tokens, ms: Math.round(performance.now() - t0) });
      } catch {
        // ignored on purpose (see above)
      }
    };
    tell('started');
    try {
      return await adapter.invoke(manifest, {
        ...request,
        onProgress: (p) => {
          tokens = p.output_tokens;
          request.onProgress?.(p);
          tell('tokens');
        },
      });
    } finally {
      tell('ended');
    }
  };
  return wrapped;
}
