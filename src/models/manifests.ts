/**
 * The model manifests of a root, read leniently: every provider manifest
 * under manifests/providers/ that names weights (`file` and `sha256`: the
 * gguf kind), with the weights' path resolved as the adapter resolves it
 * (relative paths against the root). A file that is not JSON is reported,
 * not fatal — `pico models` must work on the root someone is trying to fix;
 * `pico manifests check` is the strict reader. Read-only.
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { resolveWeightsPath } from '../adapters/gguf-weights.js';

export interface ModelManifest {
  id: string;
  /** the manifest file */
  manifest: string;
  kind: string;
  /** `file` as the manifest writes it */
  file: string;
  /** the weights' absolute path */
  path: string;
  sha256: string;
  threads: number | null;
  /** decode tokens/s as `pico probe` measured it on this machine (manifest `cost`) */
  decode_tokens_per_s: number | null;
}

/** The real path of a file, or its resolved path when it does not exist. */
export function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Every provider manifest that names weights, by id; plus the files that could not be read. */
export function readModelManifests(root: string): { models: ModelManifest[]; problems: string[]; other: Map<string, string> } {
  const dir = path.join(root, 'manifests', 'providers');
  const models: ModelManifest[] = [];
  const problems: string[] = [];
  /** provider ids that are not models, with their kind */
  const other = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      problems.push(`${file}: not readable JSON (${(e as Error).message}); \`pico manifests check\` says how to fix it`);
      continue;
    }
    const id = typeof doc.id === 'string' ? doc.id : name.slice(0, -'.json'.length);
    if (typeof doc.file !== 'string' || typeof doc.sha256 !== 'string') {
      other.set(id, typeof doc.kind === 'string' ? doc.kind : 'unknown');
      continue;
    }
    const cost = doc.cost as { decode_tokens_per_s?: unknown } | null | undefined;
    models.push({
      id, manifest: file, kind: typeof doc.kind === 'string' ? doc.kind : 'gguf', file: doc.file,
      path: resolveWeightsPath(root, doc.file), sha256: doc.sha256,
      threads: typeof doc.threads === 'number' ? doc.threads : null,
      decode_tokens_per_s: typeof cost?.decode_tokens_per_s === 'number' ? cost.decode_tokens_per_s : null,
    });
  }
  return { models, problems, other };
}
