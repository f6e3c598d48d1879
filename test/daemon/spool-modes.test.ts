/**
 * Issue 33, item 2: "chokidar watches the inbox too, with polling selected automatically when
 * the inbox is on a network or FUSE filesystem (by the filesystem type) and by a setting; tested
 * for real in both modes, including a file renamed in and a file written slowly."
 * Each mode runs for real: chokidar on inotify, and chokidar polling the folder. The safety
 * rescan is set far beyond the test's waits, so only the watch can have found a file. The FUSE
 * case mounts a real bindfs view of a folder (as a NAS share is a view of another machine's
 * disk): a file written into the folder underneath raises no inotify event on the view.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { pollingFor, sharedFilesystem, type WatchMode } from '../../src/daemon/fs-kind.js';
import { Spool } from '../../src/daemon/spool.js';
import { tempDir } from '../helpers/temp.js';
import { quietLog } from './helpers.js';

const spools: Spool[] = [];
const mounts: string[] = [];
afterEach(async () => {
  for (const s of spools.splice(0)) await s.close();
  for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m]);
});

/** A spool that records what it hands over and removes it (as a claim would); no safety rescan within the test. */
async function startSpool(inbox: string, watch: WatchMode, settleMs = 300): Promise<{ spool: Spool; handed: string[]; when: (n: number, ms?: number) => Promise<void> }> {
  const handed: string[] = [];
  const spool = new Spool({
    inbox, log: quietLog(), settleMs, rescanMs: 600_000, watch, pollMs: 100,
    onStable: async (names) => {
      for (const n of names) {
        handed.push(n);
        unlinkSync(join(inbox, n));
      }
    },
  });
  spools.push(spool);
  await spool.start();
  const when = async (n: number, ms = 10_000): Promise<void> => {
    for (const t0 = Date.now(); handed.length < n && Date.now() - t0 < ms; ) await sleep(20);
  };
  return { spool, handed, when };
}

describe.each(['events', 'polling'] as const)('the inbox watched by chokidar in %s mode', (mode) => {
  it('a file renamed in is handed over once, found by the watch alone', async () => {
    const inbox = tempDir('pico-spool-mode-');
    const s = await startSpool(inbox, mode);
    expect(s.spool.polling).toBe(mode === 'polling');
    await sleep(300); // a poll or two of the empty folder
    writeFileSync(join(inbox, '.renamed.json.tmp'), '{"job":"job@1"}');
    renameSync(join(inbox, '.renamed.json.tmp'), join(inbox, 'renamed.json'));
    await s.when(1);
    await sleep(400);
    expect(s.handed).toEqual(['renamed.json']);
  });

  it('a file written slowly in place is handed over once, only when whole', async () => {
    const inbox = tempDir('pico-spool-mode-');
    const s = await startSpool(inbox, mode, 400);
    const path = join(inbox, 'slow.json');
    writeFileSync(path, '{"job":');
    for (const part of [' "job@1",', ' "goal":', ' "slowly"', '}']) {
      await sleep(150); // each piece lands well within the 400 ms settle time
      expect(s.handed).toEqual([]);
      appendFileSync(path, part);
    }
    await s.when(1);
    await sleep(500);
    expect(s.handed).toEqual(['slow.json']);
  });
});

const bindfs = spawnSync('bindfs', ['--version'], { encoding: 'utf8' });
const fuseProbe = process.getuid?.() !== 0 ? 'not root' : bindfs.error ? 'bindfs is not installed (apt-get install bindfs)' : null;

/** A folder seen through a FUSE mount (bindfs), as a NAS share is: `under` is where the other machine writes. */
function nasView(): { under: string; inbox: string } {
  const under = tempDir('pico-nas-');
  const inbox = join(tempDir('pico-view-'), 'inbox');
  mkdirSync(inbox);
  const r = spawnSync('bindfs', [under, inbox], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bindfs failed: ${r.stderr}`);
  mounts.push(inbox);
  return { under, inbox };
}

describe.skipIf(fuseProbe !== null)(`an inbox on a FUSE filesystem${fuseProbe ? ` (skipped: ${fuseProbe})` : ''}`, () => {
  it('is polled without being asked, and a file written underneath it by another writer is handed over', async () => {
    const { under, inbox } = nasView();
    expect(sharedFilesystem(inbox)).toBe('fuse');
    expect(pollingFor(inbox, 'auto').polling).toBe(true);
    expect(pollingFor(inbox, 'events').polling).toBe(false);
    expect(pollingFor(under, 'auto').polling).toBe(false);
    const s = await startSpool(inbox, 'auto');
    expect(s.spool.polling).toBe(true);
    await sleep(500); // the first scan, of the empty folder, is over: only the watch can find what comes next
    // the other writer: straight into the folder underneath, as another machine writes a NAS share
    writeFileSync(join(under, '.from-nas.json.tmp'), '{"job":"job@1"}');
    renameSync(join(under, '.from-nas.json.tmp'), join(under, 'from-nas.json'));
    await s.when(1);
    expect(s.handed).toEqual(['from-nas.json']);
  });

  it('with "watch": "events" the same write goes unheard until a rescan: why polling is the default there', async () => {
    const { under, inbox } = nasView();
    const s = await startSpool(inbox, 'events');
    expect(s.spool.polling).toBe(false);
    await sleep(500); // the first scan, of the empty folder, is over
    writeFileSync(join(under, 'unheard.json'), '{"job":"job@1"}');
    await s.when(1, 1500);
    expect(s.handed).toEqual([]);
  });
});
