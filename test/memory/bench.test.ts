/**
 * The memory bench still runs end to end on a small scale (no timing asserted:
 * speed goals live in the bench rows, not in unit tests).
 */
import { describe, expect, it } from 'vitest';
import { benchMemory } from '../../bench/memory.js';

describe('benchMemory', () => {
  it('returns one row per measurement, each a finite positive number', async () => {
    delete process.env.PICOHARNESS_SRC; // the rows compared with the Python peer come only with it
    const rows = await benchMemory(60);
    expect(rows.map((r) => r.name)).toEqual([
      'ingest events/s', 'ingest events per CPU second', 'ingest wall', 'rescan (nothing new)', 'recall p50', 'recall p99', 'recall mean CPU per call',
      'recallForControl p50', 'fieldRange p50', 'rebuild', 'db size',
    ]);
    for (const r of rows) {
      expect(r.group).toBe('memory');
      expect(Number.isFinite(r.value) && r.value >= 0).toBe(true);
    }
  });
});
