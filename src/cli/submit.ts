/**
 * `pico submit FILE --root DIR` — hand a job file to the daemon the safe way.
 *
 * The job is checked first (a bad job is refused here, with the fix, instead
 * of landing in sessions/rejected/), then written under a dot-name in the
 * inbox, fsynced, and renamed to `<session-id>.json`: the daemon never sees a
 * partial file, and the printed id is the session id it will use. Submitting
 * the same file twice makes two jobs. Logic lives in src/daemon/submit.ts.
 */
import { parseArgs } from 'node:util';
import { submitJobFile } from '../daemon/submit.js';

const options = {
  root: { type: 'string', default: '.' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const USAGE = 'usage: pico submit FILE [--root DIR] [--json]';

/** Entry point of `pico submit`. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`pico submit: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`pico submit: expected exactly one job FILE, got ${positionals.length}\n${USAGE}\n`);
    return 2;
  }
  const r = await submitJobFile(positionals[0]!, values.root);
  if (!r.ok) {
    if (values.json) process.stdout.write(JSON.stringify({ ok: false, problem: r.problem, fix: r.fix }) + '\n');
    else process.stderr.write(`pico submit: ${r.problem}\n  fix: ${r.fix}\n`);
    return 1;
  }
  if (values.json) process.stdout.write(JSON.stringify({ ok: true, job: r.id, session: r.id, inbox_file: r.path }) + '\n');
  else process.stdout.write(`${r.id}\n`);
  return 0;
}
