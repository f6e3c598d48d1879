/**
 * Issue 34, item 1: "a non-UTF-8 inbox name is moved to rejected/ under a safe name with a
 * reason naming the bytes". Node reads names as UTF-8 and replaces a bad byte, and the replaced
 * name does not exist on disk: such a file used to stay in the inbox for ever, with no reason.
 * The real daemon, a real file whose name holds a Latin-1 byte.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReasonFile } from '../../src/daemon/reject.js';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from './helpers.js';
import { startDaemon, stopDaemon } from './spawn.js';

describe('an inbox entry whose name is not UTF-8', () => {
  it('a file name that is not UTF-8 is rejected under a safe name', async () => {
    const root = tempRoot('pico-e2e-badname-');
    initRoot(root);
    const inbox = join(root, 'sessions', 'inbox');
    const good = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8');
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    // "café.json" as Latin-1 wrote it: é is the single byte 0xE9
    const raw = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.json')]);
    writeFileSync(Buffer.concat([Buffer.from(`${inbox}/`), raw]), good);
    writeFileSync(join(inbox, 'good.json'), good);

    const line = await d.waitFor((l) => l.event === 'rejected' && l.file_hex === raw.toString('hex'), 20_000);
    expect(line.level).toBe(40);
    await d.waitFor((l) => l.event === 'finished', 30_000); // the good job beside it runs

    expect(readdirSync(inbox, { encoding: 'buffer' })).toEqual([]);
    const rejected = join(root, 'sessions', 'rejected');
    const reasons = readdirSync(rejected).filter((n) => n.endsWith('.reason.json'));
    expect(reasons).toHaveLength(1);
    const r = JSON.parse(readFileSync(join(rejected, reasons[0]!), 'utf8')) as ReasonFile;
    expect(r.stored_as).toMatch(/^[A-Za-z0-9._-]+$/); // a safe name: nothing to escape, nothing to mistype
    expect(r.stored_as).toMatch(/-caf_\.json$/);
    expect(existsSync(join(rejected, r.stored_as))).toBe(true);
    expect(readFileSync(join(rejected, r.stored_as), 'utf8')).toBe(good); // moved whole
    expect(r.original_name_hex).toBe(raw.toString('hex'));
    expect(r.problem).toMatch(/not UTF-8: byte offset 3 \(0xe9\)/);
    expect(r.problem).toContain('63 61 66 e9 2e 6a 73 6f 6e'); // the bytes, named
    expect(r.fix).toMatch(/UTF-8/);
    await stopDaemon(d);
  }, 60_000);
});
