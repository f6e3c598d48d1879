/** `pico init DIR [--json]`: create or complete a root with the shipped defaults. */
import { resolve } from 'node:path';
import { initRoot } from '../root/init.js';
import { emit, jsonOption, parse, UsageError, EXIT } from './args.js';

const USAGE = 'pico init DIR [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...jsonOption }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`name one folder\nusage: ${USAGE}`);
  const report = initRoot(resolve(positionals[0]!));
  emit(!!values.json, report, () =>
    `initialised ${report.root}: ${report.created.length} file(s) created, ${report.kept.length} kept as they were\n` +
    `next: pico run ${report.root}/examples/jobs/why-is-the-disk-full.json --root ${report.root}`);
  return EXIT.ok;
}
