// A provider's measurement identity (issue 14 item 6): what changes it and what does not.
import { describe, expect, it } from 'vitest';
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
