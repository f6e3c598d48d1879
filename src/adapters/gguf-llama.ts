/**
 * The one door to node-llama-cpp.
 *
 * node-llama-cpp (and its native binary) costs ~100 MB of RSS and ~0.7 s to
 * load, and the daemon's idle goal is ≤ 60 MB, so it is imported here with a
 * dynamic `import()` only when a gguf provider is actually called; every other
 * file uses `import type`, which the compiler erases. The backend is always
 * CPU (`gpu: false`) from the prebuilt binary (`build: 'never'`): a missing
 * binary is a clear install error, never a 7-minute source build at run time.
 * This module does not cache a Llama: the adapter owns that and disposes it.
 */
import type { Llama } from 'node-llama-cpp';
import { importPackage } from '../base/bundle-hooks.js';

export type NodeLlamaCpp = typeof import('node-llama-cpp');

let mod: Promise<NodeLlamaCpp> | null = null;

/** Import node-llama-cpp once per process, on first need. */
export function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  mod ??= importPackage<NodeLlamaCpp>('node-llama-cpp').catch((e: unknown) => {
    mod = null;
    throw new Error(
      `cannot load node-llama-cpp (${(e as Error).message}); run \`npm ci\` in the picoharness folder — the prebuilt @node-llama-cpp/<platform> package must be installed`,
    );
  });
  return mod;
}

/** Open a CPU-only Llama backend from the prebuilt binary, quietly. */
export async function openLlama(): Promise<Llama> {
  const m = await importNodeLlamaCpp();
  return m.getLlama({
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: m.LlamaLogLevel.error,
  });
}

/** Has node-llama-cpp been imported in this process (for idle-memory tests)? */
export function nodeLlamaCppImported(): boolean {
  return mod !== null;
}
