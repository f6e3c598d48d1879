/**
 * Weights pinning: a gguf manifest names its file and the file's sha256, and
 * nothing is loaded until the bytes on disk match (design P6).
 *
 * Hashing a 1 GB model takes seconds on a Pi, so a hash is cached per
 * (real path, size, mtime): a file replaced in place gets a new mtime or size
 * and is hashed again. This module reads files and hashes them; it never
 * loads a model, and it never imports node-llama-cpp.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ProviderError } from '../runtime/provider.js';

const cache = new Map<string, { size: number; mtimeMs: number; sha256: string }>();

/** The weights path: absolute as written, otherwise relative to the root. */
export function resolveWeightsPath(root: string, file: string): string {
  return path.isAbsolute(file) ? file : path.resolve(root, file);
}

/** sha256 of a file's bytes, streamed. */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** sha256 of a file, cached while its real path, size and mtime stay the same. */
export async function cachedSha256(file: string): Promise<string> {
  const real = await realpath(file);
  const st = await stat(real);
  const hit = cache.get(real);
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit.sha256;
  const sha256 = await sha256File(real);
  cache.set(real, { size: st.size, mtimeMs: st.mtimeMs, sha256 });
  return sha256;
}

/** Check a manifest's weights before loading; returns the resolved path or throws ProviderError('tool_failed'). */
export async function verifyWeights(root: string, m: { id: string; file: string; sha256: string }): Promise<string> {
  const file = resolveWeightsPath(root, m.file);
  let actual: string;
  try {
    actual = await cachedSha256(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new ProviderError(
      'tool_failed',
      `provider manifest "${m.id}": weights file ${file} cannot be read (${code}); fix "file" in manifests/providers/${m.id}.json or provision the model again`,
    );
  }
  if (actual !== m.sha256) {
    throw new ProviderError(
      'tool_failed',
      `provider manifest "${m.id}": weights ${file} have sha256 ${actual} but the manifest pins ${m.sha256}; the file changed or the manifest is wrong — run \`pico provision ${file} --id ${m.id}\` again if you trust this file, or restore the original weights`,
    );
  }
  return file;
}

/** True when a file starts with the GGUF magic bytes ("GGUF"). */
export async function hasGgufMagic(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.toString('latin1') === 'GGUF';
  } finally {
    await fh.close();
  }
}
