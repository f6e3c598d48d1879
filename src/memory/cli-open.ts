/**
 * How the memory commands open the index under a root.
 *
 * Reading commands first ingest what is new in sessions/ (incremental and
 * cheap), so what they show is current without a manual step; `--no-ingest`
 * skips that, and a root whose memory/ is not writable is read as it stands.
 * It does not print; the commands decide what to say.
 */
import { existsSync } from 'node:fs';
import { MemoryIndex } from './memory-index.js';
import { dbPathFor, sessionsDirFor } from './paths.js';

export class NoIndexError extends Error {
  override name = 'NoIndexError';
}

/** Open memory/episodic.db under `root`, ingesting first unless `ingest` is false. */
export function openForCli(root: string, ingest: boolean): { ix: MemoryIndex; warning: string | null } {
  const dbPath = dbPathFor(root);
  if (!ingest) {
    if (!existsSync(dbPath)) throw new NoIndexError(`no memory index at ${dbPath}; run \`pico memory rebuild --root ${root}\` first`);
    return { ix: MemoryIndex.open(dbPath, { readonly: true }), warning: null };
  }
  let ix: MemoryIndex;
  try {
    ix = MemoryIndex.open(dbPath);
  } catch (e) {
    if (!existsSync(dbPath)) throw e;
    const why = (e as Error).message;
    return { ix: MemoryIndex.open(dbPath, { readonly: true }), warning: `could not open ${dbPath} for writing (${why}); showing it without ingesting new sessions` };
  }
  ix.ingestDir(sessionsDirFor(root));
  return { ix, warning: null };
}
