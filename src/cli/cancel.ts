/**
 * `pico cancel JOB [--wait SECONDS] [--root DIR] [--json]`: cancel a job that
 * has not ended (src/jobs/cancel.ts). A queued job is closed at once
 * (`cancelled`); a running one stops after its current step and answers from
 * the facts held. Exit 0 when cancelled or asked for, 2 when the job has
 * already ended or the root has no such job.
 */
import { cancelJob } from '../jobs/cancel.js';
import { EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico cancel JOB [--wait SECONDS] [--root DIR] [--json]';

/** Entry point of `pico cancel`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, wait: { type: 'string' } }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`expected exactly one JOB id, got ${positionals.length}\nusage: ${USAGE}`);
  const wait = values.wait === undefined ? 10 : Number(values.wait);
  if (!(Number.isFinite(wait) && wait >= 0)) throw new UsageError(`--wait must be a number of seconds (0: do not wait), got "${values.wait}"\nusage: ${USAGE}`);
  const root = rootOf(values);
  const r = await cancelJob(root, positionals[0]!, { waitMs: wait * 1000 });
  if (values.json) {
    process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    return r.ok ? EXIT.ok : EXIT.usage;
  }
  if (!r.ok) {
    process.stderr.write(`pico cancel: ${r.problem}\n  fix: ${r.fix}\n`);
    return EXIT.usage;
  }
  if (r.how === 'requested') {
    process.stdout.write(`cancel of ${r.id} asked for: it stops after its current step${r.step ? ` (${r.step})` : ''} and answers with the facts it holds; follow it with \`pico watch ${r.id} --root ${root}\`\n`);
  } else if (r.outcome === 'cancelled') {
    process.stdout.write(`${r.id} cancelled (it was ${r.was}); result: ${r.result}\n${r.answer ? `${r.answer}\n` : ''}`);
  } else {
    process.stdout.write(`${r.id} ended before the cancel took effect: ${r.outcome}; result: ${r.result}\n`);
  }
  return EXIT.ok;
}
