/**
 * The cost a provider manifest declares — the fallback of the cost model.
 *
 * Read as plain JSON (`id` and `cost.p50_ms / p90_ms`), not through the
 * registry: memory needs two numbers, and must keep working when another
 * field of a manifest is invalid (the registry reports that, loudly). A file
 * that is not readable JSON is reported in `problems`, not thrown.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DeclaredCost {
  p50_ms: number;
  p90_ms: number;
}

export interface ManifestCosts {
  /** provider id -> declared cost, or null when the manifest has `cost: null` (not yet probed) */
  costs: Map<string, DeclaredCost | null>;
  /** provider id -> its `kind` (gguf, http, shell, code), when the manifest names one: what to advise depends on it */
  kinds: Map<string, string>;
  problems: string[];
}

const isCost = (v: unknown): v is DeclaredCost => {
  const c = v as Partial<DeclaredCost> | null;
  return typeof c === 'object' && c !== null && typeof c.p50_ms === 'number' && typeof c.p90_ms === 'number';
};

/** Declared costs of every provider manifest in `dir` (missing dir: none). */
export function readManifestCosts(dir: string): ManifestCosts {
  const out: ManifestCosts = { costs: new Map(), kinds: new Map(), problems: [] };
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  for (const f of files) {
    const path = join(dir, f);
    let doc: { id?: unknown; cost?: unknown; kind?: unknown };
    try {
      doc = JSON.parse(readFileSync(path, 'utf8')) as typeof doc;
    } catch (e) {
      out.problems.push(`${path}: not readable JSON (${(e as Error).message}); fix the file or remove it`);
      continue;
    }
    if (typeof doc.id !== 'string') {
      out.problems.push(`${path}: no string "id"; a provider manifest needs one`);
      continue;
    }
    if (doc.cost !== null && doc.cost !== undefined && !isCost(doc.cost)) {
      out.problems.push(`${path}: "cost" needs numeric p50_ms and p90_ms (or null until measured)`);
      continue;
    }
    if (typeof doc.kind === 'string') out.kinds.set(doc.id, doc.kind);
    out.costs.set(doc.id, isCost(doc.cost) ? { p50_ms: doc.cost.p50_ms, p90_ms: doc.cost.p90_ms } : null);
  }
  return out;
}
