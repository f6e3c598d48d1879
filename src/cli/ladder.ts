/**
 * `pico ladder` — run text through the validation ladder by hand.
 *
 *   pico ladder --schema FILE [--source FILE] [--json] [--root DIR]  < raw-text
 *     prints {ok, value, fixes, confidence} (exit 0) or {ok:false, kind,
 *     level, error} (exit 1); --source turns on level 4 against that input.
 *   pico ladder --corpus FILE [--json]
 *     runs every case of a corpus file (the ladder-dev.json format) and
 *     prints {"cases": [{id, ok, value | error, fixes}], "summary": ...};
 *     it does not score against `expected` — that is the test suite's job.
 *
 * Relative paths resolve against --root (default: the current directory).
 * Exit 2 on a usage or input error (missing flag, unreadable file).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { unreadable } from '../base/named-file.js';
import { compileSchema, loadSchemaFile, runLadder } from '../ladder/index.js';
import type { LadderResult } from '../ladder/types.js';
import { scoreCase } from '../eval/score.js';
// loading the cross-checks puts them in the ladder's level-4 table (--source runs level 4)
import '../crosschecks/index.js';

const options = {
  schema: { type: 'string' },
  source: { type: 'string' },
  corpus: { type: 'string' },
  root: { type: 'string', default: '.' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const USAGE = 'usage: pico ladder --schema FILE [--source FILE] [--json] [--root DIR] < text\n       pico ladder --corpus FILE [--json] [--root DIR]';

interface CorpusCase { id: string; category?: string; input: string; schema: Record<string, unknown>; expected?: unknown; expected_error?: boolean; allowed?: Record<string, unknown[]> }

/** Entry point of `pico ladder`. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options, allowPositionals: false, strict: true }).values;
  } catch (err) {
    process.stderr.write(`pico ladder: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) { process.stdout.write(USAGE + '\n'); return 0; }
  const root = resolve(values.root);
  try {
    if (values.corpus) return runCorpus(resolve(root, values.corpus), values.json);
    if (!values.schema) throw new Error('--schema FILE is required (or --corpus FILE)');
    const schema = loadSchemaFile(resolve(root, values.schema));
    const source = values.source ? readText(resolve(root, values.source), '--source') : undefined;
    const text = await readStdin();
    const result = runLadder({ text }, schema, source === undefined ? {} : { source });
    process.stdout.write((values.json ? JSON.stringify(result, null, 2) : human(result)) + '\n');
    return result.ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`pico ladder: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
}

/** Every case of a corpus file, unscored. */
function runCorpus(path: string, json: boolean): number {
  let cases: CorpusCase[];
  try {
    cases = JSON.parse(readText(path, '--corpus')) as CorpusCase[];
    if (!Array.isArray(cases)) throw new Error('expected a JSON array of cases');
  } catch (err) {
    throw new Error(`corpus file ${path}: ${(err as Error).message}`);
  }
  const out: Record<string, unknown>[] = [];
  const byCategory: Record<string, { cases: number; accepted: number; refused: number; right?: number }> = {};
  let scored = 0;
  let right = 0;
  for (const c of cases) {
    if (typeof c?.input !== 'string' || c.schema === null || typeof c.schema !== 'object') {
      throw new Error(`corpus file ${path}: case ${JSON.stringify(c?.id)} needs a string "input" and an object "schema"`);
    }
    const r = runLadder({ text: c.input }, compileSchema(c.schema, c.id));
    const row: Record<string, unknown> = r.ok
      ? { id: c.id, ok: true, value: r.value, fixes: r.fixes, confidence: r.confidence }
      : { id: c.id, ok: false, kind: r.kind, level: r.level, ...(r.code ? { code: r.code } : {}), error: r.error, fixes: r.fixes };
    const verdict = scoreCase(c, r);
    if (verdict !== null) row.right = verdict;
    out.push(row);
    const label = (c.category ?? 'uncategorised') + (c.expected_error ? ' (refuse)' : '');
    const cat = (byCategory[label] ??= { cases: 0, accepted: 0, refused: 0 });
    cat.cases++;
    if (r.ok) cat.accepted++;
    else cat.refused++;
    if (verdict !== null) {
      scored++;
      cat.right = (cat.right ?? 0) + (verdict ? 1 : 0);
      if (verdict) right++;
    }
  }
  const accepted = out.filter((c) => c.ok).length;
  const summary = { cases: out.length, accepted, refused: out.length - accepted, by_category: byCategory, ...(scored ? { scored, right } : {}) };
  if (json) process.stdout.write(JSON.stringify({ cases: out, summary }, null, 2) + '\n');
  else {
    for (const c of out) process.stdout.write(`${c.ok ? 'ok     ' : 'refused'} ${c.right === false ? 'WRONG ' : ''}${String(c.id)}${c.ok ? '' : `: ${String(c.error)}`}\n`);
    process.stdout.write('\ncategory                       cases  accepted  refused  right\n');
    for (const [name, cat] of Object.entries(byCategory)) {
      process.stdout.write(`${name.padEnd(30)} ${String(cat.cases).padStart(5)}  ${String(cat.accepted).padStart(8)}  ${String(cat.refused).padStart(7)}  ${cat.right === undefined ? '    -' : String(cat.right).padStart(5)}\n`);
    }
    process.stdout.write(`${summary.cases} cases: ${accepted} accepted, ${summary.refused} refused${scored ? `; ${right} of ${scored} right (scored as the corpora README says)` : ''}\n`);
  }
  return 0;
}

/** The human rendering of one result. */
function human(r: LadderResult): string {
  const fixes = r.fixes.length ? '\nfixes:\n' + r.fixes.map((f) => `  - ${f}`).join('\n') : '';
  if (r.ok) return `ok (confidence ${r.confidence ?? 'unknown'})\n${JSON.stringify(r.value, null, 2)}${fixes}`;
  return `refused at level ${r.level} (${r.kind}): ${r.error}${fixes}`;
}

/** Read a file named by a flag, with an error naming the flag and the path. */
function readText(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const u = unreadable(path, err, 'file');
    throw new Error(`${flag} ${u.problem}; ${u.fix}`);
  }
}

/** All of stdin as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
