/**
 * Recall, path 1: SQL filters and BM25 full-text search — zero model calls.
 *
 * Two entry points, not one: `recall()` serves anyone and returns facts of
 * every trust level; `recallForControl()` serves the planner and router and
 * returns T0/T2 only. It filters in SQL *and* asserts on every row, throwing
 * `TrustViolation` if a T1 fact ever reaches it — a filter that can only fail
 * silently is one nobody notices breaking. Every hit carries its provenance
 * (`cite()` → `sessions/<id>/events.jsonl#<seq>`).
 *
 * Path 2 (vectors) is the `Embedder` interface and nothing more: an index
 * that must be kept current is added when path 1 is measured to fall short.
 * User text never reaches FTS5 syntax: it is cut into quoted word tokens.
 */
import type Database from 'better-sqlite3';
import type { BudgetClass } from '../ledger/events.js';
import { isControlSafe, parseTrust, TrustViolation, type Trust } from '../base/trust.js';

/** Path 2's plug point; deliberately without an implementation. */
export interface Embedder {
  readonly id: string;
  readonly dims: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Where a fact came from: the event that added it. */
export class Provenance {
  constructor(readonly session: string, readonly ledger: string, readonly seq: number) {}
  /** `sessions/<id>/events.jsonl#<seq>` */
  cite(): string {
    return `${this.ledger}#${this.seq}`;
  }
  toJSON(): { session: string; ledger: string; seq: number; cite: string } {
    return { session: this.session, ledger: this.ledger, seq: this.seq, cite: this.cite() };
  }
}

export interface FactHit {
  id: number;
  step: string | null;
  provider: string | null;
  capability: string | null;
  schema: string | null;
  trust: Trust;
  subject: string | null;
  observed_at: string | null;
  valid_until: string | null;
  confidence: number | null;
  payload: unknown;
  /** BM25 score as FTS5 reports it: lower is better */
  score: number;
  provenance: Provenance;
}

export interface RecallOptions {
  budgetClass?: BudgetClass;
  /** default by budget class: interactive 5, attended 10, background 20, batch 50 */
  limit?: number;
  schema?: string;
  subject?: string;
  /** only facts still valid at this ISO time (valid_until null or not before it) */
  validAt?: string;
}

const DEFAULT_LIMIT: Record<BudgetClass, number> = { interactive: 5, attended: 10, background: 20, batch: 50 };
const MAX_TOKENS = 16;

/** Quoted FTS5 terms for free text, or null when it holds no word at all. */
export function ftsTerms(query: string): string[] | null {
  const words = query.normalize('NFKC').match(/[\p{L}\p{N}]+/gu);
  if (!words) return null;
  return [...new Set(words.map((w) => w.toLowerCase()))].slice(0, MAX_TOKENS).map((w) => `"${w}"`);
}

interface Row {
  id: number; session: string; seq: number; ledger: string; step: string | null; provider: string | null;
  capability: string | null; schema: string | null; trust: string; subject: string | null;
  observed_at: string | null; valid_until: string | null; confidence: number | null; payload: string; score: number;
}

/** Turn a row into a hit; the trust column is parsed, so a corrupt value is an error, not a default. */
function toHit(r: Row): FactHit {
  return {
    id: r.id, step: r.step, provider: r.provider, capability: r.capability, schema: r.schema,
    trust: parseTrust(r.trust, `fact ${r.ledger}#${r.seq} trust`), subject: r.subject,
    observed_at: r.observed_at, valid_until: r.valid_until, confidence: r.confidence,
    payload: JSON.parse(r.payload) as unknown, score: r.score,
    provenance: new Provenance(r.session, r.ledger, r.seq),
  };
}

/** Throw TrustViolation unless every hit is T0 or T2. */
export function assertControlSafe(hits: readonly Pick<FactHit, 'trust' | 'provenance'>[]): void {
  for (const h of hits) {
    if (!isControlSafe(h.trust)) {
      throw new TrustViolation(
        `recallForControl: fact ${h.provenance.cite()} is ${h.trust}; outside data must never reach a control decision. ` +
          'This is a bug in the memory trust filter, not in the caller: report it and use recall() for data.',
      );
    }
  }
}

/**
 * The SQL of a recall query with these filters (exported so a test can read its query plan).
 * Without a filter on fact, the best `limit` rowids are found in the index alone and only they
 * are joined. The score is bm25() with the weights of the table's configured rank (body 1, tier
 * 0; schema.ts): FTS5's own `ORDER BY rank` prepares an inner statement on every query and cost
 * a third more (issue 24). Equal scores come oldest fact first, as they did.
 */
export function recallSql(filters: Pick<RecallOptions, 'schema' | 'subject' | 'validAt'>, trust: readonly Trust[] | null): string {
  const where = ['fact_fts MATCH @match'];
  if (trust) where.push(`f.trust IN (${trust.map((t) => `'${t}'`).join(', ')})`);
  if (filters.schema !== undefined) where.push('f.schema = @schema');
  if (filters.subject !== undefined) where.push('f.subject = @subject');
  if (filters.validAt !== undefined) where.push('(f.valid_until IS NULL OR f.valid_until >= @validAt)');
  const score = 'bm25(fact_fts, 1.0, 0.0)';
  return where.length === 1
    ? `SELECT f.*, h.score FROM (SELECT rowid AS id, ${score} AS score FROM fact_fts WHERE fact_fts MATCH @match
        ORDER BY score, rowid LIMIT @limit) h JOIN fact f ON f.id = h.id ORDER BY h.score, h.id`
    : `SELECT f.*, ${score} AS score FROM fact_fts JOIN fact f ON f.id = fact_fts.rowid
        WHERE ${where.join(' AND ')} ORDER BY score, f.id LIMIT @limit`;
}

/** The SQL of fieldRange for the bounds it is given (exported for the query-plan test). */
export function fieldRangeSql(opts: { below?: number; above?: number; schema?: string }): string {
  const where = ['ff.key = @key', 'ff.num IS NOT NULL'];
  if (opts.below !== undefined) where.push('ff.num < @below');
  if (opts.above !== undefined) where.push('ff.num > @above');
  if (opts.schema !== undefined) where.push('f.schema = @schema');
  return `SELECT ff.key, ff.num, f.id, f.session, f.seq, f.ledger, f.schema, f.trust, f.subject, f.observed_at
      FROM fact_field ff JOIN fact f ON f.id = ff.fact_id WHERE ${where.join(' AND ')}
      ORDER BY f.observed_at, f.session, f.seq LIMIT @limit`;
}

/** The SQL of similarEpisodes (exported for the query-plan test). */
export const SIMILAR_EPISODES_SQL = `SELECT e.session, e.goal, e.outcome, e.composition, e.fact_count, e.failure_count, e.gap_count,
      e.started_at, e.ended_at, episode_fts.rank AS score
      FROM episode_fts JOIN episode e ON e.id = episode_fts.rowid
      WHERE episode_fts MATCH @match ORDER BY episode_fts.rank LIMIT @limit`;

/** Path-1 recall over one connection. */
export class Recall {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /** Facts matching free text, best first; any trust level. */
  recall(query: string, opts: RecallOptions = {}): FactHit[] {
    return this.search(query, opts, null);
  }

  /** Facts for the planner/router: T0 and T2 only, asserted row by row. */
  recallForControl(query: string, opts: RecallOptions = {}): FactHit[] {
    const hits = this.search(query, opts, ['T0', 'T2']);
    assertControlSafe(hits);
    return hits;
  }

  /**
   * All known terms first; when nothing matches all of them, any term (BM25 puts
   * the better matches first). Terms no fact contains are dropped, so an unknown
   * word does not veto the rest.
   */
  private search(query: string, opts: RecallOptions, trust: Trust[] | null): FactHit[] {
    const limit = opts.limit ?? DEFAULT_LIMIT[opts.budgetClass ?? 'interactive'];
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`recall: limit must be a positive integer, got ${limit}`);
    const terms = (ftsTerms(query) ?? []).filter((t) => this.known(t));
    if (terms.length === 0) return [];
    const all = this.run(terms.join(' '), opts, trust, limit);
    if (all.length > 0 || terms.length === 1) return all;
    return this.run(terms.join(' OR '), opts, trust, limit);
  }

  /** True when some fact's text holds the (quoted) term; stops at the first match. */
  private known(quoted: string): boolean {
    return this.stmt('SELECT 1 FROM fact_fts WHERE fact_fts MATCH ? LIMIT 1').get(`body : ${quoted}`) !== undefined;
  }

  /** One FTS5 query with the SQL filters the options ask for; trust is filtered in the index and in SQL. */
  private run(terms: string, opts: RecallOptions, trust: Trust[] | null, limit: number): FactHit[] {
    const match = trust
      ? `body : (${terms}) AND tier : (${trust.map((t) => `"${t.toLowerCase()}"`).join(' OR ')})`
      : `body : (${terms})`;
    const params: Record<string, unknown> = { match, limit };
    if (opts.schema !== undefined) params.schema = opts.schema;
    if (opts.subject !== undefined) params.subject = opts.subject;
    if (opts.validAt !== undefined) params.validAt = opts.validAt;
    return (this.stmt(recallSql(opts, trust)).all(params) as Row[]).map(toHit);
  }

  /** Facts whose projected field `key` lies strictly between `above` and `below`, oldest first. */
  fieldRange(key: string, opts: { below?: number; above?: number; schema?: string; limit?: number } = {}): FieldHit[] {
    const params: Record<string, unknown> = { key, limit: opts.limit ?? 1000 };
    if (opts.below !== undefined) params.below = opts.below;
    if (opts.above !== undefined) params.above = opts.above;
    if (opts.schema !== undefined) params.schema = opts.schema;
    return (this.stmt(fieldRangeSql(opts)).all(params) as (Omit<FieldHit, 'provenance' | 'trust'> & { session: string; seq: number; ledger: string; trust: string })[])
      .map((r) => ({
        id: r.id, key: r.key, num: r.num, schema: r.schema, subject: r.subject, observed_at: r.observed_at,
        trust: parseTrust(r.trust, `fact ${r.ledger}#${r.seq} trust`),
        provenance: new Provenance(r.session, r.ledger, r.seq),
      }));
  }

  /** Past episodes whose goal resembles `text`, best first. */
  similarEpisodes(text: string, opts: { limit?: number } = {}): EpisodeHit[] {
    const terms = ftsTerms(text);
    if (!terms) return [];
    return this.stmt(SIMILAR_EPISODES_SQL).all({ match: terms.join(' OR '), limit: opts.limit ?? 5 }) as EpisodeHit[];
  }

  /** Prepared statements by SQL text. */
  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}

export interface FieldHit {
  id: number;
  key: string;
  num: number;
  schema: string | null;
  subject: string | null;
  observed_at: string | null;
  trust: Trust;
  provenance: Provenance;
}

export interface EpisodeHit {
  session: string;
  goal: string | null;
  outcome: string | null;
  composition: string | null;
  fact_count: number;
  failure_count: number;
  gap_count: number;
  started_at: string | null;
  ended_at: string | null;
  score: number;
}
