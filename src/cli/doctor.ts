/**
 * `pico doctor [--root DIR] [--json]`: one line per check of this machine
 * and root (src/doctor/), `ok`, `warn` or `fail`, and the fix for each that
 * is not ok. Exit 0 when nothing failed (warnings included), 1 when any
 * check failed. Progress (a model being hashed) goes to stderr.
 */
import { runDoctor } from '../doctor/index.js';
import { EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico doctor [--root DIR] [--json]';

/** Entry point of `pico doctor`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length > 0) throw new UsageError(`takes no positional arguments, got ${JSON.stringify(positionals)}\nusage: ${USAGE}`);
  const root = rootOf(values);
  const { checks, failed } = await runDoctor(root, (line) => process.stderr.write(`${line}\n`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ root, ok: !failed, checks }, null, 2) + '\n');
    return failed ? EXIT.negative : EXIT.ok;
  }
  const width = Math.max(...checks.map((c) => `${c.group} ${c.name}`.length));
  const lines = checks.map((c) => `${c.level.padEnd(4)}  ${`${c.group} ${c.name}`.padEnd(width)}  ${c.detail}${c.fix ? `\n      fix: ${c.fix}` : ''}`);
  const counts = (['ok', 'warn', 'fail'] as const).map((l) => `${checks.filter((c) => c.level === l).length} ${l}`).join(', ');
  process.stdout.write(`${lines.join('\n')}\n${counts}${failed ? ' — fix the failed checks above' : ''}\n`);
  return failed ? EXIT.negative : EXIT.ok;
}
