/**
 * The recall queries use the indexes (issue 24: "indexes that the recall queries use;
 * EXPLAIN QUERY PLAN in a test"). Each query recall.ts runs, in every filter combination,
 * is planned over a database with facts in it: full-text matches come from the FTS5 index,
 * facts are fetched by primary key, the typed projection is read through its numeric index,
 * and no query scans the fact table or the projection. A change of SQL or schema that loses
 * an index fails here instead of as a slow recall in the field.
 */
import { describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/memory-gen.js';
import { fieldRangeSql, recallSql, SIMILAR_EPISODES_SQL } from '../../src/memory/recall.js';
import { useTempIndex } from './helpers.js';

const ctx = useTempIndex();

/** The plan's detail lines for `sql` with `params`. */
function plan(sql: string, params: Record<string, unknown>): string[] {
  return (ctx.ix.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail);
}

/** Every combination of the optional recall filters. */
const FILTERS = [{}, { schema: 's' }, { subject: 'x' }, { validAt: 't' }, { schema: 's', subject: 'x', validAt: 't' }];

describe('recall query plans', () => {
  it.each([['recall', null], ['recallForControl', ['T0', 'T2'] as const]] as const)('%s matches in the FTS5 index and fetches facts by primary key, with every filter', (_, trust) => {
    generateSessions(ctx.t.sessions, { sessions: 40 });
    ctx.ix.ingestDir(ctx.t.sessions);
    for (const f of FILTERS) {
      const lines = plan(recallSql(f, trust), { match: 'body : ("disk")', limit: 10, schema: 's', subject: 'x', validAt: 't' });
      expect(lines.some((l) => /^SCAN fact_fts VIRTUAL TABLE INDEX \d+:M/.test(l)), lines.join(' | ')).toBe(true);
      expect(lines.some((l) => /^SEARCH f USING INTEGER PRIMARY KEY/.test(l)), lines.join(' | ')).toBe(true);
      expect(lines.filter((l) => /^SCAN (f|fact)\b/.test(l)), lines.join(' | ')).toEqual([]);
    }
  });

  it('fieldRange reads the typed projection through its numeric index', () => {
    generateSessions(ctx.t.sessions, { sessions: 40 });
    ctx.ix.ingestDir(ctx.t.sessions);
    for (const opts of [{}, { below: 15 }, { above: 5, below: 15 }, { below: 15, schema: 'disk_usage@1' }]) {
      const lines = plan(fieldRangeSql(opts), { key: 'disk_free_pct', below: 15, above: 5, schema: 'disk_usage@1', limit: 100 });
      expect(lines.some((l) => /^SEARCH ff USING (COVERING )?INDEX fact_field_by_num \(key=\?/.test(l)), lines.join(' | ')).toBe(true);
      expect(lines.some((l) => /^SEARCH f USING INTEGER PRIMARY KEY/.test(l)), lines.join(' | ')).toBe(true);
      expect(lines.filter((l) => /^SCAN (f|ff|fact|fact_field)\b/.test(l)), lines.join(' | ')).toEqual([]);
    }
  });

  it('similarEpisodes matches in the goal index and fetches episodes by primary key', () => {
    generateSessions(ctx.t.sessions, { sessions: 40 });
    ctx.ix.ingestDir(ctx.t.sessions);
    const lines = plan(SIMILAR_EPISODES_SQL, { match: '"disk"', limit: 5 });
    expect(lines.some((l) => /^SCAN episode_fts VIRTUAL TABLE INDEX \d+:M/.test(l)), lines.join(' | ')).toBe(true);
    expect(lines.some((l) => /^SEARCH e USING INTEGER PRIMARY KEY/.test(l)), lines.join(' | ')).toBe(true);
  });
});
