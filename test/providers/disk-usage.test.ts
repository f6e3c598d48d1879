// The df parser against its fixtures, and the shell provider (a real `sh`
// subprocess) yielding the same value: the swap test in miniature.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeProviders } from '../../providers/index.js';
import { parseDf, stateOf, toBytes } from '../../providers/disk-usage/index.js';
import { compileSchema, fieldDiff, FIXTURES, loadFixtures, ROOT } from './fixtures.js';

const fixtures = loadFixtures(join(FIXTURES, 'disk_usage'));
const schema = JSON.parse(readFileSync(join(ROOT, 'manifests/schemas/disk_usage@1.json'), 'utf8')) as object;

/** Run providers/disk-usage.sh the way the shell adapter does: one JSON document on stdin. */
function runShell(input: string): unknown {
  const stdin = JSON.stringify({ input, capability: 'extract@1', schema, schema_id: 'disk_usage@1', feedback: null });
  return JSON.parse(execFileSync('sh', [join(ROOT, 'providers/disk-usage.sh')], { input: stdin, encoding: 'utf8' }));
}

describe('disk_usage@1', () => {
  it('has at least 6 fixtures and each expected value is valid disk_usage@1', async () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(6);
    const validate = await compileSchema('disk_usage@1');
    for (const fx of fixtures) expect(validate(fx.expected), `${fx.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });

  for (const fx of fixtures) {
    it(`the code parser matches ${fx.name}`, () => {
      const got = codeProviders['disk-usage']!({ text: fx.input, capability: 'extract@1', schemaId: 'disk_usage@1' });
      expect(fieldDiff(got, fx.expected)).toEqual([]);
    });
    it(`the shell provider equals the code parser on ${fx.name}`, () => {
      expect(runShell(fx.input)).toEqual(parseDf(fx.input));
    });
  }

  it('a percentage above 100 is refused by the schema', async () => {
    const validate = await compileSchema('disk_usage@1');
    const v = structuredClone(fixtures[0]!.expected) as { filesystems: { used_percent: number }[] };
    v.filesystems[0]!.used_percent = 101;
    expect(validate(v)).toBe(false);
  });

  it('thresholds: 90% used is critical, 80% warning, 79% ok, "-" null', () => {
    expect([stateOf(90), stateOf(80), stateOf(79), stateOf(null)]).toEqual(['critical', 'warning', 'ok', null]);
  });

  it('a df -h size is read in powers of 1024 and a 1024-block count times 1024', () => {
    expect(toBytes('2.8G', 'Size')).toBe(Math.round(2.8 * 1024 ** 3));
    expect(toBytes('12', '1024-blocks')).toBe(12 * 1024);
    expect(toBytes('12', 'Inodes')).toBeNull();
  });

  it('a mount point with spaces and a wrapped device name are read whole', () => {
    const v = parseDf('Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/mapper/very-long-name\n   100 95 5 95% /media/My Disk\n');
    expect(v.filesystems[0]).toMatchObject({ filesystem: '/dev/mapper/very-long-name', mount: '/media/My Disk', used_percent: 95 });
    expect(runShell('Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/mapper/very-long-name\n   100 95 5 95% /media/My Disk\n')).toEqual(v);
  });

  it('the shell provider exits non-zero with a clear message when stdin has no input', () => {
    expect(() => execFileSync('sh', [join(ROOT, 'providers/disk-usage.sh')], { input: '{"capability":"extract@1"}', stdio: 'pipe' })).toThrow(/no "input" string/);
  });
});
