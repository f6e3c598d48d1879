/**
 * `pico gc` as a user runs it: the compiled CLI (dist/), exit codes, the
 * human summary and --json. Needs `npx tsc` first, like the daemon suites.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { picoAsync as pico } from '../daemon/spawn.js';
import { age, runSessions } from './fixtures.js';

describe('pico gc (CLI)', () => {
  it('a bad or missing --older-than is a usage error (exit 2) that shows the accepted forms, and nothing is removed', async () => {
    const { root, ids } = await runSessions(1);
    age(root, ids[0]!, 100);
    const bad = await pico(['gc', '--older-than', '30 days', '--root', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--older-than: "30 days" is not an age.*90m, 12h, 30d/);
    expect((await pico(['gc', '--root', root])).code).toBe(2);
    expect(existsSync(join(root, 'sessions', ids[0]!))).toBe(true);
  }, 60_000);

  it('--dry-run --json reports what would go; the real run prints how many sessions and bytes', async () => {
    const { root, ids } = await runSessions(2);
    age(root, ids[0]!, 100);
    const dry = await pico(['gc', '--older-than', '30d', '--dry-run', '--json', '--root', root]);
    expect(dry.code, dry.stderr).toBe(0);
    const doc = JSON.parse(dry.stdout) as { sessions: number; bytes: number; items: { name: string }[]; dry_run: boolean };
    expect(doc).toMatchObject({ sessions: 1, dry_run: true });
    expect(doc.items.map((i) => i.name)).toEqual([ids[0]]);
    expect(existsSync(join(root, 'sessions', ids[0]!))).toBe(true);
    const run = await pico(['gc', '--older-than', '30d', '--root', root]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/removed 1 session\(s\) and 0 rejected entries that ended before .*: [\d.]+ kB freed/);
    expect(existsSync(join(root, 'sessions', ids[0]!))).toBe(false);
  }, 60_000);
});
