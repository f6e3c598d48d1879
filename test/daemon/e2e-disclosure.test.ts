/**
 * Issue 14 item 9, on the real compiled daemon: "a hard link to /etc/shadow
 * dropped in the inbox got a 0644 reason file quoting its first
 * characters; non-UTF-8 bytes in a goal are silently replaced". An inbox
 * file that is a second link to another file, or is owned by another user,
 * is refused on its metadata alone (never read, so never quoted); reason
 * files are 0600 in a 0700 folder; a bad byte is named by its offset.
 */
import { chownSync, linkSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReasonFile } from '../../src/daemon/reject.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { picoAsync as pico, startDaemon } from './spawn.js';

const isRoot = process.getuid?.() === 0;

describe('what a reason file may disclose', () => {
  it('a hard link to a secret, a file owned by another user and a goal with a Latin-1 byte are refused with 0600 reasons that quote nothing unread', async () => {
    const root = tempRoot('pico-e2e-disclosure-');
    initRoot(root);
    const inbox = join(root, 'sessions', 'inbox');
    const good = JSON.parse(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8')) as Record<string, unknown>;
    // stands in for /etc/shadow: a file outside the inbox whose first characters must never leak
    const secret = join(root, 'shadow');
    writeFileSync(secret, 'root:$6$SECRETSALT$hash:19000:0:99999:7:::\n', { mode: 0o600 });
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');

    linkSync(secret, join(inbox, 'linked.json'));
    const text = JSON.stringify({ ...good, goal: 'Why is the disk full? cafX' });
    const at = Buffer.byteLength(text.slice(0, text.indexOf('cafX') + 3));
    const bad = Buffer.from(text);
    bad[at] = 0xe9;
    writeFileSync(join(inbox, 'latin1.json'), bad);
    const expected: Record<string, RegExp> = {
      'linked.json': /has 2 hard links.*it was not read/,
      'latin1.json': new RegExp(`byte offset ${at} \\(0xe9\\) is not valid UTF-8`),
    };
    if (isRoot) {
      const foreign = join(inbox, 'foreign.json');
      writeFileSync(foreign, 'root:$6$SECRETSALT$ but owned by nobody');
      chownSync(foreign, 65534, 65534);
      expected['foreign.json'] = /owned by uid 65534, not by the daemon's user \(uid 0\); it was not read/;
    } else {
      console.warn('not root: the foreign-owner case needs chown and is skipped');
    }
    for (const name of Object.keys(expected)) await d.waitFor((l) => l.event === 'rejected' && l.file === name);

    const dir = join(root, 'sessions', 'rejected');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const reasons = readdirSync(dir).filter((n) => n.endsWith('.reason.json'));
    expect(reasons).toHaveLength(Object.keys(expected).length);
    for (const n of reasons) {
      const path = join(dir, n);
      expect(statSync(path).mode & 0o777, n).toBe(0o600);
      const raw = readFileSync(path, 'utf8');
      expect(raw, n).not.toMatch(/SECRETSALT|root:\$6/);
      const r = JSON.parse(raw) as ReasonFile;
      expect(r.problem, r.original_name).toMatch(expected[r.original_name]!);
    }
    // the logged problem quotes nothing either
    expect(JSON.stringify(d.lines)).not.toMatch(/SECRETSALT/);
    // the same bad byte through `pico run` and `pico submit`: the user's error, exit 2 from both (issue 37 item 4)
    const file = join(root, 'latin1-job.json');
    writeFileSync(file, bad);
    for (const [cmd, code] of [['run', 2], ['submit', 2]] as const) {
      const r = await pico([cmd, file, '--root', root]);
      expect(r.code, cmd).toBe(code);
      expect(r.stderr, cmd).toMatch(new RegExp(`byte offset ${at} \\(0xe9\\)`));
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
