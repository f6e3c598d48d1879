/**
 * `pico replay --all` (issue 21, done when: "pico replay --all … says identical for all of
 * them"): the compiled CLI replays every session of a root made by `pico init`, a line each,
 * skips what has not finished, and exits 1 as soon as one session is not identical — here,
 * refused because the root's prompts changed after it ran. Needs `npm run build` first.
 */
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { picoAsync as pico } from '../daemon/spawn.js';
import { makeRoot } from '../helpers/root.js';

describe('pico replay --all', () => {
  it('replays every finished session (identical, exit 0), skips an unfinished one, and exits 1 once the composition has moved', async () => {
    const root = makeRoot('pico-replay-all-');
    for (const job of ['why-is-the-disk-full.json', 'prune-the-log-archive.json']) {
      const r = await pico(['run', join(root, 'examples', 'jobs', job), '--root', root]);
      expect(r.code === 0 || r.code === 1, r.stderr).toBe(true); // the prune is declined: no approver in pico run
    }
    const waiting = join(root, 'sessions', '20261202-000000-00000000000b');
    mkdirSync(waiting);
    copyFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), join(waiting, 'job.json'));
    writeFileSync(join(waiting, 'events.jsonl'), ''); // claimed, not begun

    const all = await pico(['replay', '--all', '--root', root]);
    expect(all.code, all.stdout + all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('identical'))).toHaveLength(2);
    expect(lines.some((l) => /^skipped +20261202-000000-00000000000b +not finished/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe('3 session(s): 2 identical, 0 differ, 0 refused, 1 skipped');

    appendFileSync(join(root, 'prompts', 'extract-log-summary.md'), '\nOne more line.\n');
    const moved = await pico(['replay', '--all', '--root', root, '--json']);
    expect(moved.code).toBe(1);
    expect(JSON.parse(moved.stdout)).toMatchObject({ identical: 0, refused: 2, skipped: 1 });
  }, 120_000);
});
