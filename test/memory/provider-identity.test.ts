// A provider's measurement identity (issue 14 item 6): what changes it and what does not.
import { linkSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerText } from '../../bench/memory-gen.js';
import { compositionHash, compositionText, type Composition } from '../../src/ledger/composition.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { manifestIdOf, providerDigests } from '../../src/memory/provider-identity.js';

const doc = () => ({
  providers: {
    sh1: { id: 'sh1', kind: 'shell', command: ['providers/a.sh'], limits: { timeout_ms: 5000 } },
    sh2: { id: 'sh2', kind: 'shell', command: ['providers/b.sh'], limits: { timeout_ms: 5000 } },
    tiny: { id: 'tiny', kind: 'gguf', sha256: 'a'.repeat(64), prompt: 'extract' },
    parser: { id: 'parser', kind: 'code', entry: 'log-summary' },
  } as Record<string, Record<string, unknown>>,
  provider_code: { 'shell:sh1': 'sha256:1', 'shell:sh2': 'sha256:2', 'code:log-summary/index': 'sha256:3', 'code:disk-usage/index': 'sha256:4' } as Record<string, string>,
  prompts: { extract: 'sha256:p1' } as Record<string, string>,
});

describe('provider identity', () => {
  it('changes with its own manifest, program or prompt, and with nothing else', () => {
    const base = providerDigests(doc());
    const script = doc();
    script.provider_code['shell:sh1'] = 'sha256:fixed';
    expect(providerDigests(script)).toEqual({ ...base, sh1: expect.not.stringMatching(base.sh1!) });
    const limit = doc();
    (limit.providers.sh1!.limits as { timeout_ms: number }).timeout_ms = 9000;
    expect(providerDigests(limit).sh1).not.toBe(base.sh1);
    expect(providerDigests(limit).sh2).toBe(base.sh2);
    const prompt = doc();
    prompt.prompts.extract = 'sha256:p2';
    expect(providerDigests(prompt).tiny).not.toBe(base.tiny);
    expect(providerDigests(prompt).sh1).toBe(base.sh1);
    const otherCode = doc();
    otherCode.provider_code['code:disk-usage/index'] = 'sha256:changed';
    expect(providerDigests(otherCode).parser).toBe(base.parser);
    otherCode.provider_code['code:log-summary/index'] = 'sha256:changed';
    expect(providerDigests(otherCode).parser).not.toBe(base.parser);
  });

  it('a recorded model identity (id@sha256:…, id@model) belongs to its manifest id, the longest that fits', () => {
    expect(manifestIdOf('tiny@sha256:abc', ['tiny', 'tin'])).toBe('tiny');
    expect(manifestIdOf('tiny', ['tiny', 'tiny@x'])).toBe('tiny');
    expect(manifestIdOf('tiny-2@m', ['tiny'])).toBeNull();
    expect(manifestIdOf('a@b@c', ['a', 'a@b'])).toBe('a@b');
  });
});

describe('the composition document beside a ledger, read by ingest', () => {
  // sessions hard-link one document (sessions/.compositions); ingest keeps its text by the file's
  // identity so a burst does not read 200 KB per session: a document rewritten in place must be read again
  it('a document rewritten in place (same inode, same size) is read again: its sessions get the new identity', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pico-identity-'));
    try {
      const sessions = join(dir, 'sessions');
      const store = join(sessions, '.compositions');
      mkdirSync(store, { recursive: true });
      const shared = join(store, 'doc.json');
      const first = doc();
      const second = doc();
      second.provider_code['shell:sh1'] = 'sha256:9'; // the script fixed: same length, new identity
      const session = (id: string, d: ReturnType<typeof doc>): void => {
        const sdir = join(sessions, id);
        mkdirSync(sdir);
        linkSync(shared, join(sdir, 'composition.json'));
        writeFileSync(join(sdir, 'events.jsonl'), ledgerText(id, [
          { type: 'composition', hash: compositionHash(d as unknown as Composition), machine: 'sha256:m', config: 'composition.json' },
          { type: 'provider_called', step: 'a', provider: 'sh1', capability: 'extract@1', schema: 'log_summary@2', duration_ms: 12, outcome: 'ok', attempt: 1, input_sha256: 'x', input_bytes: 1, output_blob: null, model_call: false },
        ], Date.parse('2026-01-01T00:00:00Z')));
      };
      writeFileSync(shared, compositionText(first as unknown as Composition));
      session('2026-01-01T00-00-00Z-one', first);
      const ix = MemoryIndex.open(join(dir, 'memory', 'episodic.db'));
      try {
        ix.ingestDir(sessions);
        const before = statSync(shared);
        writeFileSync(shared, compositionText(second as unknown as Composition)); // in place: the same inode
        utimesSync(shared, before.atime, new Date(before.mtimeMs + 1000)); // a later tick of the file clock, whatever this kernel's granularity
        expect(statSync(shared).ino).toBe(before.ino);
        expect(statSync(shared).size).toBe(before.size);
        session('2026-01-01T00-00-01Z-two', second);
        ix.ingestDir(sessions);
        const rows = ix.db.prepare('SELECT session, digest FROM provider_call ORDER BY session').all() as { session: string; digest: string | null }[];
        expect(rows).toEqual([
          { session: '2026-01-01T00-00-00Z-one', digest: providerDigests(first).sh1 },
          { session: '2026-01-01T00-00-01Z-two', digest: providerDigests(second).sh1 },
        ]);
        expect(providerDigests(second).sh1).not.toBe(providerDigests(first).sh1);
      } finally {
        ix.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
