// Tools run through the execution world: arguments are checked and confined
// before anything runs, and every fault is the ledger event it will become.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type ToolManifest, toolManifestSchema } from '../../src/registry/manifest.js';
import { runTool } from '../../src/tools/run.js';
import { makeWorkDir } from '../../src/world/workdir.js';
import { providerError } from '../helpers/provider-error.js';
import { GONE_WITHIN_MS, SCRIPTS, killMarked, marker, survivorsAfter, tempDir } from './helpers.js';

const MANIFESTS = resolve(import.meta.dirname, '../../manifests/tools');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

/** Parse a shipped tool manifest exactly as the registry would. */
async function shipped(name: string): Promise<ToolManifest> {
  return toolManifestSchema.parse(JSON.parse(await readFile(join(MANIFESTS, `${name}.json`), 'utf8')));
}

/** A test tool manifest with defaults filled by the real schema. */
function tool(over: Partial<ToolManifest> & Pick<ToolManifest, 'command'>): ToolManifest {
  return toolManifestSchema.parse({
    manifest: 'tool@1', name: 'test_tool', description: 'a tool made by a test', input_schema: { type: 'object' },
    output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1',
    limits: { timeout_ms: 5000, max_output_bytes: 65536 }, ...over,
  });
}

/** A root with examples/data/app.log, a secret beside it, and a work dir. */
async function root(): Promise<{ root: string; workDir: string }> {
  const t = await tempDir('pico-tools-');
  cleanups.push(t.cleanup);
  await mkdir(join(t.dir, 'examples', 'data'), { recursive: true });
  await writeFile(join(t.dir, 'examples', 'data', 'app.log'), 'Jan 1 00:00:01 host app[1]: started\n');
  await writeFile(join(t.dir, 'secret.txt'), 'the operator password\n');
  return { root: t.dir, workDir: await makeWorkDir(t.dir, 'sess', 1) };
}

describe('read_file (shipped manifest)', () => {
  it('reads a file inside read_paths and returns its text untouched', async () => {
    const ctx = await root();
    const run = await runTool(await shipped('read_file'), { path: 'examples/data/app.log' }, ctx);
    expect(run).toMatchObject({ output: 'Jan 1 00:00:01 host app[1]: started\n', exitCode: 0, truncated: false });
  });

  it('a path outside read_paths is refused', async () => {
    const ctx = await root();
    const e = await providerError(runTool(await shipped('read_file'), { path: 'secret.txt' }, ctx));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toMatch(/argument "path" = "secret.txt" resolves to .*secret.txt, outside read_paths/);
  });

  it('a path that climbs out with ".." is refused', async () => {
    const ctx = await root();
    const e = await providerError(runTool(await shipped('read_file'), { path: 'examples/data/../../secret.txt' }, ctx));
    expect(e.message).toMatch(/outside read_paths/);
  });

  it('a symlink inside read_paths that points outside is refused (checked after symlinks)', async () => {
    const ctx = await root();
    await symlink(join(ctx.root, 'secret.txt'), join(ctx.root, 'examples', 'data', 'innocent.log'));
    const e = await providerError(runTool(await shipped('read_file'), { path: 'examples/data/innocent.log' }, ctx));
    expect(e.message).toMatch(/innocent.log" resolves to .*secret.txt, outside read_paths/);
  });

  it('an absolute path outside read_paths is refused', async () => {
    const ctx = await root();
    const e = await providerError(runTool(await shipped('read_file'), { path: '/etc/passwd' }, ctx));
    expect(e.message).toMatch(/outside read_paths/);
  });

  it('a path argument starting with "-" is refused so it cannot be an option', async () => {
    const ctx = await root();
    const e = await providerError(runTool(await shipped('read_file'), { path: '--help' }, ctx));
    expect(e.message).toMatch(/starts with "-".*write it as \.\/--help/);
  });

  it('a missing file names the argument and says what to pass', async () => {
    const ctx = await root();
    const e = await providerError(runTool(await shipped('read_file'), { path: 'examples/data/nope.log' }, ctx));
    expect(e.message).toMatch(/argument "path" .* cannot be resolved \(ENOENT\)/);
  });

  it('arguments that violate input_schema are refused, naming the problem', async () => {
    const ctx = await root();
    const e1 = await providerError(runTool(await shipped('read_file'), { path: 7 }, ctx));
    expect(e1.message).toMatch(/tool read_file: arguments do not fit input_schema/);
    const e2 = await providerError(runTool(await shipped('read_file'), { path: 'examples/data/app.log', extra: true }, ctx));
    expect(e2.message).toMatch(/extra/);
  });
});

describe('capture_df (shipped manifest)', () => {
  it('captures df in POSIX format', async () => {
    const ctx = await root();
    const run = await runTool(await shipped('capture_df'), {}, ctx);
    expect(run.output.split('\n')[0]).toMatch(/^Filesystem\s+1024-blocks\s+Used\s+Available\s+Capacity\s+Mounted on/);
  });
});

describe('runTool', () => {
  it('arguments are checked before anything runs: a refused call leaves no trace in the work dir', async () => {
    const ctx = await root();
    const t = tool({ command: ['sh', '-c', 'touch ./ran; echo "$0"', '{n}'],
      input_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } });
    const e = await providerError(runTool(t, { n: '1.5' }, ctx));
    expect(e.message).toMatch(/input_schema/);
    expect(await readdir(ctx.workDir)).toEqual([]);
    const ok = await runTool(t, { n: 4 }, ctx);
    expect(ok.output).toBe('4\n');
    expect(await readdir(ctx.workDir)).toEqual(['ran']);
  });

  it('an argument with shell syntax is passed as one literal argv element, never interpreted', async () => {
    const ctx = await root();
    const t = tool({ command: ['printf', '%s|', '{text}', 'pre{text}'] });
    const run = await runTool(t, { text: '$(touch pwned); `id` && rm -rf ~' }, ctx);
    expect(run.output).toBe('$(touch pwned); `id` && rm -rf ~|pre{text}|');
    expect(await readdir(ctx.workDir)).toEqual([]);
  });

  it('a placeholder without its argument is refused, naming it', async () => {
    const ctx = await root();
    const e = await providerError(runTool(tool({ command: ['echo', '{who}'] }), {}, ctx));
    expect(e.message).toMatch(/uses \{who\} but no argument "who" was given/);
  });

  it('a tool that hangs is stopped at its limit and becomes tool_timeout', async () => {
    const ctx = await root();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const t = tool({ command: ['sh', join(SCRIPTS, 'hang.sh'), mark], limits: { timeout_ms: 300, max_output_bytes: 1000 } });
    const e = await providerError(runTool(t, {}, ctx));
    expect(e.type).toBe('tool_timeout');
    expect(e.message).toMatch(/timeout_ms = 300 ms/);
    expect(await survivorsAfter(mark, GONE_WITHIN_MS)).toEqual([]);
  });

  it('a tool that floods stdout is cut at the cap, killed, and becomes tool_failed', async () => {
    const ctx = await root();
    const t = tool({ command: ['sh', join(SCRIPTS, 'flood.sh')], limits: { timeout_ms: 10_000, max_output_bytes: 2048 } });
    const e = await providerError(runTool(t, {}, ctx));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toMatch(/max_output_bytes = 2048/);
    const cut = await runTool(t, {}, { ...ctx, allowTruncated: true });
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.output)).toBe(2048);
  });

  it('a non-zero exit becomes tool_failed with the exit code and stderr', async () => {
    const ctx = await root();
    const e = await providerError(runTool(tool({ command: ['sh', join(SCRIPTS, 'fail.sh')] }), {}, ctx));
    expect(e.type).toBe('tool_failed');
    expect(e.message).toMatch(/exit code 3: fail.sh: the input was not what I expected/);
    expect(e.detail?.exitCode).toBe(3);
  });

  it('output that is only whitespace becomes tool_empty', async () => {
    const ctx = await root();
    const e = await providerError(runTool(tool({ command: ['sh', join(SCRIPTS, 'silent.sh')] }), {}, ctx));
    expect(e.type).toBe('tool_empty');
  });

  it('a destructive tool does not run without approval', async () => {
    const ctx = await root();
    const t = tool({ command: ['sh', '-c', 'touch ./ran; echo done'], effect: 'destructive', idempotent: false });
    const e = await providerError(runTool(t, {}, ctx));
    expect(e.message).toMatch(/destructive and no approval/);
    expect(await readdir(ctx.workDir)).toEqual([]);
    expect((await runTool(t, {}, { ...ctx, approved: true })).output).toBe('done\n');
  });

  it('a canceled call rethrows the caller\'s reason instead of recording a tool fault', async () => {
    const ctx = await root();
    const mark = marker();
    cleanups.push(() => killMarked(mark));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('daemon stopping')), 100);
    const t = tool({ command: ['sh', join(SCRIPTS, 'hang.sh'), mark], limits: { timeout_ms: 30_000, max_output_bytes: 1000 } });
    await expect(runTool(t, {}, { ...ctx, signal: ac.signal })).rejects.toThrow('daemon stopping');
  });
});
