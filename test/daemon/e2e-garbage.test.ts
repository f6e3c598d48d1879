/**
 * Issue 3, "Done when": "another drops each kind of garbage above and
 * asserts each is rejected with a reason while a good job still finishes."
 * Garbage: unparseable JSON, a JSON value that is not a job, unknown fields,
 * a file over the size limit, a symlink, names with path tricks or control
 * characters, a directory.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReasonFile } from '../../src/daemon/reject.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { startDaemon } from './spawn.js';

describe('bad input, end to end', () => {
  it('every kind of garbage is rejected with a reason, a good job still finishes, and the daemon keeps running', async () => {
    const root = tempRoot('pico-e2e-garbage-');
    initRoot(root);
    const inbox = join(root, 'sessions', 'inbox');
    const good = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8');
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');

    const secret = join(root, 'secret.json');
    writeFileSync(secret, good);
    const garbage: Record<string, RegExp> = {
      'unparseable.json': /not valid JSON/,
      'not-a-job.json': /not a valid job@1/,
      'unknown-field.json': /unknown field\(s\) "priority"/,
      'huge.json': /over the 262144-byte limit/,
      'link.json': /symbolic link/,
      'a..b.json': /path trick/,
      'bell\u0007.json': /control characters/,
      'folder.json': /not a regular file/,
      'notes.txt': /does not end in \.json/,
    };
    writeFileSync(join(inbox, 'unparseable.json'), '{"job": "job@1", "goal": ');
    writeFileSync(join(inbox, 'not-a-job.json'), '"just a string"');
    writeFileSync(join(inbox, 'unknown-field.json'), JSON.stringify({ ...JSON.parse(good), priority: 'high' }));
    writeFileSync(join(inbox, 'huge.json'), JSON.stringify({ ...JSON.parse(good), label: 'x'.repeat(300 * 1024) }));
    symlinkSync(secret, join(inbox, 'link.json'));
    writeFileSync(join(inbox, 'a..b.json'), good);
    writeFileSync(join(inbox, 'bell\u0007.json'), good);
    mkdirSync(join(inbox, 'folder.json'));
    writeFileSync(join(inbox, 'notes.txt'), good);
    writeFileSync(join(inbox, 'good.json'), good);

    const finished = await d.waitFor((l) => l.event === 'finished', 30_000);
    for (const name of Object.keys(garbage)) await d.waitFor((l) => l.event === 'rejected' && l.file === name && l.level === 40);

    const reasons = readdirSync(join(root, 'sessions', 'rejected'))
      .filter((n) => n.endsWith('.reason.json'))
      .map((n) => JSON.parse(readFileSync(join(root, 'sessions', 'rejected', n), 'utf8')) as ReasonFile);
    expect(reasons.map((r) => r.original_name).sort()).toEqual(Object.keys(garbage).sort());
    for (const r of reasons) {
      expect(r.problem, r.original_name).toMatch(garbage[r.original_name]!);
      expect(r.fix.length, r.original_name).toBeGreaterThan(10);
      // each rejected entry sits beside its reason; the symlink is moved as a link
      const moved = lstatSync(join(root, 'sessions', 'rejected', r.stored_as));
      if (r.original_name === 'link.json') expect(moved.isSymbolicLink()).toBe(true);
    }
    expect(readFileSync(secret, 'utf8')).toBe(good);
    expect(readdirSync(inbox).filter((n) => !n.startsWith('.'))).toEqual([]);

    expect(finished.outcome).toBe('answered');
    const result = JSON.parse(readFileSync(join(root, 'sessions', String(finished.session), 'result.json'), 'utf8')) as { outcome: string };
    expect(result.outcome).toBe('answered');
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
