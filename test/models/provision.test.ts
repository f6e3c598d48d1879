/**
 * Issue 5: "`provision` + `probe` leave a manifest with measured costs" — in a
 * temp root, through the CLI entry points, on the real stories260K file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as provision } from '../../src/cli/provision.js';
import { machineHash, machineProfile } from '../../src/machine/profile.js';
import { providerManifestSchema } from '../../src/registry/manifest.js';
import { HAVE_MODELS, makeRoot, STORIES, STORIES_SHA } from './helpers.js';

describe.skipIf(!HAVE_MODELS)('pico provision + probe', () => {
  it('provision then probe leave a valid, data-only manifest with measured costs stamped with this machine', async () => {
    const root = makeRoot();
    const code = await provision([STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--threads', '1', '--prompt', 'tiny-note', '--json']);
    expect(code).toBe(0);
    const file = path.join(root, 'manifests/providers/tiny.json');
    const m = providerManifestSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    if (m.kind !== 'gguf') throw new Error('expected a gguf manifest');
    expect(m).toMatchObject({ sha256: STORIES_SHA, file: 'models/stories260K.gguf', prompt: 'tiny-note', schemas: ['tiny_note@1'], escalates_to: [], threads: 1 });
    expect(m.security['extract@1']).toEqual({ max_trust_in: 'T1', may_emit_control: false });
    expect(m.sampler).toMatchObject({ determinism: 'seeded', temperature: 0, top_k: 1 });
    expect(m.resource!.machine).toBe(machineHash());
    expect(m.resource!.load_ms_cold).toBeGreaterThan(m.resource!.load_ms_warm);
    expect(m.resource!.peak_rss_mb).toBeGreaterThan(10);
    expect(m.cost!.decode_tokens_per_s).toBeGreaterThan(0);
    expect(m.cost!.prompt_tokens_per_s).toBeGreaterThan(0);
    expect(m.cost!.p90_ms).toBeGreaterThanOrEqual(m.cost!.p50_ms);
    expect(m.cost!.p50_ms).toBeGreaterThan(0);
  });

  it('a file that is not GGUF is refused as the user\'s mistake (exit 2) and no manifest is written', async () => {
    const root = makeRoot();
    const fake = path.join(root, 'fake.gguf');
    writeFileSync(fake, 'not a model at all');
    const code = await provision([fake, '--id', 'fake', '--implements', 'extract@1', '--root', root, '--json', '--no-probe']);
    expect(code).toBe(2);
    expect(() => readFileSync(path.join(root, 'manifests/providers/fake.json'))).toThrow();
  });

  it('without --prompt the shipped prompt for the capability is chosen', async () => {
    const root = makeRoot();
    expect(await provision([STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--no-probe', '--json'])).toBe(0);
    expect(JSON.parse(readFileSync(path.join(root, 'manifests/providers/tiny.json'), 'utf8'))).toMatchObject({ prompt: 'extract-log-summary', resource: null, cost: null });
  });

  it('an existing manifest is not overwritten without --force (the user\'s mistake: exit 2)', async () => {
    const root = makeRoot();
    const args = [STORIES, '--id', 'tiny', '--implements', 'extract@1', '--root', root, '--no-probe', '--json'];
    expect(await provision(args)).toBe(0);
    expect(await provision(args)).toBe(2);
    expect(await provision([...args, '--force'])).toBe(0);
  });

  it('the machine hash is stable for one profile and changes with it', () => {
    const p = machineProfile();
    expect(machineHash(p)).toBe(machineHash());
    expect(machineHash({ ...p, cpus: { ...p.cpus, count: p.cpus.count + 1 } })).not.toBe(machineHash(p));
  });
});
