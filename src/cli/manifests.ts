/**
 * `pico manifests check [--root DIR] [--json]`: load every manifest, schema
 * and prompt of a root and list every problem with its file, key path and
 * fix. Exit 0 when all load, 3 when any does not.
 */
import { listPrompts } from '../prompts/envelope.js';
import type { ManifestIssue } from '../registry/boundary.js';
import { loadRoot, ManifestError } from '../registry/load.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, unknownSubcommand, UsageError } from './args.js';

const USAGE = 'pico manifests check [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals[0] !== 'check') throw unknownSubcommand(positionals[0], ['check'], USAGE);
  if (positionals.length !== 1) throw new UsageError(`unexpected argument "${positionals[1]}"\nusage: ${USAGE}`);
  const root = rootOf(values);
  let issues: ManifestIssue[] = [];
  let counts: Record<string, number> = {};
  try {
    const loaded = loadRoot(root);
    counts = Object.fromEntries(Object.entries(loaded.registry.snapshot()).map(([k, v]) => [k, v.length]));
    await loaded.scope.unwind();
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    issues = err.issues;
  }
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
