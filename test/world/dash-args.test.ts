// An argument that starts with "-" could be read as an option (issue 14, item 5): refused at run
// time unless the manifest puts "--" before it or its schema says which values it takes.
import { describe, expect, it } from 'vitest';
import type { ToolManifest } from '../../src/registry/manifest.js';
import { buildArgv } from '../../src/tools/args.js';
import { providerError } from '../helpers/provider-error.js';

function grep(command: string[], pattern: Record<string, unknown> = { type: 'string' }): ToolManifest {
  return {
    manifest: 'tool@1', name: 'grep_log', description: 'x', command,
    input_schema: { type: 'object', properties: { pattern, n: { type: 'integer' } }, additionalProperties: false },
    path_args: [], read_paths: [], output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true,
    trust_out: 'T1', limits: { timeout_ms: 1000, max_output_bytes: 1000 },
  };
}

describe('arguments that read as options', () => {
  it('a pattern starting with "-" given to grep is refused as tool_failed, naming the argument and the fix', async () => {
    const e = await providerError(buildArgv(grep(['grep', '-e', 'x', '{pattern}', 'f']), { pattern: '--file=/etc/shadow' }, '/'));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toMatch(/argument "pattern" = "--file=\/etc\/shadow" starts with "-"/);
    expect(e.message).toMatch(/put "--" before \{pattern\}/);
  });

  it('a negative number is refused too, unless the schema sets a lower bound', async () => {
    await expect(buildArgv(grep(['head', '-n', '1', '{n}']), { n: -5 }, '/')).rejects.toThrow(/starts with "-"/);
    const bounded = grep(['head', '-n', '1', '{n}']);
    (bounded.input_schema.properties as Record<string, unknown>).n = { type: 'integer', minimum: -10 };
    expect(await buildArgv(bounded, { n: -5 }, '/')).toEqual(['head', '-n', '1', '-5']);
  });

  it('"--" before the placeholder lets the value through as a plain operand', async () => {
    expect(await buildArgv(grep(['grep', '--', '{pattern}']), { pattern: '-v' }, '/')).toEqual(['grep', '--', '-v']);
  });

  it('a schema pattern that admits the leading "-" lets it through; one that does not is refused by the schema', async () => {
    const t = grep(['grep', '-e', '{pattern}'], { type: 'string', pattern: '^-?[a-z]+$' });
    expect(await buildArgv(t, { pattern: '-abc' }, '/')).toEqual(['grep', '-e', '-abc']);
    const strict = grep(['grep', '-e', '{pattern}'], { type: 'string', pattern: '^[a-z]+$' });
    await expect(buildArgv(strict, { pattern: '-abc' }, '/')).rejects.toThrow(/input_schema/);
  });

  it('after an interpreter\'s code "--" protects nothing: the code decides what "$1" becomes, so "-la" is refused there', async () => {
    const sh = grep(['sh', '-c', 'ls $1', '--', '{pattern}']);
    const e = await providerError(buildArgv(sh, { pattern: '-la' }, '/'));
    expect(e.message).toMatch(/argument "pattern" = "-la" starts with "-"/);
    expect(await buildArgv(sh, { pattern: 'la' }, '/')).toEqual(['sh', '-c', 'ls $1', '--', 'la']);
  });

  it('a value attached to its option ("--opt={x}") is one element and never an option of its own, so a leading "-" passes', async () => {
    expect(await buildArgv(grep(['grep', '--regexp={pattern}', 'f']), { pattern: '-v' }, '/')).toEqual(['grep', '--regexp=-v', 'f']);
  });

  it('an optional placeholder ("{x?}", "--opt={x?}") is dropped when its argument is absent, and a missing required one names the fix', async () => {
    expect(await buildArgv(grep(['head', '--lines={n?}', '{pattern?}']), {}, '/')).toEqual(['head']);
    await expect(buildArgv(grep(['head', '{n}']), {}, '/')).rejects.toThrow(/write \{n\?\} in the command/);
  });

  it('values without a leading "-" pass unchanged', async () => {
    expect(await buildArgv(grep(['grep', '{pattern}']), { pattern: 'a-b' }, '/')).toEqual(['grep', 'a-b']);
  });
});
