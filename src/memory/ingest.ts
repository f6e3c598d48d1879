/**
 * Ingest: ledgers in, rows out — incremental, idempotent, never half a session.
 *
 * The ledgers are the only truth; this turns them into the rows of
 * `schema.ts`. The `ledger` table remembers how many bytes and which seq of
 * each ledger were consumed, so re-running adds nothing and a ledger that grew
 * is continued where it stopped; a ledger that shrank was rewritten and its
 * session is read again from the start. After each session its failures'
 * resolutions are recomputed, because a later event can change them.
 * `ingestSession` is one transaction; `ingestDir` commits sessions in batches
 * of 500 (all-or-nothing per batch), because a commit per session costs a
 * WAL write and an FTS5 segment flush each and made ingest ten times slower.
 *
 * It reads both this implementation's ledgers and the Python picoharness
 * format (seed 001), which share the vocabulary but differ in detail: there a
 * fact carries no trust and inherits the trust of its step's `step_started`.
 * When both are present the more tainted wins (memory never upgrades trust);
 * when neither is, or the value is not a trust level, the fact is T1 — for a
 * foreign ledger the safe reading, not a silent default for our own writer,
 * which validates its events before they are written. Unknown event types are
 * ignored. It does not validate events against `events.ts`: a reader of
 * foreign ledgers takes the fields it needs.
 */
import type Database from 'better-sqlite3';
import { readdirSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { basename, join } from 'node:path';
import { COMPOSITION_FILE, compositionHash, type Composition } from '../ledger/composition.js';
import { applyEvents, type IngestResult } from './ingest-events.js';
import { prepareIngest, type Event, type IdentityOf, type IngestStatements, type LedgerRow, type StepInfo } from './ingest-sql.js';
import { manifestIdOf, providerDigests } from './provider-identity.js';
import { readLedger, readWholeLedger, ledgerSize, type LedgerChunk } from './ledger-reader.js';
import { askJournal } from './journal.js';
import { HeldFields } from './ingest-rows.js';
import { dropIndexes, restoreIndexes } from './schema.js';
import { isSessionFolderName } from './paths.js';

export interface DirResult {
  sessions: number;
  changed: number;
  events: number;
  facts: number;
  failures: number;
  skipped: number;
}

/** Sessions per commit in `ingestDir`. */
const BATCH = 500;
/** From this many sessions on, an ingest into an empty database is a bulk load (see ingestDir). */
const BULK_SESSIONS = 200;

/** Ingest over one connection; its prepared statements are reused for every session. */
export class Ingestor {
  private readonly s: IngestStatements;
  /** composition hash -> provider id -> identity digest; compositions are few and never change */
  private readonly digests = new Map<string, Record<string, string>>();
  /**
   * Composition documents by their text, each parsed once with its hash computed once: the
   * sessions of a burst share one composition, and hashing its canonical form for each of them
   * cost the session worker more than running the session had (issue 24). Few and bounded.
   */
  private readonly documents = new Map<string, { doc: Composition; hash: string | null }>();
  /**
   * The text of a composition document by the identity of the file it was read from (device,
   * inode, size, and modification time to the nanosecond): the sessions of a burst hard-link one
   * document of some 200 KB (sessions/.compositions), and reading it again for each was a tenth
   * of the session worker's time per job (issue 32 profile). A write to the file changes its
   * modification time and a new file in its place its inode, so a stale text is not used. (Not
   * the change time: every new hard link to the document changes that.) Two writes of the same
   * size within one tick of the kernel's file clock could share an identity; even then a text is
   * used only when it hashes to the composition the ledger cites (documentIn's callers), so a
   * stale one can cost an identity, never give a wrong one.
   */
  private readonly texts = new Map<string, string>();

  /** The fact_field rows of a batch, inserted many at a time (ingest-rows.ts). */
  private readonly held: HeldFields;
  /** Inside `inBatch`: a transaction is open and `held` is flushed before it commits. */
  private batching = false;

  constructor(private readonly db: Database.Database) {
    this.s = prepareIngest(db);
    this.held = new HeldFields(this.s.fields);
  }

  /**
   * Run `fn` as one batch: inside a transaction (the caller's, or one opened here; `immediate`
   * takes the write lock first), with the held rows inserted before it ends. A throw drops the
   * held rows: the transaction they belong to is rolling back.
   */
  private inBatch<T>(fn: () => T, immediate = false): T {
    if (this.batching) return fn();
    this.batching = true;
    try {
      const body = (): T => {
        const out = fn();
        this.held.flush();
        return out;
      };
      if (this.db.inTransaction) return body();
      const tx = this.db.transaction(body);
      return immediate ? tx.immediate() : tx();
    } catch (e) {
      this.held.discard();
      throw e;
    } finally {
      this.batching = false;
    }
  }

  /**
   * Ingest several session folders as one batch, one transaction that takes the write lock
   * first (the daemon's burst between jobs).
   */
  ingestSessions(sessionDirs: readonly string[]): IngestResult[] {
    return this.inBatch(() => sessionDirs.map((d) => this.ingestSession(d)), true);
  }

  /** Ingest every session folder under `sessionsDir` (not inbox/, rejected/ or dot-folders), in name order. */
  ingestDir(sessionsDir: string): DirResult {
    const out: DirResult = { sessions: 0, changed: 0, events: 0, facts: 0, failures: 0, skipped: 0 };
    let names: string[];
    try {
      names = readdirSync(sessionsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && isSessionFolderName(d.name))
        .map((d) => d.name)
        .sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw e;
    }
    // many sessions into an empty database (a first ingest, a rebuild): a bulk load, the
    // secondary indexes built once at the end instead of row by row (schema.ts dropIndexes)
    const bulk = names.length >= BULK_SESSIONS && this.s.anyLedger.get() === undefined;
    // a bulk load alone with the database writes its new pages once, in a rollback journal (journal.ts)
    const rollback = bulk && !this.db.inTransaction && askJournal(this.db, 'delete') === 'delete';
    // immediate: the write lock first, so a schema read then write cannot meet another writer
    if (bulk) this.db.transaction(() => dropIndexes(this.db)).immediate();
    try {
      // sessions in batches, all-or-nothing per batch (so never half a session): one
      // commit per batch keeps WAL page writes and FTS5 segment flushes few
      // a bulk load skips looking up rows of its sessions only while every ledger row is its own:
      // another process ingesting the same folder at once (the daemon's idle turn and a `pico
      // recall`) makes it look them up again. Every batch takes the write lock first (immediate),
      // so nobody writes between that count and its own rows, and a batch that read first never
      // finds another process committed before its first write: SQLite then refuses the write at
      // once (a stale read, no waiting), which failed one of two `pico memory ingest` runs started
      // together on an empty database whenever the other had committed a batch before it looked
      let ours = 0;
      for (let i = 0; i < names.length; i += BATCH) {
        const batch = names.slice(i, i + BATCH);
        this.inBatch(() => {
          const alone = bulk && (this.s.countLedger.get() as { n: number }).n === ours;
          for (const name of batch) this.addTo(out, this.ingestSession(join(sessionsDir, name), alone));
          if (alone) ours = (this.s.countLedger.get() as { n: number }).n;
        }, true);
      }
    } finally {
      if (bulk) this.db.transaction(() => restoreIndexes(this.db)).immediate();
      if (rollback) askJournal(this.db, 'wal');
    }
    return out;
  }

  /** Add one session's result to a folder's totals. */
  private addTo(out: DirResult, r: IngestResult): void {
    if (r.status === 'missing') return;
    out.sessions++;
    if (r.status !== 'unchanged') out.changed++;
    out.events += r.events;
    out.facts += r.facts;
    out.failures += r.failures;
    out.skipped += r.skipped;
  }

  /**
   * Ingest what is new in one session folder's events.jsonl; the folder name is the session id.
   * `unseen`: the database holds nothing of this session yet (a bulk load into an empty one).
   * Outside a batch it is a batch of its own.
   */
  ingestSession(sessionDir: string, unseen = false): IngestResult {
    return this.batching ? this.ingestOne(sessionDir, unseen) : this.inBatch(() => this.ingestOne(sessionDir, unseen));
  }

  /** ingestSession inside a batch. */
  private ingestOne(sessionDir: string, unseen: boolean): IngestResult {
    const session = basename(sessionDir);
    const path = join(sessionDir, 'events.jsonl');
    const result: IngestResult = { session, status: 'unchanged', events: 0, facts: 0, failures: 0, skipped: 0, tornTail: false };
    let prev: LedgerRow | undefined;
    let rewritten = false;
    let read: LedgerChunk | null;
    if (!unseen) {
      prev = this.s.ledger.get(session) as LedgerRow | undefined;
      // no ledger row, read in this transaction: the database holds nothing of the session (every
      // row of a session goes in with its ledger row, in one transaction, and goes out with it)
      unseen = prev === undefined;
    }
    if (unseen) read = readWholeLedger(path); // nothing read before: no size to compare first
    else {
      const size = ledgerSize(path);
      if (size === null) return { ...result, status: 'missing' };
      if (prev!.bytes === size) return result;
      rewritten = size < prev!.bytes;
      read = readLedger(path, rewritten ? 0 : prev!.bytes, size);
    }
    if (read === null) return { ...result, status: 'missing' };
    const chunk = read;
    const from: LedgerRow = prev && !rewritten ? prev : { bytes: 0, next_seq: 0, events: 0, skipped: 0, steps: '{}' };
    result.tornTail = chunk.tornTail;
    if (chunk.end === from.bytes && !rewritten) return result;
    result.status = rewritten ? 'rewritten' : prev ? 'grown' : 'new';
    const write = (): void => {
      if (rewritten) this.deleteSession(session);
      let nextSeq = from.next_seq;
      const fresh: Event[] = [];
      for (const { event } of chunk.lines) {
        if (event.seq < nextSeq) result.skipped++;
        else {
          fresh.push(event);
          nextSeq = event.seq + 1;
        }
      }
      result.skipped += chunk.skipped;
      result.events = fresh.length;
      const steps = new Map(Object.entries(JSON.parse(from.steps) as Record<string, StepInfo>));
      const doc = this.documentIn(sessionDir);
      // a trajectory entry is keyed from the document only when it is the composition the ledger cites
      const checked = new Map<string, Composition | null>();
      const verified = (hash: string | null): Composition | null => {
        if (hash === null) return null;
        if (!checked.has(hash)) {
          const c = doc();
          checked.set(hash, c && this.hashOf(c) === hash ? c : null);
        }
        return checked.get(hash)!;
      };
      applyEvents(this.s, session, fresh, steps, result, this.identityIn(doc), verified, unseen, this.held);
      this.s.saveLedger.run(
        session, chunk.end, nextSeq, from.events + result.events, from.skipped + result.skipped,
        new Date().toISOString(), JSON.stringify(Object.fromEntries(steps)),
      );
    };
    // always inside a batch's transaction, with no savepoint: FTS5 would flush a segment at every one
    write();
    return result;
  }

  /**
   * Provider identities under the composition a session's ledger cites, from the composition
   * document beside it. A document that is missing, unreadable or does not hash to the cited
   * composition gives no identity (its calls then count for no provider's current identity).
   */
  private identityIn(document: () => Composition | null): IdentityOf {
    let tried = false;
    return (hash, provider) => {
      if (hash === null || provider === null) return null;
      let table = this.digests.get(hash);
      if (!table && !tried) {
        tried = true;
        const doc = document();
        if (doc && this.hashOf(doc) === hash) this.digests.set(hash, (table = providerDigests(doc)));
      }
      if (!table) return null;
      const id = manifestIdOf(provider, Object.keys(table));
      return id === null ? null : table[id]!;
    };
  }

  /** The composition document beside a session's ledger, read at most once (null when missing or unreadable). */
  private documentIn(sessionDir: string): () => Composition | null {
    let doc: Composition | null | undefined;
    return () => {
      if (doc !== undefined) return doc;
      try {
        // a missing document is common (foreign ledgers): asked without a thrown error, which costs
        // more than the read (a tenth of ingest over 5,000 such sessions; issue 24)
        const file = join(sessionDir, COMPOSITION_FILE);
        const st = statSync(file, { throwIfNoEntry: false, bigint: true });
        doc = st ? this.parsedDocument(this.textOf(file, st)) : null;
      } catch {
        doc = null; // no document (a foreign or trimmed session): no identity, no trajectory entry
      }
      return doc;
    };
  }

  /** The text of the file `st` describes (see `texts`). */
  private textOf(file: string, st: BigIntStats): string {
    const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
    const hit = this.texts.get(key);
    if (hit !== undefined) return hit;
    const text = readFileSync(file, 'utf8');
    if (this.texts.size >= 8) this.texts.clear();
    // written between the stat and the read: the next stat sees the new time, never this key again
    this.texts.set(key, text);
    return text;
  }

  /** A composition document's text parsed, the same object for the same text (see `documents`). */
  private parsedDocument(text: string): Composition {
    const hit = this.documents.get(text);
    if (hit) return hit.doc;
    if (this.documents.size >= 8) this.documents.clear();
    const doc = JSON.parse(text) as Composition;
    this.documents.set(text, { doc, hash: null });
    return doc;
  }

  /** compositionHash of a document from documentIn, computed once per distinct text. */
  private hashOf(doc: Composition): string {
    for (const entry of this.documents.values()) {
      if (entry.doc === doc) return (entry.hash ??= compositionHash(doc));
    }
    return compositionHash(doc);
  }

  /** Remove every row a session contributed. */
  deleteSession(session: string): void {
    this.held.flush(); // a held fact_field row of the session would outlive its fact
    this.s.delFields.run(session);
    this.s.delFactFts.run(session);
    this.s.delEpisodeFts.run(session);
    for (const d of this.s.del) d.run(session);
  }
}
