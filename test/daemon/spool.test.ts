/**
 * Issue 3 item 1: "a job file counts once it is complete … a file that is
 * still growing is not taken"; the watcher waits for ready, de-duplicates
 * and ignores writers' temp names. Real inotify on a real temp folder.
 */
import { appendFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Spool } from '../../src/daemon/spool.js';
import { quietLog, tempRoot } from './helpers.js';

const spools: Spool[] = [];
afterEach(async () => {
  for (const s of spools.splice(0)) await s.close();
});

/** A spool that records what it hands over and removes it from the inbox (as claim would). */
async function startSpool(inbox: string, settleMs = 40): Promise<{ handed: string[]; when: (n: number) => Promise<void> }> {
  const handed: string[] = [];
  const waiters: { n: number; ok: () => void }[] = [];
  const spool = new Spool({
    inbox,
    log: quietLog(),
    settleMs,
    onStable: async (names) => {
      for (const n of names) {
        handed.push(n);
        unlinkSync(join(inbox, n));
      }
      for (const w of waiters.filter((w) => handed.length >= w.n)) w.ok();
    },
  });
  spools.push(spool);
  await spool.start();
  return { handed, when: (n) => (handed.length >= n ? Promise.resolve() : new Promise((ok) => waiters.push({ n, ok }))) };
}

describe('spool', () => {
  it('files already in the inbox at start and files renamed in later are each handed over once', async () => {
    const inbox = join(tempRoot(), 'sessions', 'inbox');
    writeFileSync(join(inbox, 'early.json'), '{}');
    const s = await startSpool(inbox);
    await s.when(1);
    for (let i = 0; i < 20; i++) {
      writeFileSync(join(inbox, `.j${i}.json.tmp`), '{}');
      renameSync(join(inbox, `.j${i}.json.tmp`), join(inbox, `j${i}.json`));
    }
    await s.when(21);
    await sleep(150); // give any duplicate a chance to show up
    expect(s.handed.sort()).toEqual(['early.json', ...Array.from({ length: 20 }, (_, i) => `j${i}.json`)].sort());
  });

  it('files that become stable together are handed over in the order they arrived, not in listing order', async () => {
    const inbox = join(tempRoot(), 'sessions', 'inbox');
    // names against the alphabet, renamed in one after another before the spool starts; the
    // kernel stamps ctime from a coarse clock (one tick: 4 ms at HZ 250, 10 ms at HZ 100), so
    // renames closer than a tick may share a stamp, and then only the name can order them
    const names = ['z.json', 'm.json', 'b.json', 'y.json', 'a.json'];
    for (const n of names) {
      writeFileSync(join(inbox, `.${n}.tmp`), '{}');
      renameSync(join(inbox, `.${n}.tmp`), join(inbox, n));
      await sleep(25);
    }
    const s = await startSpool(inbox);
    await s.when(names.length);
    expect(s.handed).toEqual(names);
  });

  it('a file still growing is not taken until two looks agree', async () => {
    const inbox = join(tempRoot(), 'sessions', 'inbox');
    const s = await startSpool(inbox, 500);
    const path = join(inbox, 'growing.json');
    writeFileSync(path, '{');
    for (let i = 0; i < 6; i++) {
      await sleep(30); // each append lands well within the 500 ms settle time
      appendFileSync(path, ' ');
      expect(s.handed).toEqual([]);
    }
    appendFileSync(path, '}');
    await s.when(1);
    expect(s.handed).toEqual(['growing.json']);
  });

  it('dot-files and *.tmp are never handed over', async () => {
    const inbox = join(tempRoot(), 'sessions', 'inbox');
    const s = await startSpool(inbox);
    writeFileSync(join(inbox, '.partial.json'), '{}');
    writeFileSync(join(inbox, 'upload.tmp'), '{}');
    writeFileSync(join(inbox, 'real.json'), '{}');
    await s.when(1);
    await sleep(150);
    expect(s.handed).toEqual(['real.json']);
  });

  it('a failing handler does not lose the entry: it is handed over again later', async () => {
    const inbox = join(tempRoot(), 'sessions', 'inbox');
    let calls = 0;
    const got: string[] = [];
    const spool = new Spool({
      inbox,
      log: quietLog(),
      rescanMs: 100,
      onStable: async (names) => {
        if (calls++ === 0) throw new Error('disk hiccup');
        got.push(...names);
        for (const n of names) unlinkSync(join(inbox, n));
      },
    });
    spools.push(spool);
    await spool.start();
    writeFileSync(join(inbox, 'retry.json'), '{}');
    for (let i = 0; i < 100 && got.length === 0; i++) await sleep(20);
    expect(got).toEqual(['retry.json']);
    expect(calls).toBe(2);
  });
});
