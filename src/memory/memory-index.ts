/**
 * MemoryIndex — the one handle on memory/episodic.db.
 *
 * Opens the database (WAL, schema made current), and gathers the three
 * layers over one connection: ingest (ledgers in), recall (path 1), failure
 * memory and the cost model. It owns the connection's life: `close()` once,
 * and every call afterwards is refused. It does not watch folders; the
 * daemon calls `ingestSession` between jobs (or `ingestAfterJob`).
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CostModel } from './cost.js';
import { FailureMemory } from './failures.js';
import type { IngestResult } from './ingest-events.js';
import { Ingestor, type DirResult } from './ingest.js';
import { askJournal } from './journal.js';
import { Recall, type EpisodeHit, type FactHit, type FieldHit, type RecallOptions } from './recall.js';
import { createSchema, dropSchema, ensureSchema, SCHEMA_VERSION } from './schema.js';

/** The page size of a new index, chosen by measurement (see open). */
export const PAGE_SIZE = 1024;

export interface MemoryStats {
  path: string;
  schema_version: number;
  bytes: number;
  ledgers: number;
  episodes: number;
  facts: number;
  fact_fields: number;
  failures: number;
  open_failures: number;
  provider_calls: number;
  skipped_lines: number;
}

export interface OpenOptions {
  /** read without writing: the file must exist, and the schema is not created or rebuilt */
  readonly?: boolean;
}

export class MemoryIndex {
  private ingestor!: Ingestor;
  private recaller!: Recall;
  private closed = false;

  private constructor(readonly db: Database.Database, readonly path: string, private readonly readonly: boolean) {
    this.wire();
  }

  /** Open (creating when absent) the database at `dbPath`. */
  static open(dbPath: string, opts: OpenOptions = {}): MemoryIndex {
    if (!opts.readonly) mkdirSync(dirname(dbPath), { recursive: true });
    const made = !opts.readonly && !existsSync(dbPath);
    const db = new Database(dbPath, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
    try {
      db.pragma('busy_timeout = 5000');
      if (!opts.readonly) {
        // 1 KiB pages for a new index: an ingest changes a few rows on many pages, and the WAL holds
        // each changed page whole. npm run bench (writes; 231 sessions, one transaction each, bytes
        // at the device per ledger event): 4 KiB pages 24.0 KB, 2 KiB 18.7 KB, 1 KiB 16.3 KB; a
        // rollback journal instead of the WAL 43.6 KB, with four syncs a session instead of 0.4
        if (made) db.pragma(`page_size = ${PAGE_SIZE}`);
        askJournal(db, 'wal'); // a bulk load in another process may hold a rollback journal (journal.ts)
        ensureSchema(db);
      } else {
        const v = (db.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version: number } | undefined)?.version;
        if (v !== SCHEMA_VERSION) {
          throw new Error(`${dbPath}: schema version ${v ?? 'missing'}, this build reads ${SCHEMA_VERSION}; run \`pico memory rebuild\``);
        }
      }
      return new MemoryIndex(db, dbPath, opts.readonly ?? false);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** (Re)create the helpers that hold prepared statements. */
  private wire(): void {
    if (!this.readonly) this.ingestor = new Ingestor(this.db);
    this.recaller = new Recall(this.db);
  }

  /** Refuse use after close, and writes on a read-only handle; a write goes back to the WAL when it can (journal.ts). */
  private check(write = false): void {
    if (this.closed) throw new Error(`memory index ${this.path} is closed; open a new one with MemoryIndex.open()`);
    if (write && this.readonly) throw new Error(`memory index ${this.path} was opened read-only; open it without { readonly: true } to ingest`);
    if (write && !this.db.inTransaction && this.db.pragma('journal_mode', { simple: true }) !== 'wal') askJournal(this.db, 'wal');
  }

  /** Ingest the new part of one session's ledger. */
  ingestSession(sessionDir: string): IngestResult {
    this.check(true);
    return this.ingestor.ingestSession(sessionDir);
  }

  /** Ingest several session folders in one transaction (the daemon's batch between jobs). */
  ingestSessions(sessionDirs: readonly string[]): IngestResult[] {
    this.check(true);
    return this.ingestor.ingestSessions(sessionDirs);
  }

  /** Ingest every session under a sessions/ folder; idempotent. */
  ingestDir(sessionsDir: string): DirResult {
    this.check(true);
    return this.ingestor.ingestDir(sessionsDir);
  }

  /**
   * Remove every row the named sessions contributed, in one transaction (retention calls it
   * for the sessions it removed). Every row is derived from its own session's ledger alone,
   * so the index then equals a rebuild over the sessions that remain.
   */
  forgetSessions(sessions: readonly string[]): void {
    this.check(true);
    this.db.transaction(() => {
      for (const s of sessions) this.ingestor.deleteSession(s);
    })();
  }

  /** Drop everything and read every ledger again. */
  rebuild(sessionsDir: string): DirResult {
    this.check(true);
    this.db.transaction(() => {
      dropSchema(this.db);
      createSchema(this.db);
    })();
    this.db.exec('VACUUM');
    this.wire();
    return this.ingestor.ingestDir(sessionsDir);
  }

  /** Facts matching free text, any trust. */
  recall(query: string, opts?: RecallOptions): FactHit[] {
    this.check();
    return this.recaller.recall(query, opts);
  }

  /** Facts for a control decision: T0/T2 only; throws TrustViolation if a T1 fact gets through. */
  recallForControl(query: string, opts?: RecallOptions): FactHit[] {
    this.check();
    return this.recaller.recallForControl(query, opts);
  }

  /** Facts whose projected numeric field lies strictly between `above` and `below`. */
  fieldRange(key: string, opts?: { below?: number; above?: number; schema?: string; limit?: number }): FieldHit[] {
    this.check();
    return this.recaller.fieldRange(key, opts);
  }

  /** Past episodes whose goal resembles `text`. */
  similarEpisodes(text: string, opts?: { limit?: number }): EpisodeHit[] {
    this.check();
    return this.recaller.similarEpisodes(text, opts);
  }

  /** Failure memory over this connection. */
  failures(): FailureMemory {
    this.check();
    return new FailureMemory(this.db);
  }

  /** The cost model over this connection, with declared costs from `manifestsDir` (manifests/providers). */
  cost(manifestsDir: string): CostModel {
    this.check();
    return new CostModel(this.db, manifestsDir);
  }

  /** Row counts and size, for `pico memory stats`. */
  stats(): MemoryStats {
    this.check();
    const count = (sql: string): number => (this.db.prepare(sql).get() as { n: number }).n;
    let bytes = 0;
    for (const suffix of ['', '-wal']) {
      try {
        bytes += statSync(this.path + suffix).size;
      } catch {
        /* no WAL file right now */
      }
    }
    return {
      path: this.path, schema_version: SCHEMA_VERSION, bytes,
      ledgers: count('SELECT COUNT(*) AS n FROM ledger'),
      episodes: count('SELECT COUNT(*) AS n FROM episode'),
      facts: count('SELECT COUNT(*) AS n FROM fact'),
      fact_fields: count('SELECT COUNT(*) AS n FROM fact_field'),
      failures: count('SELECT COUNT(*) AS n FROM failure'),
      open_failures: count('SELECT COUNT(*) AS n FROM failure WHERE resolution IS NULL'),
      provider_calls: count('SELECT COUNT(*) AS n FROM provider_call'),
      skipped_lines: count('SELECT COALESCE(SUM(skipped), 0) AS n FROM ledger'),
    };
  }

  /** Close the connection (checkpointing the WAL); later calls are refused. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
