/**
 * Issue 14, item 1, end to end: "ENOSPC and EIO on the ledger pause the
 * session (logged at error, `pico status` says why) and it resumes without a
 * restart once writing works again. A partial result.json can never appear."
 * The real daemon serves a root whose sessions/ folder is a small tmpfs; the
 * disk is filled to 16 KiB free while jobs arrive, then space is given back.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { pico, startDaemon } from '../daemon/spawn.js';
import { fill, tmpfsProbe, unfill } from '../helpers/tmpfs.js';
import { pauseOf, tmpfsRoot, untilPaused } from './tmpfs-root.js';

const JOBS = 30;

/** Every result.json under sessions/, parsed: a partial one fails the parse. */
function results(sessions: string): { id: string; outcome: string }[] {
  const out: { id: string; outcome: string }[] = [];
  for (const id of readdirSync(sessions).filter((n) => /^\d{8}-/.test(n))) {
    let text: string;
    try {
      text = readFileSync(join(sessions, id, 'result.json'), 'utf8');
    } catch {
      continue;
    }
    const doc = JSON.parse(text) as { outcome: string };
    out.push({ id, outcome: doc.outcome });
  }
  return out;
}

describe.skipIf(tmpfsProbe !== null)(`a full disk under the daemon${tmpfsProbe ? ` (skipped: ${tmpfsProbe})` : ''}`, () => {
  it('jobs arriving on a full disk pause with a reason in pico status, never leave a partial result.json, and all finish once space is back, without a restart', async () => {
    const { root, sessions, arrive } = tmpfsRoot('pico-e2e-full-', '4m', JOBS);

    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const filler = fill(sessions, 16 * 1024);
    arrive();

    const paused = await d.waitFor((l) => l.event === 'paused', 30_000);
    expect(paused.level).toBe(50);
    expect(paused.code).toBe('ENOSPC');
    const pause = await untilPaused(root);
    expect(pause).toMatchObject({ code: 'ENOSPC' });
    expect(pause!.fix).toMatch(/free space/);
    const human = pico(['status', '--root', root]).stdout;
    expect(human).toMatch(/paused:\s+ENOSPC/);
    expect(() => results(sessions)).not.toThrow(); // whatever finished before the disk filled is whole
    const before = results(sessions).length;
    expect(before).toBeLessThan(JOBS);

    await sleep(1500); // still full: the daemon keeps trying, nothing is lost or closed meanwhile
    expect(results(sessions).filter((r) => r.outcome !== 'answered')).toEqual([]);

    unfill(filler);
    await d.waitFor((l) => l.event === 'unpaused', 30_000);
    for (let i = 0; i < 200 && results(sessions).length < JOBS; i++) await sleep(100);
    const all = results(sessions);
    const notable = d.lines.filter((l) => l.level >= 40 || ['paused', 'unpaused', 'closing', 'closed'].includes(String(l.event)));
    expect(all.length, `results ${all.length} of ${JOBS}; inbox ${readdirSync(join(sessions, 'inbox')).join(',')}; warnings and pauses: ${JSON.stringify(notable.slice(-12))}`).toBe(JOBS);
    expect(all.every((r) => r.outcome === 'answered')).toBe(true);
    expect(d.child.exitCode).toBeNull(); // the same daemon: no restart was needed
    expect(d.lines.filter((l) => l.event === 'ready')).toHaveLength(1);
    const check = pico(['check', '--root', root]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    await sleep(700); // the status write is coalesced
    expect(pauseOf(root)).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 120_000);
});
