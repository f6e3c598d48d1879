/**
 * The memory bench still runs end to end on a small scale (no timing asserted:
 * speed goals live in the bench rows, not in unit tests), and holds the Python
 * peer beside ours in the same run when the peer is there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchMemory } from '../../bench/memory.js';
import { PACKAGE_DIR } from '../../src/base/package.js';

const PEER_ROWS = ['the Python picoharness: ingest events/s, same sessions', 'ingest / the Python picoharness (wall)', 'ingest / the Python picoharness (CPU)'];
/** the shared folder of the development machines (tests and the bench may use it; user docs may not) */
const SHARED_PEER = join(PACKAGE_DIR, '..', 'shared', 'anchors', 'picoharness-py', 'src', 'picoharness');

describe('benchMemory', () => {
  const saved = process.env.PICOHARNESS_SRC;
  afterEach(() => {
    if (saved === undefined) delete process.env.PICOHARNESS_SRC;
    else process.env.PICOHARNESS_SRC = saved;
  });

  it('returns one row per measurement, each a finite number; without a peer its rows say why instead', async () => {
    process.env.PICOHARNESS_SRC = ''; // no peer asked for
    const rows = await benchMemory(60);
    expect(rows.map((r) => r.name)).toEqual([
      'ingest events/s', 'ingest events per CPU second', ...PEER_ROWS, 'ingest wall', 'rescan (nothing new)', 'recall p50', 'recall p99', 'recall mean CPU per call',
      'recallForControl p50', 'fieldRange p50', 'rebuild', 'db size',
    ]);
    for (const r of rows) {
      expect(r.group).toBe('memory');
      if (PEER_ROWS.includes(r.name)) {
        expect(r.value).toBeNaN();
        expect(r.note).toMatch(/^not compared: PICOHARNESS_SRC is empty/);
      } else expect(Number.isFinite(r.value) && r.value >= 0).toBe(true);
    }
  });

  it.skipIf(!existsSync(SHARED_PEER))('finds the Python peer beside the checkout by itself and runs it on the same sessions, with the same counts', async () => {
    delete process.env.PICOHARNESS_SRC;
    const rows = await benchMemory(60);
    const peer = rows.find((r) => r.name === PEER_ROWS[0])!;
    expect(peer.value).toBeGreaterThan(0);
    expect(peer.note).toMatch(/the same 180 facts and \d+ failures on both sides/);
    for (const name of PEER_ROWS.slice(1)) expect(rows.find((r) => r.name === name)!.value).toBeGreaterThan(0);
  });
});
