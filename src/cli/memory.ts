/**
 * `pico memory rebuild | ingest | stats [--root DIR] [--json]`: the memory
 * index itself. `rebuild` drops every derived row and reads all ledgers
 * again (nothing is lost: the ledgers are the truth); `ingest` reads only
 * what is new; `stats` counts rows. Damaged sessions are
 * named on stderr after a rebuild or ingest (the checks of `pico check`,
 * exit 1): memory then holds only what it could read of them.
 */
import { MemoryIndex } from '../memory/memory-index.js';
import { dbPathFor, sessionsDirFor } from '../memory/paths.js';
import { formatTable } from '../memory/table.js';
import { checkSessions } from '../check/session.js';
import { isSessionId } from '../ledger/session-id.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, unknownSubcommand } from './args.js';

const USAGE = 'pico memory rebuild | ingest | stats [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  const sub = positionals[0];
  if (sub !== 'rebuild' && sub !== 'ingest' && sub !== 'stats') throw unknownSubcommand(sub, ['rebuild', 'ingest', 'stats'], USAGE);
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
    // memory skips what it cannot read; the operator must hear which ledgers those were
    const damaged = damagedSessions(sessionsDirFor(root));
    emit(!!values.json, { ...r, ms, damaged }, () =>
      `${sub === 'rebuild' ? 'rebuilt' : 'ingested'} ${ix.path}: ${r.sessions} sessions (${r.changed} changed), ${r.events} events, ` +
      `${r.facts} facts, ${r.failures} failures, ${r.skipped} lines skipped, in ${ms} ms`);
    if (damaged.length === 0) return EXIT.ok;
    process.stderr.write(`pico memory ${sub}: ${damaged.length} problem(s) in damaged sessions; memory holds what it could read of them:\n${damaged.map((d) => `  ${d.file}: ${d.problem}`).join('\n')}\n  fix: run \`pico check --root ${root}\` for each session's fix; the daemon closes an unfinished damaged session when it runs it\n`);
    return EXIT.negative;
  } finally {
    ix.close();
  }
}

/** Problems of every damaged ledger under `sessionsDir` (`pico check`'s checks of the ledger and result.json). */
function damagedSessions(sessionsDir: string): { file: string; problem: string }[] {
  return checkSessions(sessionsDir, isSessionId, { files: false }).flatMap((c) => c.problems.map((p) => ({ file: p.file, problem: p.problem })));
}
