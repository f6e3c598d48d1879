/**
 * Issue 14, item 1: "every write is whole or not at all". On a real tmpfs that
 * runs out of space: an atomic file is either the old one or the whole new
 * one (never a prefix, no temp file left), and every ledger append that
 * returned is on disk in full while the file always ends at an event boundary.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsyncDirs, writeFileAtomic, writeFileAtomicSync } from '../../src/base/durable-file.js';
import { Ledger, readLedger } from '../../src/ledger/ledger.js';
import { isStorageError } from '../../src/base/storage-error.js';
import { tempDir } from '../helpers/temp.js';
import { fill, mountTmpfs, tmpfsProbe, unfill } from '../helpers/tmpfs.js';

const onTmpfs = (size: string): string => {
  const dir = tempDir('pico-full-');
  const why = mountTmpfs(dir, size);
  if (why) throw new Error(why);
  return dir;
};

describe.skipIf(tmpfsProbe !== null)(`whole writes on a full disk${tmpfsProbe ? ` (skipped: ${tmpfsProbe})` : ''}`, () => {
  it('an atomic file that does not fit is not put in place: the old file stays whole and no temp file is left', async () => {
    const dir = onTmpfs('256k');
    const target = join(dir, 'result.json');
    writeFileAtomicSync(target, 'old\n');
    const filler = fill(dir, 16 * 1024);
    const big = JSON.stringify({ answer: 'x'.repeat(40 * 1024) });
    let thrown: unknown = null;
    try {
      writeFileAtomicSync(target, big, false);
    } catch (err) {
      thrown = err;
    }
    expect(isStorageError(thrown)).toBe(true);
    await expect(writeFileAtomic(target, big, false)).rejects.toSatisfy(isStorageError);
    expect(readFileSync(target, 'utf8')).toBe('old\n');
    expect(readdirSync(dir).sort()).toEqual(['.filler', 'result.json']);
    unfill(filler);
    writeFileAtomicSync(target, big, false);
    expect(readFileSync(target, 'utf8')).toBe(big);
  });

  it('on a 1 MiB tmpfs every append that returned reached the disk whole, and the one that failed left nothing', () => {
    const dir = onTmpfs('1m');
    const { ledger } = Ledger.open(dir, 's1');
    const text = 'y'.repeat(3000);
    let failure: unknown = null;
    for (let i = 0; i < 1000 && failure === null; i++) {
      try {
        ledger.append({ type: 'user_input', text: `${i} ${text}`, trust: 'T0', budget_class: 'interactive', job: {} });
      } catch (err) {
        failure = err;
      }
    }
    expect(isStorageError(failure)).toBe(true);
    expect((failure as { code?: string }).code).toBe('ENOSPC');
    const appended = ledger.all.length;
    expect(() => ledger.append({ type: 'user_input', text: 'more', trust: 'T0', budget_class: 'interactive', job: {} })).toThrow(/ENOSPC/);
    ledger.close();
    const raw = readFileSync(join(dir, 'events.jsonl'), 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    expect(readLedger(dir).length).toBe(appended);
    // the reopened ledger finds exactly what the writer reported, nothing torn
    const reopened = Ledger.open(dir, 's1');
    expect(reopened.torn).toBeNull();
    expect(reopened.damaged).toBeNull();
    expect(reopened.ledger.all.length).toBe(appended);
    reopened.ledger.close();
    expect(existsSync(join(dir, 'events.jsonl'))).toBe(true);
  });
});

describe('fsyncDirs (a batch of claims made durable together)', () => {
  it('syncs every folder given; one that cannot be opened fails the call by its name, after the others, and no descriptor is left open', async () => {
    const base = tempDir('pico-fsync-dirs-');
    const dirs = ['a', 'b', 'c'].map((n) => join(base, n));
    for (const d of dirs) mkdirSync(d);
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const before = fds();
    await fsyncDirs(dirs);
    expect(fds()).toBe(before);
    const missing = join(base, 'gone');
    await expect(fsyncDirs([dirs[0]!, missing, dirs[1]!])).rejects.toMatchObject({ code: 'ENOENT', path: missing });
    expect(fds()).toBe(before);
    await expect(fsyncDirs([])).resolves.toBeUndefined();
  });
});
