/**
 * Roots with real finished sessions for the retention suites: the example job
 * run by the real runtime, its result.json then dated in the past (`ended_at`)
 * so a session is "old" without waiting. Also a dump of memory/episodic.db that
 * leaves out what differs between two equal indexes (row ids, ingest times).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openRuntime } from '../../src/root/runtime.js';
import { parseJob, type Job } from '../../src/runtime/job.js';
import { exampleJob, makeRoot, newSession, REPO } from '../helpers/root.js';
import { ftsInstances, TOKENS } from '../memory/helpers.js';

/** A shipped example job by file name (examples/jobs/). */
export function shippedJob(name: string): Job {
  return parseJob(JSON.parse(readFileSync(join(REPO, 'examples/jobs', name), 'utf8')));
}

export const DAY = 86_400_000;

/** Run the example job `n` times in `root` (a fresh root when absent); returns the session ids. */
export async function runSessions(n: number, root = makeRoot('pico-gc-'), job: () => Job = exampleJob): Promise<{ root: string; ids: string[] }> {
  const rt = await openRuntime(root);
  const ids: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const id = newSession(rt, job());
      await rt.runSession(id);
      ids.push(id);
    }
  } finally {
    await rt.close();
  }
  return { root, ids };
}

/** Set a session's end (result.json's ended_at) to `daysAgo` days before now. */
export function age(root: string, id: string, daysAgo: number): string {
  const file = join(root, 'sessions', id, 'result.json');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { ended_at: string };
  doc.ended_at = new Date(Date.now() - daysAgo * DAY).toISOString();
  writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
  return doc.ended_at;
}

/** Every row of the index as content (no row ids, no ingest times), sorted, table by table. */
export function dumpIndex(db: Database.Database): Record<string, unknown[]> {
  const q = (sql: string): unknown[] => (db.prepare(sql).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort();
  return {
    ledger: q('SELECT session, path, bytes, next_seq, events, skipped, steps FROM ledger'),
    episode: q('SELECT session, goal, budget_class, outcome, composition, fact_count, failure_count, gap_count, started_at, ended_at FROM episode'),
    fact: q('SELECT session, seq, ledger, step, provider, capability, schema, trust, subject, observed_at, valid_until, confidence, payload, digest FROM fact'),
    fact_field: q('SELECT f.session, f.seq, ff.ord, ff.key, ff.num, ff.txt FROM fact_field ff JOIN fact f ON f.id = ff.fact_id'),
    fact_field_orphans: q('SELECT fact_id FROM fact_field WHERE fact_id NOT IN (SELECT id FROM fact)'),
    // contentless full-text indexes (memory/schema.ts): their tokens per document, an orphan's session null
    fact_fts: q(`SELECT f.session, f.seq, ${TOKENS} FROM ${ftsInstances(db, 'fact_fts')} v LEFT JOIN fact f ON f.id = v.doc GROUP BY v.doc`),
    episode_fts: q(`SELECT e.session, ${TOKENS} FROM ${ftsInstances(db, 'episode_fts')} v LEFT JOIN episode e ON e.id = v.doc GROUP BY v.doc`),
    failure: q('SELECT session, seq, ledger, t, type, kind, step, capability, tool, provider, schema, signature, detail, detail_trust, attempt, resolution, resolved_by, digest FROM failure'),
    control_event: q('SELECT * FROM control_event'),
    provider_call: q('SELECT * FROM provider_call'),
    trajectory: q('SELECT * FROM trajectory'),
    trajectory_drop: q('SELECT * FROM trajectory_drop'),
  };
}

/** The sessions an index dump mentions anywhere. */
export function sessionsIn(dump: Record<string, unknown[]>): Set<string> {
  const out = new Set<string>();
  for (const rows of Object.values(dump)) for (const r of rows) {
    const m = /"session":"([^"]+)"/.exec(String(r));
    if (m) out.add(m[1]!);
  }
  return out;
}
