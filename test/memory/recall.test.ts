/**
 * Recall claims (issue 6): path 1 returns facts with provenance; "a T1 fact
 * never comes back from recallForControl" — filtered in SQL and asserted per
 * row; any user text is safe FTS5 input; fieldRange answers "disk free below
 * 15 %" with one query; similarEpisodes ranks by goal.
 */
import { describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/memory-gen.js';
import { assertControlSafe, ftsTerms, Provenance } from '../../src/memory/recall.js';
import { TrustViolation } from '../../src/base/trust.js';
import { escalatingSession, writeSession, useTempIndex } from './helpers.js';

const ctx = useTempIndex();

describe('recall', () => {
  it('finds a fact by its words and cites the ledger line that added it', () => {
    writeSession(ctx.t.sessions, 'sess-a', escalatingSession({ host: 'nas' }));
    ctx.ix.ingestDir(ctx.t.sessions);
    const hits = ctx.ix.recall('disk I/O timeout');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.provenance.cite()).toBe('sessions/sess-a/events.jsonl#7');
    expect(hits[0]!.payload).toMatchObject({ host: 'nas', error_count: 7 });
    expect(hits[0]!.trust).toBe('T1');
  });

  it('a T1 fact never comes back from recallForControl, even when it is the best match', () => {
    generateSessions(ctx.t.sessions, { sessions: 60 });
    writeSession(ctx.t.sessions, 'sess-t1', escalatingSession({ host: 'host-a' }));
    ctx.ix.ingestDir(ctx.t.sessions);
    for (const q of ['disk I/O timeout', 'host-a', 'error', 'critical nginx', 'disk pressure summary', 'certificate expired']) {
      const control = ctx.ix.recallForControl(q, { limit: 50 });
      expect(control.every((h) => h.trust === 'T0' || h.trust === 'T2')).toBe(true);
    }
    const best = 'sessions/sess-t1/events.jsonl#7';
    expect(ctx.ix.recall('disk I/O timeout', { limit: 50 }).map((h) => h.provenance.cite())).toContain(best);
    expect(ctx.ix.recallForControl('disk I/O timeout', { limit: 50 }).map((h) => h.provenance.cite())).not.toContain(best);
    expect(ctx.ix.recallForControl('disk pressure summary').map((h) => h.trust)).toContain('T2');
  });

  it('the control assertion throws TrustViolation on a T1 row, naming its citation', () => {
    const row = { trust: 'T1' as const, provenance: new Provenance('s9', 'sessions/s9/events.jsonl', 3) };
    expect(() => assertControlSafe([row])).toThrow(TrustViolation);
    expect(() => assertControlSafe([row])).toThrow(/sessions\/s9\/events\.jsonl#3 is T1/);
    expect(() => assertControlSafe([{ ...row, trust: 'T2' }])).not.toThrow();
  });

  it('a corrupt trust value in the database is an error, not a default', () => {
    writeSession(ctx.t.sessions, 'sess-c', escalatingSession());
    ctx.ix.ingestDir(ctx.t.sessions);
    // bypass the CHECK constraint the way a hand-edited file could
    ctx.ix.db.pragma('ignore_check_constraints = ON');
    ctx.ix.db.prepare("UPDATE fact SET trust = 'T9'").run();
    expect(() => ctx.ix.recall('disk')).toThrow(/unknown trust level "T9"/);
  });

  it.each([
    ['"unbalanced quote'], ['disk AND OR NOT'], ['NEAR(disk timeout)'], ['col:umn * ^ -x'], ['{body} : disk'],
    ["'; DROP TABLE fact; --"], [')))((('], [''], ['   '], ['ディスク 満杯'],
  ])('any text is a safe query: %j', (q) => {
    writeSession(ctx.t.sessions, 'sess-q', escalatingSession());
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(() => ctx.ix.recall(q)).not.toThrow();
    expect(() => ctx.ix.recallForControl(q)).not.toThrow();
    expect(ctx.ix.stats().facts).toBe(2);
  });

  it('query words become quoted terms; punctuation never reaches FTS5', () => {
    expect(ftsTerms('Disk "full" NEAR(x) host-a')).toEqual(['"disk"', '"full"', '"near"', '"x"', '"host"', '"a"']);
    expect(ftsTerms('!!!')).toBeNull();
  });

  it('all terms first, then any term: a word no fact holds does not veto the rest', () => {
    writeSession(ctx.t.sessions, 'sess-v', escalatingSession());
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(ctx.ix.recall('disk zebra').length).toBeGreaterThan(0);
    expect(ctx.ix.recall('zebra')).toEqual([]);
  });

  it('filters by schema and subject, and by validity time', () => {
    const a = escalatingSession({ host: 'edge-01' });
    (a[9] as { valid_until: string | null }).valid_until = '2026-01-02T00:00:00Z';
    writeSession(ctx.t.sessions, 's1', a);
    writeSession(ctx.t.sessions, 's2', escalatingSession({ host: 'edge-02' }));
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(ctx.ix.recall('disk', { schema: 'answer@1', limit: 10 }).map((h) => h.schema)).toEqual(['answer@1', 'answer@1']);
    expect(ctx.ix.recall('disk', { subject: 'edge-02', limit: 10 }).every((h) => h.subject === 'edge-02')).toBe(true);
    const valid = ctx.ix.recall('disk pressure', { schema: 'answer@1', validAt: '2026-06-01T00:00:00Z', limit: 10 });
    expect(valid.map((h) => h.subject)).toEqual(['edge-02']);
  });

  it('the budget class sets the default number of hits', () => {
    generateSessions(ctx.t.sessions, { sessions: 30 });
    ctx.ix.ingestDir(ctx.t.sessions);
    expect(ctx.ix.recall('errors', { budgetClass: 'interactive' })).toHaveLength(5);
    expect(ctx.ix.recall('errors', { budgetClass: 'background' })).toHaveLength(20);
    expect(() => ctx.ix.recall('errors', { limit: 0 })).toThrow(/positive integer/);
  });

  it('fieldRange answers "when was disk free below 15 %" from the typed projection', () => {
    const low = escalatingSession({ host: 'low' });
    const high = escalatingSession({ host: 'high' });
    (high[9] as { fact: unknown }).fact = { text: 'ok', disk: { free_pct: 40 } };
    writeSession(ctx.t.sessions, 's-low', low);
    writeSession(ctx.t.sessions, 's-high', high);
    ctx.ix.ingestDir(ctx.t.sessions);
    const rows = ctx.ix.fieldRange('disk.free_pct', { below: 15 });
    expect(rows.map((r) => [r.subject, r.num])).toEqual([['low', 12.5]]);
    expect(rows[0]!.provenance.cite()).toBe('sessions/s-low/events.jsonl#9');
    expect(ctx.ix.fieldRange('disk.free_pct', { above: 15 }).map((r) => r.num)).toEqual([40]);
    expect(ctx.ix.fieldRange('disk.free_pct', { above: 12.5, below: 40 })).toEqual([]);
  });

  it('the projection keeps strings as text: "15" is not a number', () => {
    writeSession(ctx.t.sessions, 's-str', [{ type: 'fact_added', step: 'a', provider: 'p', trust: 'T2', fact: { pct: '15', n: 15, ok: true, nil: null, list: [1, 2] } }]);
    ctx.ix.ingestDir(ctx.t.sessions);
    const rows = ctx.ix.db.prepare('SELECT key, num, txt FROM fact_field ORDER BY ord').all();
    expect(rows).toEqual([
      { key: 'pct', num: null, txt: '15' }, { key: 'n', num: 15, txt: null }, { key: 'ok', num: 1, txt: 'true' },
      { key: 'list', num: 1, txt: null }, { key: 'list', num: 2, txt: null },
    ]);
  });

  it('similarEpisodes ranks past sessions by their goal', () => {
    writeSession(ctx.t.sessions, 's-disk', escalatingSession({ host: 'nas' }));
    const other = escalatingSession();
    (other[1] as { text: string }).text = 'check the backup of the printer';
    writeSession(ctx.t.sessions, 's-backup', other);
    ctx.ix.ingestDir(ctx.t.sessions);
    const eps = ctx.ix.similarEpisodes('disk full nas');
    expect(eps[0]).toMatchObject({ session: 's-disk', goal: 'why is the disk full on nas', outcome: 'answered', failure_count: 1 });
    expect(eps.map((e) => e.session)).not.toContain('s-backup');
  });
});
