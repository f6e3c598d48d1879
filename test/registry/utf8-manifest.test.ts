/**
 * Issue 34, item 1: "a manifest that is not valid UTF-8 is refused with the file and the byte
 * offset". It used to load: `pico manifests check` never read the playbooks or the lexicon, and a
 * session worker (which loads from a snapshot of the folders) said only that the file "could not
 * be read". Every manifest folder, a real root, the real command and the worker's way of loading.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { openRuntime } from '../../src/root/runtime.js';
import { tempDir } from '../helpers/temp.js';
import { pico } from '../daemon/spawn.js';

/** Put a Latin-1 byte (é as 0xE9) inside the first string value of `file`; returns its byte offset. */
function latin1Into(file: string): number {
  const bytes = readFileSync(file);
  const at = bytes.indexOf(': "') + 3;
  writeFileSync(file, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at)]));
  return at;
}

describe.each(['tools', 'providers', 'capabilities', 'schemas', 'playbooks', 'lexicon'])('a manifest in manifests/%s that is not UTF-8', (folder) => {
  it('a manifest that is not UTF-8 is refused with the byte offset', async () => {
    const root = tempDir('pico-utf8-manifest-');
    initRoot(root);
    const name = readdirSync(join(root, 'manifests', folder)).filter((n) => n.endsWith('.json')).sort()[0]!;
    const file = `manifests/${folder}/${name}`;
    const offset = latin1Into(join(root, file));

    const r = pico(['manifests', 'check', '--root', root, '--json']);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout) as { ok: boolean; issues: { file: string; message: string; fix: string }[] };
    expect(out.ok).toBe(false);
    const issue = out.issues.find((i) => i.file === file);
    expect(issue, JSON.stringify(out.issues)).toBeDefined();
    expect(issue!.message).toContain(`byte offset ${offset} (0xe9) is not valid UTF-8`);
    expect(issue!.fix).toMatch(/UTF-8/);

    // the session worker's way: the folders taken into a snapshot, then loaded from it
    const err = await openRuntime(root, { lastGood: { file: join(tempDir('pico-lg-'), 'last-good.json'), fallBack: false } }).then(() => null, (e: Error) => e);
    expect(err?.name).toBe('ManifestError');
    expect(err!.message).toContain(`${file}: is not UTF-8: byte offset ${offset} (0xe9)`);
  });
});
