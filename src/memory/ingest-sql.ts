/**
 * The prepared statements of ingest, and the row shapes they read.
 *
 * Kept apart from the ingest logic so that file reads as the rules for
 * turning events into rows, not as SQL. Prepared once per connection. The
 * inserts take positional parameters, in the order of their column lists:
 * binding named ones looked up every name on an object per row, a tenth of
 * the binding cost of a bulk load (issue 32 profile).
 */
import type Database from 'better-sqlite3';
import type { Trust } from '../base/trust.js';
import { SESSION_TABLES } from './schema.js';

/** What a step_started said: facts and failures of that step inherit it. */
export interface StepInfo {
  tool: string | null;
  trust: Trust;
  capability: string | null;
  schema: string | null;
}
export interface EpisodeRow {
  id: number;
  goal: string | null;
  budget_class: string | null;
  outcome: string | null;
  composition: string | null;
  started_at: string | null;
  ended_at: string | null;
  fact_count: number;
  failure_count: number;
  gap_count: number;
}
export interface LedgerRow {
  bytes: number;
  next_seq: number;
  events: number;
  skipped: number;
  /** JSON: step -> StepInfo */
  steps: string;
}
export type Event = Record<string, unknown> & { type: string; seq: number };
/** The identity digest of a recorded provider under a composition hash (null when unknown). */
export type IdentityOf = (composition: string | null, provider: string | null) => string | null;


/** Values of one fact_field row: fact_id, ord, key, num, txt. */
export const FIELD_WIDTH = 5;

/** Rows per statement of a many-row insert (`manyRows`). */
export const ROWS_PER_INSERT = 64;

/**
 * An insert of many rows at once: `flat` holds the values of whole rows, `width` per row in the
 * order of `head`'s column list. Rows go in `ROWS_PER_INSERT` per statement, the rest in
 * statements of a power of two rows (each prepared once): a bulk load inserts some 65,000
 * fact_field rows, and one `run` per row cost three times what these statements cost (issue 32).
 *
 * `head` must say `INSERT OR FAIL`: a plain (ABORT) insert of several rows makes SQLite open a
 * statement savepoint with a statement journal, so that a failing row can undo the rows before
 * it; at every savepoint FTS5 writes its pending terms out as a new segment, and that tripled the
 * statement's cost instead of cutting it. FAIL keeps the rows before a failing one, which changes
 * nothing here: a failure throws, and every ingest runs in a transaction that the throw rolls
 * back whole (ingest.ts). Never a virtual table's rows: those open the savepoint whatever the
 * conflict clause.
 */
export function manyRows(db: Database.Database, head: string, width: number): (flat: readonly unknown[]) => void {
  const byCount = new Map<number, Database.Statement>();
  const row = `(${Array(width).fill('?').join(', ')})`;
  const stmt = (n: number): Database.Statement => {
    let s = byCount.get(n);
    if (!s) byCount.set(n, (s = db.prepare(`${head} VALUES ${Array(n).fill(row).join(', ')}`)));
    return s;
  };
  if (!/^INSERT OR FAIL INTO /.test(head)) throw new Error(`manyRows: ${head}: a many-row insert must be INSERT OR FAIL`);
  return (flat) => {
    if (flat.length % width !== 0) throw new Error(`manyRows: ${flat.length} values are not whole rows of ${width}`);
    // full statements, then the rest in statements of 32, 16, ... 1 rows: at most seven prepared per table
    for (let i = 0, n = ROWS_PER_INSERT; i < flat.length; ) {
      while (n > 1 && (flat.length - i) / width < n) n >>= 1;
      const end = i + n * width;
      stmt(n).run(i === 0 && end === flat.length ? flat : flat.slice(i, end));
      i = end;
    }
  };
}

/** Prepare every statement ingest runs. */
export function prepareIngest(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    ledger: p('SELECT bytes, next_seq, events, skipped, steps FROM ledger WHERE session = ?'),
    anyLedger: p('SELECT 1 FROM ledger LIMIT 1'),
    countLedger: p('SELECT count(*) AS n FROM ledger'),
    saveLedger: p(`INSERT INTO ledger (session, bytes, next_seq, events, skipped, ingested_at, steps)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session) DO UPDATE SET bytes = excluded.bytes, next_seq = excluded.next_seq,
    events = excluded.events, skipped = excluded.skipped, ingested_at = excluded.ingested_at, steps = excluded.steps`),
    episode: p(`SELECT id, goal, budget_class, outcome, composition, started_at, ended_at, fact_count, failure_count, gap_count
    FROM episode WHERE session = ?`),
    newEpisode: p(`INSERT INTO episode (session, goal, budget_class, outcome, composition, started_at, ended_at, fact_count, failure_count, gap_count)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    saveEpisode: p(`UPDATE episode SET goal = ?, budget_class = ?, outcome = ?, composition = ?, started_at = ?, ended_at = ?,
    fact_count = ?, failure_count = ?, gap_count = ? WHERE id = ?`),
    episodeFts: p('INSERT INTO episode_fts (rowid, goal) VALUES (?, ?)'),
    fact: p(`INSERT OR IGNORE INTO fact (session, seq, step, provider, capability, schema, trust,
    subject, observed_at, valid_until, confidence, payload, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    /** fact_field rows, FIELD_WIDTH values each: fact_id, ord, key, num, txt (held per batch: ingest-rows.ts) */
    fields: manyRows(db, 'INSERT OR FAIL INTO fact_field (fact_id, ord, key, num, txt)', FIELD_WIDTH),
    factFts: p('INSERT INTO fact_fts (rowid, body, tier) VALUES (?, ?, ?)'),
    failure: p(`INSERT OR IGNORE INTO failure (session, seq, t, type, kind, step, capability, tool,
    provider, schema, signature, detail, detail_trust, attempt, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    control: p('INSERT OR IGNORE INTO control_event (session, seq, type, step, target, outcome) VALUES (?, ?, ?, ?, ?, ?)'),
    call: p(`INSERT OR IGNORE INTO provider_call (session, seq, step, provider, capability, schema,
    duration_ms, outcome, attempt, model_call, t, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    trajectory: p(`INSERT INTO trajectory (session, seq, intent, tools, plan_key, steps, answered_at)
    VALUES (?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (session) DO UPDATE SET seq = excluded.seq, intent = excluded.intent,
    tools = excluded.tools, plan_key = excluded.plan_key, steps = excluded.steps, answered_at = NULL`),
    trajectoryAnswered: p('UPDATE trajectory SET answered_at = ? WHERE session = ?'),
    trajectoryDrop: p('INSERT OR IGNORE INTO trajectory_drop (session, seq, plan_key, t) VALUES (?, ?, ?, ?)'),
    sessionFailures: p('SELECT id, seq, step, provider, resolution, resolved_by FROM failure WHERE session = ?'),
    sessionFailureWords: p('SELECT step, detail FROM failure WHERE session = ? ORDER BY seq'),
    sessionFacts: p('SELECT seq, step, provider FROM fact WHERE session = ?'),
    sessionControls: p('SELECT seq, type, step, target, outcome FROM control_event WHERE session = ?'),
    setResolution: p('UPDATE failure SET resolution = ?, resolved_by = ? WHERE id = ?'),
    delFields: p('DELETE FROM fact_field WHERE fact_id IN (SELECT id FROM fact WHERE session = ?)'),
    delFactFts: p('DELETE FROM fact_fts WHERE rowid IN (SELECT id FROM fact WHERE session = ?)'),
    delEpisodeFts: p('DELETE FROM episode_fts WHERE rowid IN (SELECT id FROM episode WHERE session = ?)'),
    del: SESSION_TABLES.map((t) => p(`DELETE FROM ${t} WHERE session = ?`)),
  };
}

export type IngestStatements = ReturnType<typeof prepareIngest>;
