/**
 * Issue 32: a session worker that opens the same manifest files as the last one takes what they
 * gave from the record the last one kept (src/root/checked-set.ts) rather than checking each file
 * again — and only then. Real roots, real files: the record is used only for the exact bytes it
 * was made from, under this build, when this user wrote it whole; a typo gives the same named
 * error with a record in place; the checks against the filesystem are still made.
 */
import { chmodSync, chownSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { daemonPaths } from '../../src/daemon/paths.js';
import { makeRoot } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';

/** A runtime opened as the session worker opens one (deferred, last good set kept, the record), warmed and closed. */
async function open(root: string): Promise<{ fromRecord: boolean; composition: string; documents: unknown; files: unknown }> {
  const paths = daemonPaths(root);
  mkdirSync(paths.daemonDir, { recursive: true });
  const rt: Runtime = await openRuntime(root, { lastGood: { file: paths.lastGood, fallBack: false }, deferWarm: true, checkedSet: paths.checkedSet });
  try {
    await rt.warm();
    const c = rt.currentComposition();
    return { fromRecord: rt.checkedFromRecord, composition: `${c.hash}\n${JSON.stringify(c.doc)}`, documents: rt.loadedRoot.documents, files: rt.loadedRoot.files };
  } finally {
    await rt.close();
  }
}

/** What opening `root` throws, as a message. */
async function failure(root: string): Promise<string> {
  try {
    await open(root);
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
  throw new Error('the root opened');
}

const recordOf = (root: string): string => daemonPaths(root).checkedSet;

/** Rewrite the record's body with `edit` and its first line to match: a record this user wrote, of other content. */
function rewrite(root: string, edit: (v: Record<string, unknown>) => void): void {
  const text = readFileSync(recordOf(root), 'utf8');
  const v = JSON.parse(text.slice(text.indexOf('\n') + 1)) as Record<string, unknown>;
  edit(v);
  const body = JSON.stringify(v);
  writeFileSync(recordOf(root), `${createHash('sha256').update(body).digest('hex')}\n${body}`, { mode: 0o600 });
}

describe('the record of checked manifests', () => {
  it('is kept by the first open and taken by the next on the same bytes, which loads the same set and composition, byte for byte', async () => {
    const root = makeRoot();
    const first = await open(root);
    expect(first.fromRecord).toBe(false);
    expect(readFileSync(recordOf(root), 'utf8')).toMatch(/^[0-9a-f]{64}\n\{"format":"checked-manifests@1"/);
    const second = await open(root);
    expect(second.fromRecord).toBe(true);
    expect(second.composition).toBe(first.composition);
    expect(isDeepStrictEqual(second.documents, first.documents)).toBe(true); // no key gained or lost on the way through JSON
    expect(isDeepStrictEqual(second.files, first.files)).toBe(true);
  });

  it('is not taken for other bytes: one character changed is checked, recorded anew, and in the composition', async () => {
    const root = makeRoot();
    const before = await open(root);
    const file = join(root, 'manifests', 'tools', 'read_file.json');
    const tool = JSON.parse(readFileSync(file, 'utf8')) as { description: string };
    writeFileSync(file, JSON.stringify({ ...tool, description: `${tool.description}!` }, null, 2));
    const after = await open(root);
    expect(after.fromRecord).toBe(false);
    expect(after.composition).not.toBe(before.composition);
    expect(after.composition).toContain(`${tool.description}!`);
    expect((await open(root)).fromRecord).toBe(true); // the new bytes' record
    // and the old bytes again are checked again: the record holds one set, the last
    writeFileSync(file, JSON.stringify(tool, null, 2));
    expect((await open(root)).fromRecord).toBe(false);
  });

  it('does not hide a typo: the same named error as on a root that never had a record', async () => {
    const warm = makeRoot();
    await open(warm);
    expect((await open(warm)).fromRecord).toBe(true);
    const cold = makeRoot();
    for (const root of [warm, cold]) {
      const file = join(root, 'manifests', 'providers', 'media-header.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"security"', '"secuirty"'));
    }
    const withRecord = await failure(warm);
    expect(withRecord).toMatch(/^manifests\/providers\/media-header\.json at secuirty: unknown key "secuirty" — did you mean "security"\?/m);
    expect(withRecord.replaceAll(warm, '<root>')).toBe((await failure(cold)).replaceAll(cold, '<root>'));
  });

  it('still checks what the manifests name on the filesystem: a shell provider\'s program gone fails the set', async () => {
    const root = makeRoot();
    await open(root);
    rmSync(join(root, 'providers', 'media-header.sh'));
    expect(await failure(root)).toMatch(/media-header\.json at command\.0: providers\/media-header\.sh does not exist under the root/);
  });

  it('is ignored when torn, edited, of another build, loose or linked, and the files are checked again', async () => {
    const root = makeRoot();
    chmodSync(root, 0o2770);
    const reference = (await open(root)).composition;
    const spoilt: Record<string, () => void> = {
      torn: () => writeFileSync(recordOf(root), readFileSync(recordOf(root), 'utf8').slice(0, -100), { mode: 0o600 }),
      edited: () => writeFileSync(recordOf(root), readFileSync(recordOf(root), 'utf8').replace('"may_emit_control":false', '"may_emit_control":true'), { mode: 0o600 }),
      'of another build': () => rewrite(root, (v) => (v.build = `${String(v.build)} (another)`)),
      // in a root whose group may write (mode 2770), where the safe open admits group-writable files
      'writable by the group': () => chmodSync(recordOf(root), 0o620),
      'a symlink to a whole record': () => {
        const elsewhere = join(tempDir('pico-record-'), 'record');
        renameSync(recordOf(root), elsewhere);
        symlinkSync(elsewhere, recordOf(root));
      },
      'not JSON': () => rewrite(root, (v) => (v.set = null)),
    };
    for (const [how, spoil] of Object.entries(spoilt)) {
      expect((await open(root)).fromRecord, `a whole record before "${how}"`).toBe(true);
      spoil();
      const opened = await open(root);
      expect(opened.fromRecord, how).toBe(false);
      expect(opened.composition, how).toBe(reference);
      rmSync(recordOf(root), { force: true });
      await open(root); // a new record
    }
  });

  it.skipIf(process.geteuid?.() !== 0)('is ignored when another user owns it, even one the root admits', async () => {
    const root = makeRoot();
    await open(root);
    expect((await open(root)).fromRecord).toBe(true);
    // the root's owner is admitted by the safe open (pico approve writes as them): not enough for a record
    chownSync(root, 65534, 65534);
    chownSync(recordOf(root), 65534, 65534);
    expect((await open(root)).fromRecord).toBe(false);
    chownSync(recordOf(root), 0, 0);
    expect((await open(root)).fromRecord).toBe(true);
  });

  it('an edited record that still says it is whole is believed only when this user wrote it: the body names what the files gave', async () => {
    // what the owner check protects: a record is trusted for what it says the files gave
    const root = makeRoot();
    await open(root);
    rewrite(root, (v) => ((v.set as { documents: { tools: Record<string, { description: string }> } }).documents.tools.read_file!.description = 'from the record'));
    const opened = await open(root);
    expect(opened.fromRecord).toBe(true);
    expect(opened.composition).toContain('from the record');
  });
});
