/**
 * Recall claims (issue 6): path 1 returns facts with provenance; "a T1 fact
 * never comes back from recallForControl" — filtered in SQL and asserted per
 * row; any user text is safe FTS5 input; fieldRange answers "disk free below
 * 15 %" with one query; similarEpisodes ranks by goal.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/memory-gen.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { assertControlSafe, ftsTerms, Provenance } from '../../src/memory/recall.js';
import { TrustViolation } from '../../src/trust.js';
import { escalatingSession, tempRoot, writeSession } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
let ix: MemoryIndex;
beforeEach(() => {
  t = tempRoot();
  ix = MemoryIndex.open(t.db);
});
afterEach(() => {
  ix.close();
  t.cleanup();
});

describe('recall', () => {
  it('finds a fact by its words and cites the ledger line that added it', () => {
    writeSession(t.sessions, 'sess-a', escalatingSession({ host: 'nas' }));
    ix.ingestDir(t.sessions);
    const hits = ix.recall('disk I/O timeout');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.provenance.cite()).toBe('sessions/sess-a/events.jsonl#7');
    expect(hits[0]!.payload).toMatchObject({ host: 'nas', error_count: 7 });
    expect(hits[0]!.trust).toBe('T1');
  });

  it('a T1 fact never comes back from recallForControl, even when it is the best match', () => {
    generateSessions(t.sessions, { sessions: 60 });
    writeSession(t.sessions, 'sess-t1', escalatingSession({ host: 'host-a' }));
    ix.ingestDir(t.sessions);
    for (const q of ['disk I/O timeout', 'host-a', 'error', 'critical nginx', 'disk pressure summary', 'certificate expired']) {
      const control = ix.recallForControl(q, { limit: 50 });
      expect(control.every((h) => h.trust === 'T0' || h.trust === 'T2')).toBe(true);
    }
    const best = 'sessions/sess-t1/events.jsonl#7';
    expect(ix.recall('disk I/O timeout', { limit: 50 }).map((h) => h.provenance.cite())).toContain(best);
    expect(ix.recallForControl('disk I/O timeout', { limit: 50 }).map((h) => h.provenance.cite())).not.toContain(best);
    expect(ix.recallForControl('disk pressure summary').map((h) => h.trust)).toContain('T2');
  });

  it('the control assertion throws TrustViolation on a T1 row, naming its citation', () => {
    const row = { trust: 'T1' as const, provenance: new Provenance('s9', 'sessions/s9/events.jsonl', 3) };
    expect(() => assertControlSafe([row])).toThrow(TrustViolation);
    expect(() => assertControlSafe([row])).toThrow(/sessions\/s9\/events\.jsonl#3 is T1/);
    expect(() => assertControlSafe([{ ...row, trust: 'T2' }])).not.toThrow();
  });

  it('a corrupt trust value in the database is an error, not a default', () => {
    writeSession(t.sessions, 'sess-c', escalatingSession());
    ix.ingestDir(t.sessions);
    // bypass the CHECK constraint the way a hand-edited file could
    ix.db.pragma('ignore_check_constraints = ON');
    ix.db.prepare("UPDATE fact SET trust = 'T9'").run();
    expect(() => ix.recall('disk')).toThrow(/unknown trust level "T9"/);
  });

  it.each([
    ['"unbalanced quote'], ['disk AND OR NOT'], ['NEAR(disk timeout)'], ['col:umn * ^ -x'], ['{body} : disk'],
    ["'; DROP TABLE fact; --"], [')))((('], [''], ['   '], ['ディスク 満杯'],
  ])('any text is a safe query: %j', (q) => {
    writeSession(t.sessions, 'sess-q', escalatingSession());
    ix.ingestDir(t.sessions);
    expect(() => ix.recall(q)).not.toThrow();
    expect(() => ix.recallForControl(q)).not.toThrow();
    expect(ix.stats().facts).toBe(2);
  });

  it('query words become quoted terms; punctuation never reaches FTS5', () => {
    expect(ftsTerms('Disk "full" NEAR(x) host-a')).toEqual(['"disk"', '"full"', '"near"', '"x"', '"host"', '"a"']);
    expect(ftsTerms('!!!')).toBeNull();
  });

  it('all terms first, then any term: a word no fact holds does not veto the rest', () => {
    writeSession(t.sessions, 'sess-v', escalatingSession());
    ix.ingestDir(t.sessions);
    expect(ix.recall('disk zebra').length).toBeGreaterThan(0);
    expect(ix.recall('zebra')).toEqual([]);
  });

  it('filters by schema and subject, and by validity time', () => {
    const a = escalatingSession({ host: 'edge-01' });
    (a[9] as { valid_until: string | null }).valid_until = '2026-01-02T00:00:00Z';
    writeSession(t.sessions, 's1', a);
    writeSession(t.sessions, 's2', escalatingSession({ host: 'edge-02' }));
    ix.ingestDir(t.sessions);
    expect(ix.recall('disk', { schema: 'answer@1', limit: 10 }).map((h) => h.schema)).toEqual(['answer@1', 'answer@1']);
    expect(ix.recall('disk', { subject: 'edge-02', limit: 10 }).every((h) => h.subject === 'edge-02')).toBe(true);
    const valid = ix.recall('disk pressure', { schema: 'answer@1', validAt: '2026-06-01T00:00:00Z', limit: 10 });
    expect(valid.map((h) => h.subject)).toEqual(['edge-02']);
  });

  it('the budget class sets the default number of hits', () => {
    generateSessions(t.sessions, { sessions: 30 });
    ix.ingestDir(t.sessions);
    expect(ix.recall('errors', { budgetClass: 'interactive' })).toHaveLength(5);
    expect(ix.recall('errors', { budgetClass: 'background' })).toHaveLength(20);
    expect(() => ix.recall('errors', { limit: 0 })).toThrow(/positive integer/);
  });

  it('fieldRange answers "when was disk free below 15 %" from the typed projection', () => {
    const low = escalatingSession({ host: 'low' });
    const high = escalatingSession({ host: 'high' });
    (high[9] as { fact: unknown }).fact = { text: 'ok', disk: { free_pct: 40 } };
    writeSession(t.sessions, 's-low', low);
    writeSession(t.sessions, 's-high', high);
    ix.ingestDir(t.sessions);
    const rows = ix.fieldRange('disk.free_pct', { below: 15 });
    expect(rows.map((r) => [r.subject, r.num])).toEqual([['low', 12.5]]);
    expect(rows[0]!.provenance.cite()).toBe('sessions/s-low/events.jsonl#9');
    expect(ix.fieldRange('disk.free_pct', { above: 15 }).map((r) => r.num)).toEqual([40]);
    expect(ix.fieldRange('disk.free_pct', { above: 12.5, below: 40 })).toEqual([]);
  });

  it('the projection keeps strings as text: "15" is not a number', () => {
    writeSession(t.sessions, 's-str', [{ type: 'fact_added', step: 'a', provider: 'p', trust: 'T2', fact: { pct: '15', n: 15, ok: true, nil: null, list: [1, 2] } }]);
    ix.ingestDir(t.sessions);
    const rows = ix.db.prepare('SELECT key, num, txt FROM fact_field ORDER BY ord').all();
    expect(rows).toEqual([
      { key: 'pct', num: null, txt: '15' }, { key: 'n', num: 15, txt: null }, { key: 'ok', num: 1, txt: 'true' },
      { key: 'list', num: 1, txt: null }, { key: 'list', num: 2, txt: null },
    ]);
  });

  it('similarEpisodes ranks past sessions by their goal', () => {
    writeSession(t.sessions, 's-disk', escalatingSession({ host: 'nas' }));
    const other = escalatingSession();
    (other[1] as { text: string }).text = 'check the backup of the printer';
    writeSession(t.sessions, 's-backup', other);
    ix.ingestDir(t.sessions);
    const eps = ix.similarEpisodes('disk full nas');
    expect(eps[0]).toMatchObject({ session: 's-disk', goal: 'why is the disk full on nas', outcome: 'answered', failure_count: 1 });
    expect(eps.map((e) => e.session)).not.toContain('s-backup');
  });
});
