// A manifest means one thing (issue 20): UTF-8, JSON with no key twice, read without following a
// link, one id per file, and no provider that both reads data and decides what runs.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestJson, readManifestText } from '../../src/base/manifest-file.js';
import { duplicateId, mixedServing } from '../../src/registry/manifest-text.js';
import { tempDir } from '../helpers/temp.js';

describe('manifestJson', () => {
  it('a key given twice is an issue naming both lines and the fix', () => {
    const r = manifestJson('manifests/tools/t.json', '{\n "name": "t",\n "effect": "destructive",\n "effect": "read_only"\n}');
    expect(r).toEqual({ issues: [{ file: 'manifests/tools/t.json', path: '', message: 'key "effect" appears twice, at line 3 and again at line 4; JSON keeps only the last', fix: expect.stringContaining('keep one "effect"') }] });
  });

  it('bytes that are not UTF-8 are an issue naming the offset', () => {
    const r = manifestJson('m.json', Buffer.from('{"d": "caf\xe9"}', 'latin1'));
    expect('issues' in r && r.issues[0]!.message).toBe('is not UTF-8: byte offset 10 (0xe9) is not valid UTF-8');
  });

  it('a syntax error names line and column; a top level that is no object is refused; a good file parses', () => {
    expect('issues' in manifestJson('m.json', '{\n "a": }') && (manifestJson('m.json', '{\n "a": }') as { issues: { message: string }[] }).issues[0]!.message).toMatch(/line 2, column 7/);
    expect('issues' in manifestJson('m.json', '[1]')).toBe(true);
    expect(manifestJson('m.json', Buffer.from('{"a": "é"}'))).toEqual({ value: { a: 'é' } });
  });
});

describe('readManifestText', () => {
  it('reads a manifest under the root; refuses one that is a symlink out of it without quoting it', () => {
    const root = tempDir('pico-mt-');
    chmodSync(root, 0o700);
    mkdirSync(join(root, 'manifests', 'tools'), { recursive: true });
    writeFileSync(join(root, 'manifests', 'tools', 'a.json'), '{"a":1}');
    expect(readManifestText(root, 'manifests/tools/a.json')).toBe('{"a":1}');
    writeFileSync(join(root, 'manifests', 'tools', 'c.json'), Buffer.from('{"d": "caf\xe9"}', 'latin1'));
    expect(() => readManifestText(root, 'manifests/tools/c.json')).toThrow(/is not UTF-8: byte offset 10/);
    const outside = join(tempDir('pico-mt-out-'), 'secret.json');
    writeFileSync(outside, 'secret-text');
    symlinkSync(outside, join(root, 'manifests', 'tools', 'b.json'));
    expect(() => readManifestText(root, 'manifests/tools/b.json')).toThrow(/symlink/);
    try {
      readManifestText(root, 'manifests/tools/b.json');
    } catch (err) {
      expect((err as Error).message).not.toContain('secret-text');
    }
  });
});

describe('one id per file, one kind of capability per provider', () => {
  it('a duplicate id names both files', () => {
    expect(duplicateId('schema', 'log_summary@2', 'manifests/schemas/a.json', 'manifests/schemas/b.json').message).toBe('schema id "log_summary@2" is declared twice: in manifests/schemas/a.json and again in manifests/schemas/b.json');
  });

  it('a provider serving a control and a data capability is refused; one kind only passes', () => {
    const control = (c: string) => ({ 'plan@1': true, 'extract@1': false, 'answer@1': false } as Record<string, boolean>)[c];
    const issues = mixedServing([{ id: 'p', implements: ['plan@1', 'extract@1'] }, { id: 'q', implements: ['extract@1', 'answer@1'] }, { id: 'r', implements: ['plan@1', 'nope@1'] }], control, (id) => `manifests/providers/${id}.json`);
    expect(issues.map((i) => i.file)).toEqual(['manifests/providers/p.json']);
    expect(issues[0]!.message).toMatch(/control capability plan@1 and the data capability extract@1/);
  });
});
