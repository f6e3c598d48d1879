/**
 * The provider seam: one interface that every provider kind implements.
 *
 * The runtime never knows what kind of provider it calls; it hands an adapter
 * the exact input text (already bounded and recorded in the ledger) and gets
 * back either a value (code providers) or raw text (shell, gguf, http), which
 * then goes through the validation ladder. Adding a kind means adding an
 * adapter to `adapters/index.ts`, not changing the runtime.
 *
 * The core owns this seam (the step calls it); src/adapters/ fills it, one
 * adapter per kind, and src/root/ hands the adapters in when it opens a root.
 */
import type { ProviderManifest } from '../registry/manifest.js';

export interface ProviderRequest {
  capability: string;
  schemaId: string;
  /** the JSON Schema of the requested output */
  schema: Record<string, unknown>;
  /** exactly what the provider may see; the runtime rebuilt it from the ledger */
  input: string;
  /** the previous attempt's validation error, fed back on a retry; null on the first attempt */
  feedback: string | null;
  attempt: number;
  /** the root folder of this picoharness installation */
  root: string;
  signal: AbortSignal;
  /**
   * Messages already rendered by the caller (`pico eval` builds its own prompt variants); when set, the
   * model adapters send them instead of rendering the manifest's prompt envelope. The runtime never sets it.
   */
  messages?: { system: string; user: string };
  /** false: decode without a grammar / response_format (eval's unconstrained modes); default true */
  constrain?: boolean;
  /**
   * Told how far the call has got, for a person watching (`pico run`, `pico watch`): gguf after every
   * decoded token, http once when the answer arrives (it does not stream). Progress is not a fact: it is
   * never written to the ledger, and an adapter must decode exactly the same with or without it.
   */
  onProgress?: (p: CallProgress) => void;
}

/** How far a call in flight has got. */
export interface CallProgress {
  /** tokens generated so far (cumulative) */
  output_tokens: number;
}

/** What a model call used, when the provider can say (gguf counts tokens, http reads `usage`). */
export interface ProviderUsage {
  prompt_tokens: number;
  output_tokens: number | null;
}

export type ProviderResponse =
  | { kind: 'value'; value: unknown; confidence?: number }
  | { kind: 'text'; text: string; confidence?: number; usage?: ProviderUsage };

/** A provider fault that is not a validation failure; `type` is the ledger failure event to write. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly type: 'tool_failed' | 'tool_timeout' | 'tool_empty',
    message: string,
    /** `cause`: why the tool read nothing, in its manifest's plain words (src/tools/causes.ts) */
    readonly detail?: { exitCode?: number | null; stderr?: string; durationMs?: number; cause?: { id: string; plain: string } },
  ) {
    super(message);
  }
}

export interface ProviderAdapter<M extends ProviderManifest = ProviderManifest> {
  readonly kind: M['kind'];
  /** Whether a call counts as a model call for the budget. */
  readonly isModel: boolean;
  /** The identity written into facts: `id` for code/shell, `id@sha256:<weights>` for models. */
  identity(manifest: M): string;
  invoke(manifest: M, request: ProviderRequest): Promise<ProviderResponse>;
  /** The model's own tokenizer (a local model loads for it), so a prompt budget is counted in its tokens. */
  tokenizer?(manifest: M, root: string): Promise<{ tokenize(text: string): ArrayLike<unknown> }>;
  /** Release anything held for this manifest (a loaded model); idempotent. */
  release?(manifest: M): Promise<void>;
  /** Release everything; idempotent. */
  dispose?(): Promise<void>;
}
