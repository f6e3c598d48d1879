/**
 * Issue 15: "`pico cost` cuts its own advice ('run `pico probe…') and following it fails with a raw
 * validation dump". The real CLI as a child process: the advice is printed whole, and the exact
 * command it names works when run; probing what cannot be probed is a clear error (exit 2/3).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempRoot } from '../daemon/helpers.js';
import { picoAsync as pico } from '../daemon/spawn.js';
import { HAVE_MODELS } from '../models/helpers.js';
import { modelRoot } from './model-root.js';

describe('pico cost gives advice that works', () => {
  it('prints its note whole, and advises no probe for a code provider; probing one anyway says why not and what to do, exit 2', async () => {
    const root = tempRoot('pico-cost-');
    initRoot(root);
    const cost = await pico(['cost', '--root', root]);
    expect(cost.code, cost.stderr).toBe(0);
    expect(cost.stdout).toContain('not measured yet and no declared cost; it is measured once it has run 5 times (or declare "cost": {"p50_ms", "p90_ms"} in its manifest)');
    // issue 37 item 9: never "only 0 measured calls"
    expect(cost.stdout).not.toMatch(/only 0 measured/);
    expect(cost.stdout).not.toContain('…');
    expect(cost.stdout).not.toContain('pico probe');
    const probe = await pico(['probe', 'disk-usage-parser', '--root', root]);
    expect(probe.code).toBe(2);
    expect(probe.stderr).toContain(`provider "disk-usage-parser" is a code provider (${join(root, 'manifests/providers/disk-usage-parser.json')}); pico probe measures gguf models only`);
    expect(probe.stderr).toMatch(/\nfix: .*pico cost disk-usage-parser --root /);
    expect(probe.stderr).not.toMatch(/Invalid input|Unrecognized key|internal error/);
  });

  it('an unknown id, a broken gguf manifest and an unknown flag are the user\'s errors, each with the file and the fix', async () => {
    const root = tempRoot('pico-cost-');
    initRoot(root);
    const none = await pico(['probe', 'nope', '--root', root]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(join(root, 'manifests/providers/nope.json'));
    expect(none.stderr).toMatch(/fix: this root has no gguf provider; install a model first: pico provision/);
    writeFileSync(join(root, 'manifests/providers/half.json'), JSON.stringify({ manifest: 'provider@1', id: 'half', kind: 'gguf', implements: ['extract@1'] }));
    const half = await pico(['probe', 'half', '--root', root]);
    expect(half.code).toBe(3);
    expect(half.stderr).toContain('half.json: not a valid gguf provider manifest:\n');
    expect(half.stderr).toMatch(/^ {2}file: missing \(expected string\)$/m);
    expect(half.stderr).toMatch(/^ {2}sha256: missing \(expected string\)$/m);
    expect(half.stderr).toMatch(/fix: correct those fields \(pico manifests check --root /);
    const flag = await pico(['probe', 'half', '--bogus', '--root', root]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/usage: pico probe ID/);
  });

  it.skipIf(!HAVE_MODELS)('for an unmeasured model it names the exact probe command, and running that command measures it', async () => {
    const root = modelRoot();
    const cost = await pico(['cost', 'tiny', '--root', root]);
    expect(cost.code, cost.stderr).toBe(0);
    expect(cost.stdout).toContain('measure it with `pico probe tiny`, or let it run 5 times');
    const advised = /^ {2}(pico probe tiny --root \S+)$/m.exec(cost.stdout);
    expect(advised, cost.stdout).not.toBeNull();
    const args = advised![1]!.split(' ').slice(1);
    const probe = await pico([...args, '--calls', '1']);
    expect(probe.code, probe.stderr).toBe(0);
    expect(probe.stdout).toMatch(/^probed tiny → /);
    const m = JSON.parse(readFileSync(join(root, 'manifests/providers/tiny.json'), 'utf8')) as { cost: { p90_ms: number } | null };
    expect(m.cost?.p90_ms).toBeGreaterThan(0);
    const after = await pico(['cost', 'tiny', '--root', root]);
    expect(after.stdout).toContain("using the manifest's declared cost");
    expect(after.stdout).not.toContain('pico probe tiny --root');
  }, 60_000);
});
