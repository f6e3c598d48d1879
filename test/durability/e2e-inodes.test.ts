/**
 * Issue 34, item 1: "inode exhaustion pauses intake like a full disk (log line, status.json,
 * `pico status`, resumes by itself when inodes free up)". The real daemon serves a root whose
 * sessions/ folder is a tmpfs with few inodes and plenty of bytes; every free inode is taken
 * while jobs arrive (renamed in: a rename needs no new inode), then given back.
 */
import { readFileSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { pico, startDaemon } from '../daemon/spawn.js';
import { fillInodes, tmpfsProbe, unfill } from '../helpers/tmpfs.js';
import { pauseOf, tmpfsRoot, untilPaused } from './tmpfs-root.js';

const JOBS = 12;

/** Session ids with a whole result.json. */
function finished(sessions: string): string[] {
  return readdirSync(sessions).filter((n) => /^\d{8}-/.test(n)).filter((id) => {
    try {
      return typeof (JSON.parse(readFileSync(join(sessions, id, 'result.json'), 'utf8')) as { outcome?: unknown }).outcome === 'string';
    } catch {
      return false;
    }
  });
}

describe.skipIf(tmpfsProbe !== null)(`a filesystem out of inodes under the daemon${tmpfsProbe ? ` (skipped: ${tmpfsProbe})` : ''}`, () => {
  it('running out of inodes pauses intake and resumes by itself', async () => {
    const { root, sessions, arrive } = tmpfsRoot('pico-e2e-inodes-', '64m', JOBS, 2000);

    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const filler = fillInodes(sessions);
    expect(statfsSync(sessions).ffree).toBe(0);
    expect(statfsSync(sessions).bavail * statfsSync(sessions).bsize).toBeGreaterThan(32 * 1024 * 1024); // bytes are free: only inodes ran out
    arrive();

    const paused = await d.waitFor((l) => l.event === 'paused', 30_000);
    expect(paused.level).toBe(50);
    expect(paused.code).toBe('ENOSPC');
    expect(String(paused.msg)).toMatch(/inode/);
    const pause = await untilPaused(root);
    expect(pause).toMatchObject({ code: 'ENOSPC' });
    expect(pause!.fix).toMatch(/inode/);
    expect(pico(['status', '--root', root]).stdout).toMatch(/paused:\s+ENOSPC/);

    await sleep(1500); // still out of inodes: nothing is lost, rejected or closed meanwhile
    expect(readdirSync(join(sessions, 'rejected'))).toEqual([]);

    unfill(filler);
    await d.waitFor((l) => l.event === 'unpaused', 30_000);
    for (let i = 0; i < 300 && finished(sessions).length < JOBS; i++) await sleep(100);
    expect(finished(sessions)).toHaveLength(JOBS);
    expect(readdirSync(join(sessions, 'inbox'))).toEqual([]);
    expect(d.lines.filter((l) => l.event === 'ready')).toHaveLength(1); // the same daemon: no restart
    await sleep(700); // the status write is coalesced
    expect(pauseOf(root)).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 120_000);
});
