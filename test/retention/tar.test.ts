/**
 * The ustar writer and reader of src/retention/tar.ts against the system's
 * own `tar`: long names (pax), links, folders, and copying entries across.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addToArchive } from '../../src/retention/archive.js';
import { parseDuration } from '../../src/retention/duration.js';
import { tempDir } from '../helpers/temp.js';

describe('retention archives', () => {
  it('names longer than ustar holds, symbolic links and empty folders come back out of the system tar as written', async () => {
    const dir = tempDir('pico-tar-');
    const src = join(dir, 'src');
    const deep = join(src, 'a'.repeat(120), 'b'.repeat(120));
    mkdirSync(deep, { recursive: true });
    mkdirSync(join(src, 'empty'));
    writeFileSync(join(deep, `${'c'.repeat(90)}.txt`), 'deep content\n');
    writeFileSync(join(src, 'exact512'), Buffer.alloc(512, 7));
    symlinkSync('../somewhere/' + 'l'.repeat(110), join(src, 'link'));
    const archive = join(dir, 'x.tar.gz');
    await addToArchive(archive, [{ path: src, as: 'session' }]);
    const out = join(dir, 'out');
    mkdirSync(out);
    const r = spawnSync('tar', ['xzf', archive, '-C', out], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(out, 'session', 'a'.repeat(120), 'b'.repeat(120), `${'c'.repeat(90)}.txt`), 'utf8')).toBe('deep content\n');
    expect(readFileSync(join(out, 'session', 'exact512')).equals(Buffer.alloc(512, 7))).toBe(true);
    expect(readlinkSync(join(out, 'session', 'link'))).toBe('../somewhere/' + 'l'.repeat(110));
    expect(spawnSync('tar', ['tzf', archive], { encoding: 'utf8' }).stdout).toContain('session/empty/');
  });

  it('adding to an archive keeps every old entry, long-named ones included', async () => {
    const dir = tempDir('pico-tar-');
    const one = join(dir, 'one');
    const two = join(dir, 'two');
    mkdirSync(join(one, 'd'.repeat(150)), { recursive: true });
    writeFileSync(join(one, 'd'.repeat(150), 'f'.repeat(99)), 'first');
    mkdirSync(two);
    writeFileSync(join(two, 'g'), 'second');
    const archive = join(dir, 'm.tar.gz');
    await addToArchive(archive, [{ path: one, as: 'one' }]);
    await addToArchive(archive, [{ path: two, as: 'two' }]);
    const names = spawnSync('tar', ['tzf', archive], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(names).toEqual(['one/', `one/${'d'.repeat(150)}/`, `one/${'d'.repeat(150)}/${'f'.repeat(99)}`, 'two/', 'two/g']);
  });

  it('ages are a number and a unit; anything else is refused with the accepted forms', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('0.5d')).toBe(43_200_000);
    for (const bad of ['30', 'd', '-1d', '0d', '30 days', '1y', '']) expect(() => parseDuration(bad), bad).toThrow(/90m, 12h, 30d/);
  });
});
