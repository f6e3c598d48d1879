/**
 * `pico recall QUERY [--for-control] [--limit N] [--budget-class C] [--no-ingest] [--root DIR] [--json]`:
 * search memory on path 1 (SQL + BM25, no model). `--for-control` asks as the
 * planner does: T0/T2 facts only, and a T1 fact reaching it is an error.
 */
import { BUDGET_CLASSES, type BudgetClass } from '../ledger/events.js';
import { openForCli } from '../memory/cli-open.js';
import type { FactHit } from '../memory/recall.js';
import { formatTable } from '../memory/table.js';
import { TrustViolation } from '../base/trust.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico recall QUERY [--for-control] [--limit N] [--budget-class C] [--no-ingest] [--root DIR] [--json]';

/** A hit as one table row. */
function row(h: FactHit): Record<string, unknown> {
  return { cite: h.provenance.cite(), trust: h.trust, schema: h.schema, provider: h.provider, subject: h.subject, fact: h.payload };
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...rootOption, ...jsonOption,
    'for-control': { type: 'boolean' }, limit: { type: 'string' }, 'budget-class': { type: 'string' }, 'no-ingest': { type: 'boolean' },
  }, USAGE);
  if (positionals.length === 0) throw new UsageError(`give a query\nusage: ${USAGE}`);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new UsageError(`--limit must be a positive integer, got "${values.limit}"`);
  const bc = values['budget-class'];
  if (bc !== undefined && !(BUDGET_CLASSES as readonly string[]).includes(bc)) {
    throw new UsageError(`--budget-class must be one of ${BUDGET_CLASSES.join(', ')}, got "${bc}"`);
  }
  const query = positionals.join(' ');
  const { ix, warning } = openForCli(rootOf(values), !values['no-ingest']);
  if (warning) process.stderr.write(`pico recall: ${warning}\n`);
  try {
    const opts = { ...(limit !== undefined && { limit }), ...(bc !== undefined && { budgetClass: bc as BudgetClass }) };
    let hits: FactHit[];
    try {
      hits = values['for-control'] ? ix.recallForControl(query, opts) : ix.recall(query, opts);
    } catch (e) {
      if (!(e instanceof TrustViolation)) throw e;
      process.stderr.write(`pico recall: ${e.message}\n`);
      return EXIT.internal;
    }
    emit(!!values.json, hits, () =>
      hits.length === 0 ? `no facts match "${query}"` : formatTable(['cite', 'trust', 'schema', 'provider', 'subject', 'fact'], hits.map(row)));
    return hits.length > 0 ? EXIT.ok : EXIT.negative;
  } finally {
    ix.close();
  }
}
