/**
 * `pico check [SESSION] [--root DIR] [--json]`: verify every session folder
 * (or one) — the ledger parses and is dense, result.json agrees with it, the
 * composition and blobs match their hashes (src/check/session.ts) — and
 * print what is wrong with the file and the fix. Exit 0 when all is whole,
 * 1 when anything is damaged, 2 on usage errors. It only reads.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkSession, checkSessions, type SessionCheck } from '../check/session.js';
import { isSessionId } from '../ledger/session-id.js';
import { daemonPaths } from '../daemon/paths.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico check [SESSION] [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length > 1) throw new UsageError(`name at most one session\nusage: ${USAGE}`);
  const sessions = daemonPaths(rootOf(values)).sessions;
  let checks: SessionCheck[];
  const one = positionals[0];
  if (one !== undefined) {
    if (!isSessionId(one) || !existsSync(join(sessions, one))) throw new UsageError(`no session ${JSON.stringify(one)} under ${sessions}; name a session folder (pico status lists recent ones)`);
    checks = [checkSession(join(sessions, one), one)];
  } else {
    checks = checkSessions(sessions, isSessionId);
  }
  const damaged = checks.filter((c) => c.problems.length > 0);
  const count = (s: SessionCheck['state']): number => checks.filter((c) => c.state === s).length;
  emit(!!values.json, { root: rootOf(values), checked: checks.length, damaged: damaged.length, sessions: one !== undefined ? checks : damaged }, () => {
    const lines: string[] = [];
    for (const c of one !== undefined ? checks : damaged) {
      lines.push(`${c.problems.length > 0 ? 'DAMAGED' : 'ok'} ${c.session} (${c.state}, ${c.events} intact events)`);
      for (const p of c.problems) lines.push(`  ${p.file}: ${p.problem}\n    fix: ${p.fix}`);
      for (const n of c.notes) lines.push(`  note: ${n}`);
    }
    lines.push(`checked ${checks.length} session(s) under ${sessions}: ${damaged.length} damaged; ${count('answered')} answered, ${count('closed')} closed without a ledger answer, ${count('unfinished')} unfinished, ${count('empty')} not started`);
    return lines.join('\n');
  });
  return damaged.length > 0 ? EXIT.negative : EXIT.ok;
}
