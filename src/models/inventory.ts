/**
 * What `pico models` shows: each model provider with its file, size, pinned
 * hash and measured decode rate, how often memory saw it called and when it
 * was last used (the newest provider call in memory/episodic.db, with its
 * session), and the files in models/ that no manifest uses.
 *
 * Last use comes from the memory index, read-only (a fresh root has none:
 * then it is unknown, and says so); the daemon ingests every job it runs, so
 * the index is current under the service. The hash is the manifest's pin, not
 * re-computed (hashing a 1 GB model takes seconds: `pico doctor` checks the
 * bytes). Read-only.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { dbPathFor } from '../memory/paths.js';
import { withReadonlyIndex } from '../memory/runtime-api.js';
import { modelsDirFor } from './folder.js';
import { readModelManifests, realOrResolved } from './manifests.js';

export interface ModelRow {
  id: string;
  file: string;
  path: string;
  /** bytes, null when the file is missing */
  size: number | null;
  sha256: string;
  threads: number | null;
  decode_tokens_per_s: number | null;
  /** provider calls memory holds (null: no memory index) */
  calls: number | null;
  last_used: string | null;
  last_session: string | null;
}

export interface Inventory {
  models: ModelRow[];
  /** files in models/ that no manifest names */
  unused: { file: string; size: number }[];
  /** false when there is no memory index to read uses from */
  memory: boolean;
  problems: string[];
}

const sizeOf = (p: string): number | null => {
  try {
    return statSync(p).size;
  } catch {
    return null;
  }
};

/** The root's models, their use, and unused files in models/. */
export function modelInventory(root: string): Inventory {
  const { models, problems } = readModelManifests(root);
  type Use = { n: number; t: string | null; session: string | null };
  const uses = withReadonlyIndex<Map<string, Use> | null>(dbPathFor(root), () => null, (ix) => {
    // a manifest id also matches its pinned identities ("tiny" covers "tiny@sha256:…"), as in the cost model
    const who = `(provider = @p OR (provider > @p || '@' AND provider < @p || '@~'))`;
    const count = ix.db.prepare(`SELECT COUNT(*) AS n FROM provider_call WHERE ${who}`);
    const last = ix.db.prepare(`SELECT session, t FROM provider_call WHERE ${who} AND t IS NOT NULL ORDER BY t DESC LIMIT 1`);
    return new Map(models.map((m) => {
      const l = last.get({ p: m.id }) as { session: string; t: string } | undefined;
      return [m.id, { n: (count.get({ p: m.id }) as { n: number }).n, t: l?.t ?? null, session: l?.session ?? null }];
    }));
  });
  const rows: ModelRow[] = models.map((m) => {
    const u = uses?.get(m.id);
    return {
      id: m.id, file: m.file, path: m.path, size: sizeOf(m.path), sha256: m.sha256, threads: m.threads,
      decode_tokens_per_s: m.decode_tokens_per_s, calls: u?.n ?? null, last_used: u?.t ?? null, last_session: u?.session ?? null,
    };
  });
  const used = new Set(models.map((m) => realOrResolved(m.path)));
  const dir = modelsDirFor(root);
  const unused: Inventory['unused'] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  for (const n of names) {
    const p = path.join(dir, n);
    const st = statSync(p);
    if (st.isFile() && !used.has(realOrResolved(p))) unused.push({ file: path.relative(root, p).split(path.sep).join('/'), size: st.size });
  }
  return { models: rows, unused, memory: uses !== null, problems };
}
