/**
 * The `shell` adapter: a provider that is an executable, run in the world.
 *
 * Why: a parser in any language (awk, Python, a compiled binary) can serve a
 * capability without touching the runtime — a manifest alone adds it. The
 * executable gets one JSON document on stdin and answers on stdout:
 *
 *   stdin  {"input": <the recorded input text>, "capability": "extract@1",
 *           "schema": <the output JSON Schema>, "schema_id": "log_summary@2",
 *           "feedback": <the previous validation error or null>,
 *           "messages": {"system", "user"} — only when `pico eval` rendered the prompt}
 *   stdout the answer as text (JSON, possibly in prose or fences — the ladder
 *          repairs and validates it; this adapter returns it untouched)
 *
 * It runs through `runInWorld` with the manifest's limits, in a scratch
 * directory of its own that is removed afterwards (a provider keeps nothing
 * between calls, design P1). `command[0]` containing a "/" is resolved against
 * the root when relative; a bare name is looked up on the world's fixed PATH.
 * Non-zero exit or flood → `tool_failed`, limit → `tool_timeout`, nothing
 * printed → `tool_empty`, each with capped stderr in the message. `dispose()`
 * stops every call still running and waits for it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ManifestOfKind } from '../registry/manifest.js';
import { abortReason, stderrExcerpt } from '../world/shapes.js';
import { argvFiles } from '../world/readable.js';
import { runInWorld } from '../world/run.js';
import { ProviderError, type ProviderAdapter, type ProviderRequest, type ProviderResponse } from '../runtime/provider.js';

type ShellManifest = ManifestOfKind<'shell'>;

/** The argv of a shell provider with its executable resolved against the root. */
export function shellArgv(manifest: ShellManifest, root: string): string[] {
  const [first, ...rest] = manifest.command;
  const exe = first!.includes('/') && !isAbsolute(first!) ? resolve(root, first!) : first!;
  return [exe, ...rest];
}

/** The one JSON document a shell provider reads on stdin. */
export function shellStdin(request: ProviderRequest): string {
  return JSON.stringify({
    input: request.input, capability: request.capability, schema: request.schema,
    schema_id: request.schemaId, feedback: request.feedback,
    ...(request.messages ? { messages: request.messages } : {}),
  });
}

/** Build a shell adapter; its dispose() stops every call in flight. */
export function createShellAdapter(): ProviderAdapter<ShellManifest> & { dispose(): Promise<void> } {
  const inflight = new Map<AbortController, Promise<unknown>>();
  let disposed = false;

  // One call: a scratch dir, the world run, the fault mapping, the cleanup.
  async function call(manifest: ShellManifest, request: ProviderRequest, stop: AbortController): Promise<ProviderResponse> {
    const scratch = await mkdtemp(join(tmpdir(), 'pico-shell-'));
    try {
      const argv = shellArgv(manifest, request.root);
      const r = await runInWorld({
        argv, readable: argvFiles(argv, request.root), ...(manifest.requires_isolation ? { requires: manifest.requires_isolation } : {}), stdin: shellStdin(request), cwd: scratch,
        timeoutMs: manifest.limits.timeout_ms, maxOutputBytes: manifest.limits.max_output_bytes, signal: stop.signal,
      });
      const detail = { exitCode: r.exitCode, stderr: stderrExcerpt(r.stderr), durationMs: r.durationMs };
      const tail = detail.stderr ? `; stderr: ${detail.stderr}` : '';
      if (r.canceled) throw request.signal.aborted ? abortReason(request.signal) : abortReason(stop.signal);
      if (r.timedOut) {
        throw new ProviderError('tool_timeout', `provider ${manifest.id}: stopped after limits.timeout_ms = ${manifest.limits.timeout_ms} ms${tail}`, detail);
      }
      if (r.truncated) {
        throw new ProviderError('tool_failed', `provider ${manifest.id}: stdout exceeded limits.max_output_bytes = ${manifest.limits.max_output_bytes}; the provider must print one answer${tail}`, detail);
      }
      if (r.exitCode !== 0) {
        const why = r.exitCode === null ? (r.cause ?? `killed by ${r.signal}`) : `exit code ${r.exitCode}`;
        throw new ProviderError('tool_failed', `provider ${manifest.id}: ${r.command} failed with ${why}${tail}`, detail);
      }
      if (r.stdout.trim() === '') {
        throw new ProviderError('tool_empty', `provider ${manifest.id}: printed nothing on stdout; it must print its answer${tail}`, detail);
      }
      return { kind: 'text', text: r.stdout };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  return {
    kind: 'shell',
    isModel: false,
    identity: (manifest) => manifest.id,
    // Run the executable with the request on stdin; stoppable by the caller or by dispose().
    async invoke(manifest: ShellManifest, request: ProviderRequest): Promise<ProviderResponse> {
      if (disposed) throw new Error(`shell adapter: invoked after dispose(); create the adapters again with createAdapters()`);
      const stop = new AbortController();
      const relay = (): void => stop.abort(request.signal.reason);
      if (request.signal.aborted) relay();
      else request.signal.addEventListener('abort', relay, { once: true });
      const running = call(manifest, request, stop);
      inflight.set(stop, running.catch(() => undefined));
      try {
        return await running;
      } finally {
        inflight.delete(stop);
        request.signal.removeEventListener('abort', relay);
      }
    },
    // Stop every call in flight and wait until each has ended; idempotent.
    async dispose(): Promise<void> {
      disposed = true;
      for (const stop of inflight.keys()) stop.abort(new Error('shell adapter disposed'));
      await Promise.all(inflight.values());
    },
  };
}
