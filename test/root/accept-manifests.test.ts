/**
 * Issue 33, item 1: "a good one takes effect for the next job …; a bad one is refused with a
 * reason file, the previous set stays in force … A removed manifest is removed for the next
 * job." The decision the daemon's manifest watch asks for (src/root/accept-manifests.ts), on a
 * real root made by pico init, checked by the rules of `pico manifests check`.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptManifests, refusalsOnRecord } from '../../src/root/accept-manifests.js';
import { initRoot } from '../../src/root/init.js';
import { openRuntime } from '../../src/root/runtime.js';
import { readSnapshot } from '../../src/root/snapshot.js';
import { tempDir } from '../helpers/temp.js';

function freshRoot(): { root: string; lastGood: string } {
  const root = tempDir('pico-accept-');
  initRoot(root);
  return { root, lastGood: join(tempDir('pico-accept-lg-'), 'manifests.last-good.json') };
}

const toolJson = (root: string, name: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...(JSON.parse(readFileSync(join(root, 'manifests', 'tools', 'read_file.json'), 'utf8')) as object), name, ...extra }, null, 2);

describe('the manifests in force', () => {
  it('a good manifest dropped beside a refused one still takes effect, and the refused one never enters the set in force', async () => {
    const { root, lastGood } = freshRoot();
    expect((await acceptManifests(root, lastGood)).refused).toEqual([]);
    writeFileSync(join(root, 'manifests', 'tools', 'typo.json'), toolJson(root, 'typo', { secuirty: 'none' }));
    writeFileSync(join(root, 'manifests', 'tools', 'read_more.json'), toolJson(root, 'read_more'));
    const a = await acceptManifests(root, lastGood);
    expect(a.added).toEqual(['manifests/tools/read_more.json']);
    expect(a.refused.map((r) => r.file)).toEqual(['manifests/tools/typo.json']);
    expect(a.refused[0]!.problems[0]!.message).toMatch(/unknown key "secuirty"/);
    const inForce = readSnapshot(lastGood)!;
    expect(inForce.lists.tools).toContain('read_more.json');
    expect(inForce.lists.tools).not.toContain('typo.json');
    expect(refusalsOnRecord(root)).toEqual(['manifests/tools/typo.json']);
  });

  it('an edit that breaks a manifest is refused and its previous version stays in force; fixing it takes the fix', async () => {
    const { root, lastGood } = freshRoot();
    await acceptManifests(root, lastGood);
    const file = join(root, 'manifests', 'tools', 'read_file.json');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace('"effect": "read_only"', '"effect": "read-only"'));
    const a = await acceptManifests(root, lastGood);
    expect(a.same).toBe(true);
    expect(a.refused).toMatchObject([{ file: 'manifests/tools/read_file.json', in_force: 'the previous version' }]);
    expect(readSnapshot(lastGood)!.files['manifests/tools/read_file.json']).toBe(good);
    writeFileSync(file, good.replace('Read one log file', 'Read one log file (fixed)'));
    const b = await acceptManifests(root, lastGood);
    expect(b.changed).toEqual(['manifests/tools/read_file.json']);
    expect(b.refused).toEqual([]);
    expect(refusalsOnRecord(root)).toEqual([]);
    expect(existsSync(join(root, 'manifests', 'rejected'))).toBe(false);
  });

  it('a removed manifest leaves the set in force, unless others still need it: then the removal is held back, naming them', async () => {
    const { root, lastGood } = freshRoot();
    writeFileSync(join(root, 'manifests', 'tools', 'read_more.json'), toolJson(root, 'read_more'));
    await acceptManifests(root, lastGood);
    rmSync(join(root, 'manifests', 'tools', 'read_more.json'));
    expect((await acceptManifests(root, lastGood)).removed).toEqual(['manifests/tools/read_more.json']);
    expect(readSnapshot(lastGood)!.lists.tools).not.toContain('read_more.json');
    // the extract@1 capability is every tool's reducer: removing it breaks them all
    rmSync(join(root, 'manifests', 'capabilities', 'extract@1.json'));
    const a = await acceptManifests(root, lastGood);
    expect(a.removed).toEqual([]);
    expect(a.refused).toMatchObject([{ file: 'manifests/capabilities/extract@1.json', in_force: 'the file: its removal is held back' }]);
    expect(a.refused[0]!.problems.some((p) => /manifests\/tools\/read_file\.json at reducer: capability "extract@1" does not exist/.test(p.message))).toBe(true);
    expect(readSnapshot(lastGood)!.lists.capabilities).toContain('extract@1.json');
  });

  it('the same refusal seen again does not rewrite its reason file', async () => {
    const { root, lastGood } = freshRoot();
    await acceptManifests(root, lastGood);
    writeFileSync(join(root, 'manifests', 'tools', 'typo.json'), '{ not json');
    await acceptManifests(root, lastGood);
    const reason = join(root, 'manifests', 'rejected', 'tools', 'typo.json.reason.json');
    const first = statSync(reason);
    const text = readFileSync(reason, 'utf8');
    await new Promise((ok) => setTimeout(ok, 20));
    await acceptManifests(root, lastGood);
    expect(statSync(reason).ino).toBe(first.ino);
    expect(statSync(reason).mtimeMs).toBe(first.mtimeMs);
    expect(readFileSync(reason, 'utf8')).toBe(text);
  });

  it('a worker started on a root with a refusal on record opens the set in force, not a broken daemon (a restart after a refused drop)', async () => {
    const { root } = freshRoot();
    const lastGood = join(root, 'sessions', '.daemon', 'manifests.last-good.json');
    await acceptManifests(root, lastGood);
    writeFileSync(join(root, 'manifests', 'tools', 'typo.json'), toolJson(root, 'typo', { secuirty: 'none' }));
    await acceptManifests(root, lastGood);
    // the first worker of a daemon (no fallBack of its own) would stop the daemon with exit 3 on these folders
    const rt = await openRuntime(root, { lastGood: { file: lastGood, fallBack: false } });
    expect(rt.registry.tools.has('typo')).toBe(false);
    expect(rt.registry.tools.has('read_file')).toBe(true);
    await rt.close();
    rmSync(join(root, 'manifests', 'rejected'), { recursive: true });
    await expect(openRuntime(root, { lastGood: { file: lastGood, fallBack: false } })).rejects.toThrow(/secuirty/);
  });
});
