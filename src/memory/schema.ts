/**
 * The episodic database's tables — memory/episodic.db.
 *
 * Everything here is derived from the ledgers and can be deleted and rebuilt
 * (design §6), so a schema change does not migrate: a version mismatch drops
 * every table and the next ingest reads all ledgers again. This module owns
 * the DDL and the closed vocabularies stored in CHECK constraints; the views
 * people query live in `views.ts`, and filling the tables is `ingest.ts`.
 */
import type Database from 'better-sqlite3';
import { VIEWS_SQL, VIEW_NAMES } from './views.js';

/** Bump when a table changes shape; an older database is then rebuilt, never migrated. */
export const SCHEMA_VERSION = 4;

/** The closed failure taxonomy of design §6. */
export const FAILURE_KINDS = [
  'grammar', 'schema', 'range', 'crosscheck', 'semantic', 'tool_error',
  'tool_timeout', 'empty', 'capability_gap', 'budget', 'approval_denied', 'unknown',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** What a failure was followed by (null while its session is still open). */
export const RESOLUTIONS = ['retry_same', 'escalated', 'replanned', 'declined', 'abandoned'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

const list = (xs: readonly string[]): string => xs.map((x) => `'${x}'`).join(', ');

/**
 * The cited ledger path of a row's session (paths.ts ledgerCitePath), computed when read rather
 * than stored: 48 bytes a fact, failure and ledger row, a twentieth of a bulk load's pages.
 */
const CITED = "GENERATED ALWAYS AS ('sessions/' || session || '/events.jsonl') VIRTUAL";

const TABLES_SQL = `
CREATE TABLE schema_version (version INTEGER NOT NULL, created_at TEXT NOT NULL);

-- ingest bookkeeping: how much of each ledger has been read, and the trust/tool of its
-- steps so far (facts and failures of a later chunk inherit them)
CREATE TABLE ledger (
  session TEXT PRIMARY KEY, path TEXT ${CITED},
  bytes INTEGER NOT NULL, next_seq INTEGER NOT NULL,
  events INTEGER NOT NULL, skipped INTEGER NOT NULL, ingested_at TEXT NOT NULL,
  steps TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE episode (
  id INTEGER PRIMARY KEY, session TEXT NOT NULL UNIQUE,
  goal TEXT, budget_class TEXT, outcome TEXT, composition TEXT,
  fact_count INTEGER NOT NULL DEFAULT 0, failure_count INTEGER NOT NULL DEFAULT 0,
  gap_count INTEGER NOT NULL DEFAULT 0, started_at TEXT, ended_at TEXT
);

CREATE TABLE fact (
  id INTEGER PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL, ledger TEXT ${CITED},
  step TEXT, provider TEXT, capability TEXT, schema TEXT,
  trust TEXT NOT NULL CHECK (trust IN ('T0', 'T1', 'T2')),
  subject TEXT, observed_at TEXT, valid_until TEXT, confidence REAL,
  payload TEXT NOT NULL,
  digest TEXT,
  UNIQUE (session, seq)
);
CREATE INDEX fact_by_provider ON fact (provider, schema);
CREATE INDEX fact_by_identity ON fact (digest, schema, observed_at);

-- typed scalar projection: one row per scalar leaf, key = dotted path (array items share
-- the key); the num index is partial, so fieldRange queries say "num IS NOT NULL"
CREATE TABLE fact_field (
  fact_id INTEGER NOT NULL, ord INTEGER NOT NULL, key TEXT NOT NULL, num REAL, txt TEXT,
  PRIMARY KEY (fact_id, ord)
) WITHOUT ROWID;
CREATE INDEX fact_field_by_num ON fact_field (key, num) WHERE num IS NOT NULL;

-- BM25 over fact text (rowid = fact.id) and over goals (rowid = episode.id). The tier
-- column holds the fact's trust as a token (t0 / t1 / t2) so control recall filters
-- inside the index; the rank ignores it (weight 0). Contentless: the index keeps the
-- tokens, not a copy of the text (nothing reads it back; the facts and goals are in their
-- tables), which cut the bytes and a fifth of the cost of an insert; contentless_delete
-- lets a session's rows be deleted by rowid (retention, a rewritten ledger).
CREATE VIRTUAL TABLE fact_fts USING fts5 (body, tier, tokenize = 'unicode61 remove_diacritics 2',
  content = '', contentless_delete = 1);
INSERT INTO fact_fts (fact_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
CREATE VIRTUAL TABLE episode_fts USING fts5 (goal, tokenize = 'unicode61 remove_diacritics 2',
  content = '', contentless_delete = 1);

CREATE TABLE failure (
  id INTEGER PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL, ledger TEXT ${CITED},
  t TEXT, type TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN (${list(FAILURE_KINDS)})),
  step TEXT, capability TEXT, tool TEXT, provider TEXT, schema TEXT,
  signature TEXT NOT NULL, detail TEXT NOT NULL,
  detail_trust TEXT NOT NULL CHECK (detail_trust IN ('T0', 'T1', 'T2')),
  attempt INTEGER NOT NULL,
  resolution TEXT CHECK (resolution IS NULL OR resolution IN (${list(RESOLUTIONS)})),
  resolved_by TEXT,
  digest TEXT,
  UNIQUE (session, seq)
);
CREATE INDEX failure_by_kind ON failure (kind, signature);
CREATE INDEX failure_by_capability ON failure (capability, kind);
CREATE INDEX failure_by_provider ON failure (provider, schema);
CREATE INDEX failure_by_identity ON failure (digest, schema, t);

-- the events that resolve failures: escalated, plan_created, declined, answer_sent
CREATE TABLE control_event (
  session TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
  step TEXT, target TEXT, outcome TEXT, PRIMARY KEY (session, seq)
) WITHOUT ROWID;

CREATE TABLE provider_call (
  session TEXT NOT NULL, seq INTEGER NOT NULL,
  step TEXT, provider TEXT NOT NULL, capability TEXT, schema TEXT,
  duration_ms REAL NOT NULL, outcome TEXT NOT NULL, attempt INTEGER, model_call INTEGER,
  t TEXT, digest TEXT,
  PRIMARY KEY (session, seq)
) WITHOUT ROWID;
CREATE INDEX provider_call_by_cost ON provider_call (provider, schema, duration_ms);
-- the policy's window: one identity's calls, newest first
CREATE INDEX provider_call_by_identity ON provider_call (digest, schema, t);

-- the trajectory cache (memory/trajectory.ts): a goal-only session's last plan, answered_at set
-- once it answered; a cache_dropped event of a later session retires its plan_key
CREATE TABLE trajectory (
  session TEXT PRIMARY KEY, seq INTEGER NOT NULL, intent TEXT NOT NULL, tools TEXT NOT NULL,
  plan_key TEXT NOT NULL, steps TEXT NOT NULL, answered_at TEXT
);
CREATE INDEX trajectory_by_intent ON trajectory (intent, answered_at);
CREATE TABLE trajectory_drop (
  session TEXT NOT NULL, seq INTEGER NOT NULL, plan_key TEXT NOT NULL, t TEXT NOT NULL,
  PRIMARY KEY (session, seq)
) WITHOUT ROWID;
CREATE INDEX trajectory_drop_by_key ON trajectory_drop (plan_key, t);
`;

/** Tables a session contributes rows to, keyed by the `session` column. */
export const SESSION_TABLES = ['fact', 'failure', 'control_event', 'provider_call', 'trajectory', 'trajectory_drop', 'episode', 'ledger'] as const;

/** Create every table and view (the database must be empty). */
export function createSchema(db: Database.Database): void {
  db.exec(TABLES_SQL);
  db.exec(VIEWS_SQL);
  db.prepare('INSERT INTO schema_version (version, created_at) VALUES (?, ?)').run(SCHEMA_VERSION, new Date().toISOString());
}

/** Drop every table and view this module or `views.ts` created. */
export function dropSchema(db: Database.Database): void {
  for (const v of VIEW_NAMES) db.exec(`DROP VIEW IF EXISTS ${v}`);
  const names = (): string[] =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[])
      .map((r) => r.name);
  // virtual tables first: an FTS table owns its shadow tables
  for (const name of names().filter((n) => n.endsWith('_fts'))) db.exec(`DROP TABLE IF EXISTS "${name}"`);
  for (const name of names()) db.exec(`DROP TABLE IF EXISTS "${name}"`);
}

/** The schema version stored in the database, or null when it has none. */
export function storedVersion(db: Database.Database): number | null {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (!has) return null;
  const row = db.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version: number } | undefined;
  return row?.version ?? null;
}

/** The secondary indexes of the tables (each `CREATE INDEX` of the schema), by name. */
const INDEX_SQL: ReadonlyMap<string, string> = new Map(
  // IF NOT EXISTS: two processes opening a database with one missing both restore it
  [...TABLES_SQL.matchAll(/CREATE INDEX (\w+) ON [^;]+;/g)].map((m) => [m[1]!, m[0].replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS')]),
);

/**
 * Drop the secondary indexes for a bulk load into an empty database (ingest.ts): rows go in
 * faster without them, and each is built once, sorted, by `restoreIndexes`. The constraints the
 * ingest relies on (primary keys, UNIQUE) stay. A load that dies before the restore leaves them
 * missing; the next open restores them (ensureSchema).
 */
export function dropIndexes(db: Database.Database): void {
  for (const name of INDEX_SQL.keys()) db.exec(`DROP INDEX IF EXISTS ${name}`);
}

/** Create every secondary index that is missing (after a bulk load, or one that died). */
export function restoreIndexes(db: Database.Database): void {
  const have = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]).map((r) => r.name));
  for (const [name, sql] of INDEX_SQL) if (!have.has(name)) db.exec(sql);
}

/** Make the schema current: create it when absent, drop and recreate it when the version differs, restore missing indexes. */
export function ensureSchema(db: Database.Database): 'created' | 'current' | 'rebuilt' {
  const v = storedVersion(db);
  if (v === SCHEMA_VERSION) {
    restoreIndexes(db);
    return 'current';
  }
  const empty = !db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') LIMIT 1").get();
  db.transaction(() => {
    if (!empty) dropSchema(db);
    createSchema(db);
  })();
  return empty ? 'created' : 'rebuilt';
}
