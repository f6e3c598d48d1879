/**
 * `pico manifests check [--root DIR] [--json]`: load every manifest, schema,
 * playbook, lexicon file and prompt of a root by the rules a session worker
 * loads them by (src/root/manifest-set.ts) and list every problem with its
 * file, key path and fix. Exit 0 when all load, 3 when any does not.
 */
import { listPrompts } from '../prompts/envelope.js';
import { checkManifestSet } from '../root/manifest-set.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, unknownSubcommand, UsageError } from './args.js';

const USAGE = 'pico manifests check [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals[0] !== 'check') throw unknownSubcommand(positionals[0], ['check'], USAGE);
  if (positionals.length !== 1) throw new UsageError(`unexpected argument "${positionals[1]}"\nusage: ${USAGE}`);
  const root = rootOf(values);
  const { issues, counts } = await checkManifestSet(root);
  try {
    counts.prompts = (await listPrompts(root)).length;
  } catch (err) {
    issues.push({ file: 'prompts/', path: '', message: (err as Error).message, fix: 'fix the prompt envelope named above' });
  }
  const ok = issues.length === 0;
  emit(!!values.json, { ok, root, counts, issues }, () => ok
    ? `ok: ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${root}`
    : `${issues.length} problem(s) in ${root}:\n${issues.map((i) => `  ${i.file}${i.path ? ` at ${i.path}` : ''}: ${i.message}\n    fix: ${i.fix}`).join('\n')}`);
  return ok ? EXIT.ok : EXIT.root;
}
