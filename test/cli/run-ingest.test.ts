/**
 * Issue 21 item 3: "`pico run` ingests its finished session exactly as the
 * daemon does", so a goal run twice in the foreground plans the second time
 * from the trajectory cache, and memory holds both episodes. The compiled CLI
 * (dist/; build first) on a fresh root.
 */
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLedger } from '../../src/ledger/ledger.js';
import { makeRoot } from '../helpers/root.js';
import { picoAsync as pico } from '../daemon/spawn.js';

describe('pico run and memory', () => {
  it('a goal run twice in the foreground plans the second time from the trajectory cache; memory holds both runs', async () => {
    const root = makeRoot('pico-run-ingest-');
    // a goal whose reads every machine has (the journal this one may lack would make the run partial, and a partial plan is not cached)
    const job = join(root, 'examples/jobs/is-memory-running-low.json');
    for (let i = 0; i < 2; i++) {
      const r = await pico(['run', job, '--root', root]);
      expect(r.code, r.stderr).toBe(0);
    }
    const [first, second] = readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n)).sort();
    const source = (id: string) => (readLedger(join(root, 'sessions', id)).find((e) => e.type === 'plan_created') as { source?: string } | undefined)?.source;
    expect(source(first!)).not.toBe('cache');
    expect(source(second!)).toBe('cache');
    const db = new Database(join(root, 'memory', 'episodic.db'), { readonly: true });
    try {
      expect((db.prepare('SELECT count(*) AS n FROM episode').get() as { n: number }).n).toBe(2);
    } finally {
      db.close();
    }
  }, 120_000);
});
