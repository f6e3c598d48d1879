/**
 * How a command that reads a session reports damage: every problem with its
 * file and fix on stderr, and the exit code for it (1: the session is
 * damaged, a finding about the data, never an internal error). Shared by
 * `show`, `replay` and `memory rebuild`; `pico check` prints the same
 * findings for every session.
 */
import type { SessionCheck } from '../check/session.js';

/** Write the problems of a damaged session to stderr; returns true when there were any. */
export function reportDamage(command: string, c: SessionCheck): boolean {
  if (c.problems.length === 0) return false;
  const lines = [`pico ${command}: session ${c.session} is damaged (${c.problems.length} problem(s); \`pico check ${c.session}\` shows them again):`];
  for (const p of c.problems) lines.push(`  ${p.file}: ${p.problem}\n    fix: ${p.fix}`);
  process.stderr.write(lines.join('\n') + '\n');
  return true;
}
