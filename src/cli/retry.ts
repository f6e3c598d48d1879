/**
 * `pico retry JOB [--root DIR] [--json]`: submit an ended job's job.json
 * again as a new job (src/jobs/retry.ts) and print the new id. Exit 2 for a
 * job that has not ended or an id the root does not know.
 */
import { retryJob } from '../jobs/retry.js';
import { EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico retry JOB [--root DIR] [--json]';

/** Entry point of `pico retry`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected exactly one JOB id, got ${positionals.length}\nusage: ${USAGE}`);
  const r = await retryJob(rootOf(values), positionals[0]!);
  if (values.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  else if (!r.ok) process.stderr.write(`pico retry: ${r.problem}\n  fix: ${r.fix}\n`);
  else process.stdout.write(`${r.id}\n`);
  return r.ok ? EXIT.ok : EXIT.usage;
}
