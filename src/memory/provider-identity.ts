/**
 * A provider's identity for measurement: its id plus the digest of
 * everything that decides how it behaves — its manifest as the composition
 * resolved it, the digest of its program (a shell provider's executable, a
 * code provider's modules), and the digest of its prompt.
 *
 * Measurements (durations, pass rates) belong to one identity: a provider
 * that was fixed — a new script, a raised timeout, another prompt or weights
 * file — is another identity and starts fresh, instead of carrying the
 * timeouts of the broken one for ever. The digests are computed from the
 * composition document, which is written beside every ledger, so ingest and
 * `memory rebuild` attach the same identity to the same call. This module
 * computes digests only; it reads no file and decides nothing.
 */
import type { Composition } from '../ledger/composition.js';
import { digestOf } from '../ledger/canonical.js';

/** provider id -> identity digest (`sha256:…`) for every provider of a composition. */
export function providerDigests(c: Pick<Composition, 'providers' | 'provider_code' | 'prompts'>): Record<string, string> {
  const out: Record<string, string> = {};
  const code = c.provider_code ?? {};
  for (const [id, raw] of Object.entries(c.providers ?? {})) {
    const m = (raw ?? {}) as { kind?: unknown; entry?: unknown; prompt?: unknown };
    const program: Record<string, string> = {};
    if (m.kind === 'shell') {
      for (const k of Object.keys(code).sort()) if (k === `shell:${id}` || k.startsWith(`shell:${id}:`)) program[k] = code[k]!;
    }
    if (m.kind === 'code' && typeof m.entry === 'string') {
      // the entry's own folder (or file), the shared helpers, and the table that maps entries to modules
      const mine = (k: string) => k === `code:${m.entry}` || k.startsWith(`code:${m.entry}/`) || k.startsWith('code:lib/') || k === 'code:index' || k === 'code:types';
      for (const k of Object.keys(code).sort()) if (mine(k)) program[k] = code[k]!;
    }
    const prompt = typeof m.prompt === 'string' ? (c.prompts?.[m.prompt] ?? null) : null;
    out[id] = digestOf({ manifest: raw, program, prompt });
  }
  return out;
}

/**
 * The manifest id a recorded provider identity belongs to: `tiny@sha256:…` and `tiny@model`
 * belong to `tiny` (models write their weights or model name after an `@`), `tiny` to itself.
 */
export function manifestIdOf(recorded: string, ids: Iterable<string>): string | null {
  let best: string | null = null;
  for (const id of ids) {
    if (recorded === id) return id;
    if (recorded.startsWith(`${id}@`) && (best === null || id.length > best.length)) best = id;
  }
  return best;
}
