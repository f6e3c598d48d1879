/**
 * `pico memory rebuild | ingest | stats [--root DIR] [--json]`: the memory
 * index itself. `rebuild` drops every derived row and reads all ledgers
 * again (nothing is lost: the ledgers are the truth); `ingest` reads only
 * what is new; `stats` counts rows.
 */
import { MemoryIndex } from '../memory/memory-index.js';
import { dbPathFor, sessionsDirFor } from '../memory/paths.js';
import { formatTable } from '../memory/table.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico memory rebuild | ingest | stats [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  const sub = positionals[0];
  if (sub !== 'rebuild' && sub !== 'ingest' && sub !== 'stats') throw new UsageError(`name a subcommand\nusage: ${USAGE}`);
  const root = rootOf(values);
  const ix = MemoryIndex.open(dbPathFor(root));
  try {
    if (sub === 'stats') {
      const s = ix.stats();
      emit(!!values.json, s, () => formatTable(['stat', 'value'], Object.entries(s).map(([stat, value]) => ({ stat, value }))));
      return EXIT.ok;
    }
    const t0 = Date.now();
    const r = sub === 'rebuild' ? ix.rebuild(sessionsDirFor(root)) : ix.ingestDir(sessionsDirFor(root));
    const ms = Date.now() - t0;
    emit(!!values.json, { ...r, ms }, () =>
      `${sub === 'rebuild' ? 'rebuilt' : 'ingested'} ${ix.path}: ${r.sessions} sessions (${r.changed} changed), ${r.events} events, ` +
      `${r.facts} facts, ${r.failures} failures, ${r.skipped} lines skipped, in ${ms} ms`);
    return EXIT.ok;
  } finally {
    ix.close();
  }
}
