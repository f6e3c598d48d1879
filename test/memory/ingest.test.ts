/**
 * Ingest claims (issue 6): "ingest twice adds nothing", "a rebuild loses
 * nothing", a grown ledger is continued, a torn last line is skipped and picked
 * up once completed, and a Python-format ledger (seed 001) reads as well as ours.
 */
import Database from 'better-sqlite3';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/memory-gen.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { ROWS_PER_INSERT } from '../../src/memory/ingest-sql.js';
import { ledgerCitePath } from '../../src/memory/paths.js';
import { dropIndexes } from '../../src/memory/schema.js';
import { initRoot } from '../../src/root/init.js';
import { picoAsync } from '../daemon/spawn.js';
import { appendRaw, dumpContent, escalatingSession, linesFrom, writeSession, useTempIndex } from './helpers.js';

const ctx = useTempIndex();

describe('ingest', () => {
  it('ingesting twice adds nothing', () => {
    const gen = generateSessions(ctx.t.sessions, { sessions: 40 });
    const first = ctx.ix.ingestDir(ctx.t.sessions);
    expect(first.events).toBe(gen.events);
    expect(first.facts).toBe(gen.facts);
    const before = dumpContent(ctx.ix.db);
    const again = ctx.ix.ingestDir(ctx.t.sessions);
    expect(again).toMatchObject({ sessions: 40, changed: 0, events: 0, facts: 0, failures: 0 });
    expect(dumpContent(ctx.ix.db)).toEqual(before);
  });

  it('a rebuild loses nothing: delete the database, rebuild, identical content', () => {
    generateSessions(ctx.t.sessions, { sessions: 30 });
    writeSession(ctx.t.sessions, 'x-escalating', escalatingSession());
    // grow one ledger in two steps, so the first database is built incrementally
    const dir = writeSession(ctx.t.sessions, 'y-growing', escalatingSession().slice(0, 5));
    ctx.ix.ingestDir(ctx.t.sessions);
    appendRaw(dir, linesFrom('y-growing', 5, escalatingSession().slice(5)));
    ctx.ix.ingestDir(ctx.t.sessions);
    const incremental = dumpContent(ctx.ix.db);
    ctx.ix.close();
    for (const f of ['', '-wal', '-shm']) rmSync(ctx.t.db + f, { force: true });
    ctx.ix = MemoryIndex.open(ctx.t.db);
    ctx.ix.rebuild(ctx.t.sessions);
    const rebuilt = dumpContent(ctx.ix.db);
    expect(rebuilt.fact?.length).toBeGreaterThan(90);
    expect(rebuilt).toEqual(incremental);
  });

  it('rebuild() on an open index gives the same content as a fresh ingest', () => {
    generateSessions(ctx.t.sessions, { sessions: 12 });
    ctx.ix.ingestDir(ctx.t.sessions);
    const before = dumpContent(ctx.ix.db);
    const r = ctx.ix.rebuild(ctx.t.sessions);
    expect(r.sessions).toBe(12);
    expect(dumpContent(ctx.ix.db)).toEqual(before);
  });

  it('a ledger that grew is continued from where it stopped', () => {
    const events = escalatingSession();
    const dir = writeSession(ctx.t.sessions, 's-grow', events.slice(0, 4));
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ status: 'new', events: 4, facts: 0 });
    appendRaw(dir, linesFrom('s-grow', 4, events.slice(4)));
    const r = ctx.ix.ingestSession(dir);
    expect(r).toMatchObject({ status: 'grown', events: events.length - 4, facts: 2, failures: 1 });
    expect(ctx.ix.db.prepare('SELECT COUNT(*) AS n FROM fact').get()).toEqual({ n: 2 });
  });

  it('a torn last line is skipped, never fatal, and picked up once completed', () => {
    const events = escalatingSession();
    const dir = writeSession(ctx.t.sessions, 's-torn', events.slice(0, 7));
    const line = linesFrom('s-torn', 7, [events[7]!]);
    appendRaw(dir, line.slice(0, 40)); // power loss mid-write
    const r1 = ctx.ix.ingestSession(dir);
    expect(r1).toMatchObject({ events: 7, facts: 0, tornTail: true });
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ status: 'unchanged', events: 0, tornTail: true });
    appendRaw(dir, line.slice(40)); // the writer finishes the line
    const r2 = ctx.ix.ingestSession(dir);
    expect(r2).toMatchObject({ status: 'grown', events: 1, facts: 1, skipped: 0, tornTail: false });
  });

  it('a complete last line without its newline is read, and the newline added later changes nothing', () => {
    const dir = writeSession(ctx.t.sessions, 's-nonl', []);
    const text = linesFrom('s-nonl', 0, escalatingSession().slice(0, 3));
    appendRaw(dir, text.slice(0, -1));
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ events: 3, tornTail: false });
    appendRaw(dir, '\n');
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ events: 0, skipped: 0 });
  });

  it('a bad line in the middle is skipped and counted, the rest is read', () => {
    const dir = writeSession(ctx.t.sessions, 's-bad', escalatingSession().slice(0, 3));
    appendRaw(dir, '{"this is not json\n' + linesFrom('s-bad', 3, escalatingSession().slice(3, 5)));
    const r = ctx.ix.ingestSession(dir);
    expect(r).toMatchObject({ events: 5, skipped: 1, failures: 1 });
  });

  it('an unknown event type is ignored', () => {
    const dir = writeSession(ctx.t.sessions, 's-unknown', [
      { type: 'composition', hash: 'h', machine: 'm', config: 'c' },
      { type: 'telemetry_blip', value: 3 },
      { type: 'answer_sent', outcome: 'answered', text: '', missing: [], trust: 'T2', spent: { wall_ms: 0, model_calls: 0, cpu_ms: 0 } },
    ]);
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ events: 3, facts: 0, failures: 0, skipped: 0 });
    expect(ctx.ix.db.prepare('SELECT outcome, composition FROM episode').get()).toEqual({ outcome: 'answered', composition: 'h' });
  });

  it('a ledger that shrank (rewritten) is read again from the start, without duplicates', () => {
    const dir = writeSession(ctx.t.sessions, 's-shrink', escalatingSession());
    ctx.ix.ingestSession(dir);
    writeSession(ctx.t.sessions, 's-shrink', escalatingSession().slice(0, 8));
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ status: 'rewritten', facts: 1 });
    expect(ctx.ix.db.prepare('SELECT COUNT(*) AS n FROM fact').get()).toEqual({ n: 1 });
    expect(ctx.ix.db.prepare('SELECT COUNT(*) AS n FROM fact_fts').get()).toEqual({ n: 1 });
  });

  it('skips sessions/inbox, sessions/rejected and dot-folders', () => {
    for (const name of ['inbox', 'rejected', '.tmp']) writeSession(ctx.t.sessions, name, escalatingSession());
    writeSession(ctx.t.sessions, 'real', escalatingSession());
    const r = ctx.ix.ingestDir(ctx.t.sessions);
    expect(r.sessions).toBe(1);
    expect(ctx.ix.db.prepare('SELECT session FROM episode').all()).toEqual([{ session: 'real' }]);
  });

  it('a folder without events.jsonl is not a session yet', () => {
    mkdirSync(join(ctx.t.sessions, 'empty'));
    expect(ctx.ix.ingestDir(ctx.t.sessions).sessions).toBe(0);
  });

  it('reads a Python-format ledger (seed 001): the fact inherits T1 from its step, and the failure resolves to escalated', () => {
    cpSync(join(import.meta.dirname, 'fixtures', 'job-0001'), join(ctx.t.sessions, 'job-0001'), { recursive: true });
    const r = ctx.ix.ingestDir(ctx.t.sessions);
    expect(r).toMatchObject({ sessions: 1, events: 6, facts: 1, failures: 1, skipped: 0 });
    expect(ctx.ix.db.prepare('SELECT trust, provider, schema, payload FROM fact').get()).toEqual({
      trust: 'T1', provider: 'extract-1.2b-q4', schema: 'log_summary@2', payload: '{"error_count":7,"first_error":"disk I/O timeout"}',
    });
    expect(ctx.ix.db.prepare('SELECT kind, tool, detail_trust, attempt, resolution, resolved_by FROM failure').get()).toEqual({
      kind: 'schema', tool: 'read_syslog', detail_trust: 'T1', attempt: 0, resolution: 'escalated', resolved_by: 'extract-1.2b-q4',
    });
    expect(ctx.ix.db.prepare('SELECT goal, outcome, composition, failure_count FROM episode').get()).toEqual({
      goal: 'why is the disk full', outcome: 'answered', composition: 'sha256:41d0', failure_count: 1,
    });
    expect(ctx.ix.recall('disk timeout')[0]!.provenance.cite()).toBe('sessions/job-0001/events.jsonl#4');
  });

  it('a fact never becomes more trusted than its step: T2 claimed on a T1 step is stored as T1', () => {
    const events = escalatingSession();
    (events[7] as { trust: string }).trust = 'T2';
    writeSession(ctx.t.sessions, 's-claim', events);
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(ctx.ix.db.prepare("SELECT trust FROM fact WHERE step = 's1'").get()).toEqual({ trust: 'T1' });
  });

  it('a fact with no trust anywhere, or an invalid one, is stored as T1', () => {
    writeSession(ctx.t.sessions, 's-notrust', [
      { type: 'fact_added', step: 'sx', provider: 'p', schema: 'a@1', fact: { v: 1 } },
      { type: 'fact_added', step: 'sx', provider: 'p', schema: 'a@1', fact: { v: 2 }, trust: 't0' },
    ]);
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(ctx.ix.db.prepare('SELECT trust FROM fact ORDER BY seq').all()).toEqual([{ trust: 'T1' }, { trust: 'T1' }]);
  });

  it('a step started in one ingest still lends its trust to a fact that arrives in the next', () => {
    const dir = writeSession(ctx.t.sessions, 's-split', [
      { type: 'step_started', step: 's1', tool: 'read_syslog', trust: 'T1', capability: 'extract@1', schema: 'log_summary@2' },
    ]);
    ctx.ix.ingestSession(dir);
    appendRaw(dir, linesFrom('s-split', 1, [{ type: 'fact_added', step: 's1', provider: 'p', fact: { a: 1 } }]));
    ctx.ix.ingestSession(dir);
    expect(ctx.ix.db.prepare('SELECT trust, schema FROM fact').get()).toEqual({ trust: 'T1', schema: 'log_summary@2' });
  });

  it('the database survives close and reopen with its bookkeeping (nothing re-read)', () => {
    generateSessions(ctx.t.sessions, { sessions: 5 });
    ctx.ix.ingestDir(ctx.t.sessions);
    ctx.ix.close();
    ctx.ix = MemoryIndex.open(ctx.t.db);
    expect(ctx.ix.ingestDir(ctx.t.sessions).events).toBe(0);
  });

  it('an index from another schema version is dropped and rebuilt on open', () => {
    generateSessions(ctx.t.sessions, { sessions: 3 });
    ctx.ix.ingestDir(ctx.t.sessions);
    ctx.ix.db.prepare('UPDATE schema_version SET version = version - 1').run();
    ctx.ix.close();
    ctx.ix = MemoryIndex.open(ctx.t.db);
    expect(ctx.ix.stats().facts).toBe(0);
    expect(ctx.ix.ingestDir(ctx.t.sessions).facts).toBe(9);
  });

  it('an index of schema 3 (full-text tables holding a copy of the text, ledger paths stored) is rebuilt on open, and recall finds the same facts', () => {
    generateSessions(ctx.t.sessions, { sessions: 6 });
    ctx.ix.ingestDir(ctx.t.sessions);
    const hits = ctx.ix.recall('host-a nginx').map((h) => h.provenance.cite());
    const ftsSql = (): string => (ctx.ix.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'fact_fts'").get() as { sql: string }).sql;
    // the shape schema 3 had: the text kept in the index's content table
    ctx.ix.db.exec(`DROP TABLE fact_fts; CREATE VIRTUAL TABLE fact_fts USING fts5 (body, tier, tokenize = 'unicode61 remove_diacritics 2');
      UPDATE schema_version SET version = 3`);
    expect(ftsSql()).not.toMatch(/content\s*=\s*''/);
    ctx.ix.close();
    ctx.ix = MemoryIndex.open(ctx.t.db);
    expect(ftsSql()).toMatch(/content\s*=\s*''/);
    expect(ctx.ix.stats()).toMatchObject({ schema_version: 4, facts: 0 });
    expect(ctx.ix.ingestDir(ctx.t.sessions).facts).toBe(18);
    expect(ctx.ix.recall('host-a nginx').map((h) => h.provenance.cite())).toEqual(hits);
    // the cited ledger paths are computed (hidden 2: a virtual generated column), and read as they were stored
    for (const table of ['fact', 'failure', 'ledger']) {
      const column = table === 'ledger' ? 'path' : 'ledger';
      expect(ctx.ix.db.prepare(`SELECT hidden FROM pragma_table_xinfo('${table}') WHERE name = ?`).get(column)).toEqual({ hidden: 2 });
      const rows = ctx.ix.db.prepare(`SELECT session, ${column} AS cited FROM ${table}`).all() as { session: string; cited: string }[];
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.cited).toBe(ledgerCitePath(r.session));
    }
  });

  it('a fact with more fields than one insert statement takes keeps every field, in order', () => {
    const wide = Object.fromEntries(Array.from({ length: ROWS_PER_INSERT * 2 + 7 }, (_, i) => [`k${i}`, i % 3 === 0 ? `v${i}` : i]));
    const events = escalatingSession();
    const at = events.findIndex((e) => e.type === 'fact_added');
    events.splice(at + 1, 0, { ...events[at], fact: wide });
    writeSession(ctx.t.sessions, 'w-wide', events);
    ctx.ix.ingestDir(ctx.t.sessions);
    const rows = ctx.ix.db.prepare(`SELECT ff.ord, ff.key, ff.num, ff.txt FROM fact_field ff JOIN fact f ON f.id = ff.fact_id
      WHERE f.session = 'w-wide' AND f.seq = ? ORDER BY ff.ord`).all(at + 1);
    expect(rows).toEqual(Object.entries(wide).map(([key, v], ord) => ({ ord, key, num: typeof v === 'number' ? v : null, txt: typeof v === 'string' ? v : null })));
  });

  it('new sessions ingested together (their rows held and inserted many at a time) store exactly what row-by-row ingest stores', () => {
    generateSessions(ctx.t.sessions, { sessions: 150, failEvery: 3 });
    writeSession(ctx.t.sessions, 'x-escalating', escalatingSession());
    writeSession(ctx.t.sessions, 'x-gap', [
      { type: 'composition', hash: 'sha256:c0', machine: 'sha256:m', config: 'pico.json' },
      { type: 'user_input', text: 'transcribe the call', trust: 'T0', budget_class: 'attended', job: {} },
      { type: 'capability_gap', step: 's1', provider: null, capability: 'transcribe@1', schema: 'text@1', error: 'no provider', attempt: 0, rejected: [] },
      { type: 'declined', reason: 'no provider' },
      { type: 'answer_sent', outcome: 'declined', text: 'cannot', missing: [], trust: 'T2', spent: { wall_ms: 1, model_calls: 0, cpu_ms: 1 } },
    ]);
    const dirs = readdirSync(ctx.t.sessions).sort().map((n) => join(ctx.t.sessions, n));
    const together = ctx.ix.ingestSessions(dirs);
    const held = dumpContent(ctx.ix.db);
    expect(held.failure!.filter((f) => (f as { resolution: string | null }).resolution !== null).length).toBeGreaterThan(40);
    ctx.ix.close();
    for (const f of ['', '-wal', '-shm']) rmSync(ctx.t.db + f, { force: true });
    // the same ledgers, each first cut after its first event: the rest then goes in row by row
    const whole = new Map(dirs.map((d) => [d, readFileSync(join(d, 'events.jsonl'), 'utf8')]));
    for (const [d, text] of whole) writeFileSync(join(d, 'events.jsonl'), text.slice(0, text.indexOf('\n') + 1));
    ctx.ix = MemoryIndex.open(ctx.t.db);
    for (const d of dirs) ctx.ix.ingestSession(d);
    for (const [d, text] of whole) writeFileSync(join(d, 'events.jsonl'), text);
    const grown = dirs.map((d) => ctx.ix.ingestSession(d));
    expect(grown.every((r) => r.status === 'grown')).toBe(true);
    expect(grown.reduce((n, r) => n + r.facts, 0)).toBe(together.reduce((n, r) => n + r.facts, 0));
    expect(dumpContent(ctx.ix.db)).toEqual(held);
  });

  it('a session named twice in one batch is ingested once', () => {
    const dir = writeSession(ctx.t.sessions, 'x-escalating', escalatingSession());
    const [first, second] = ctx.ix.ingestSessions([dir, dir]);
    expect(first).toMatchObject({ status: 'new', facts: 2, failures: 1 });
    expect(second).toMatchObject({ status: 'unchanged', facts: 0 });
    expect(ctx.ix.stats()).toMatchObject({ ledgers: 1, episodes: 1, facts: 2, failures: 1 });
  });

  it('a batch that fails inserts none of its held rows, and the next ingest does', () => {
    generateSessions(ctx.t.sessions, { sessions: 5 });
    const dirs = readdirSync(ctx.t.sessions).sort().map((n) => join(ctx.t.sessions, n));
    const broken = join(ctx.t.sessions, 'x-broken');
    mkdirSync(join(broken, 'events.jsonl'), { recursive: true }); // a folder where the ledger should be: reading it throws
    expect(() => ctx.ix.ingestSessions([...dirs, broken])).toThrow();
    expect(ctx.ix.stats()).toMatchObject({ ledgers: 0, episodes: 0, facts: 0 });
    expect(ctx.ix.ingestSessions(dirs).reduce((n, r) => n + r.facts, 0)).toBe(15);
    expect(ctx.ix.stats()).toMatchObject({ ledgers: 5, episodes: 5, facts: 15 });
  });

  /** The names of the database's own indexes (not SQLite's automatic ones). */
  const indexNames = (): string[] => (ctx.ix.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
    .all() as { name: string }[]).map((r) => r.name);

  it('a bulk load (hundreds of sessions into an empty database) stores what session-by-session ingest stores, with every index back', () => {
    generateSessions(ctx.t.sessions, { sessions: 240 });
    writeSession(ctx.t.sessions, 'x-escalating', escalatingSession());
    const indexes = indexNames();
    expect(indexes.length).toBeGreaterThan(3);
    // incremental: one session first, so the database is not empty and the rest goes in row by row
    ctx.ix.ingestSession(join(ctx.t.sessions, 'x-escalating'));
    const inc = ctx.ix.ingestDir(ctx.t.sessions);
    const incremental = dumpContent(ctx.ix.db);
    ctx.ix.close();
    for (const f of ['', '-wal', '-shm']) rmSync(ctx.t.db + f, { force: true });
    ctx.ix = MemoryIndex.open(ctx.t.db);
    const bulk = ctx.ix.ingestDir(ctx.t.sessions);
    expect(bulk.sessions).toBe(241);
    expect(bulk.facts).toBe(inc.facts + 2);
    expect(dumpContent(ctx.ix.db)).toEqual(incremental);
    expect(indexNames()).toEqual(indexes);
    expect(ctx.ix.ingestDir(ctx.t.sessions).events).toBe(0);
  });

  it('two processes bulk-loading the same sessions into one empty database at once store each row once', async () => {
    initRoot(ctx.t.root);
    const gen = generateSessions(ctx.t.sessions, { sessions: 1500 });
    ctx.ix.close();
    const runs = await Promise.all([0, 1].map(() => picoAsync(['memory', 'ingest', '--root', ctx.t.root])));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    ctx.ix = MemoryIndex.open(ctx.t.db);
    const together = dumpContent(ctx.ix.db);
    expect(together.fact?.length).toBe(gen.facts);
    ctx.ix.close();
    for (const f of ['', '-wal', '-shm']) rmSync(ctx.t.db + f, { force: true });
    ctx.ix = MemoryIndex.open(ctx.t.db);
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(together).toEqual(dumpContent(ctx.ix.db));
  }, 120_000);

  it('a bulk load that died with its indexes dropped gets them back on the next open', () => {
    generateSessions(ctx.t.sessions, { sessions: 5 });
    ctx.ix.ingestDir(ctx.t.sessions);
    const indexes = indexNames();
    // the state a load killed between its dropIndexes and its restore leaves on disk
    dropIndexes(ctx.ix.db);
    expect(indexNames().length).toBeLessThan(indexes.length);
    ctx.ix.close();
    ctx.ix = MemoryIndex.open(ctx.t.db);
    expect(indexNames()).toEqual(indexes);
    expect(ctx.ix.ingestDir(ctx.t.sessions).events).toBe(0);
  });

  it('a bulk load beside another connection (in the WAL) and one alone (in a rollback journal) store the same rows, and end in the WAL (journal.ts)', () => {
    generateSessions(ctx.t.sessions, { sessions: 210 });
    const other = new Database(ctx.t.db);
    try {
      ctx.ix.ingestDir(ctx.t.sessions);
      expect(other.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      other.close();
    }
    const beside = dumpContent(ctx.ix.db);
    ctx.ix.rebuild(ctx.t.sessions); // alone now: the load runs in a rollback journal
    expect(dumpContent(ctx.ix.db)).toEqual(beside);
    expect([ctx.ix.db.pragma('journal_mode', { simple: true }), ctx.ix.db.pragma('synchronous', { simple: true })]).toEqual(['wal', 1]);
    expect(existsSync(`${ctx.t.db}-journal`)).toBe(false);
  });

  it('an index opened while a bulk load holds a rollback journal opens at once, reads, and its next ingest returns to the WAL', () => {
    ctx.ix.close();
    // the state a bulk load in another process leaves while it writes a batch
    const loader = new Database(ctx.t.db);
    expect(loader.pragma('journal_mode = DELETE', { simple: true })).toBe('delete');
    loader.exec('BEGIN IMMEDIATE');
    const t0 = Date.now();
    ctx.ix = MemoryIndex.open(ctx.t.db);
    expect(Date.now() - t0).toBeLessThan(2000); // no wait for the loader to let the journal switch
    expect([ctx.ix.db.pragma('journal_mode', { simple: true }), ctx.ix.db.pragma('synchronous', { simple: true })]).toEqual(['delete', 2]);
    expect(ctx.ix.recall('disk')).toEqual([]);
    loader.exec('COMMIT');
    loader.close();
    ctx.ix.ingestSession(writeSession(ctx.t.sessions, 's-after', escalatingSession()));
    expect([ctx.ix.db.pragma('journal_mode', { simple: true }), ctx.ix.db.pragma('synchronous', { simple: true })]).toEqual(['wal', 1]);
    expect(ctx.ix.stats().facts).toBe(2);
  });

  it('a closed index refuses use, naming what to do', () => {
    ctx.ix.close();
    expect(() => ctx.ix.recall('x')).toThrow(/closed; open a new one/);
  });

  it('a ledger truncated to nothing and rewritten is read again', () => {
    const dir = writeSession(ctx.t.sessions, 's-trunc', escalatingSession());
    ctx.ix.ingestSession(dir);
    truncateSync(join(dir, 'events.jsonl'), 0);
    writeFileSync(join(dir, 'events.jsonl'), linesFrom('s-trunc', 0, escalatingSession().slice(0, 2)));
    expect(ctx.ix.ingestSession(dir)).toMatchObject({ status: 'rewritten', events: 2 });
    expect(ctx.ix.stats().facts).toBe(0);
  });
});
