/** `pico ladder` (issue 4 §5), run as a real subprocess with real files and stdin. */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/ladder.js';
import { tempDir } from '../helpers/temp.js';

const REPO = resolve(__dirname, '../..');
const RUNNER = join(REPO, 'test/ladder/fixtures/cli-runner.ts');
const SCHEMA = join(REPO, 'test/ladder/fixtures/disk@1.json');

/** Run main() in this process, collecting what it writes to stdout and stderr. */
async function inProcess(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const write = [process.stdout.write, process.stderr.write] as const;
  process.stdout.write = ((chunk: string) => { out.push(String(chunk)); return true; }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => { err.push(String(chunk)); return true; }) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    [process.stdout.write, process.stderr.write] = write;
  }
}

/** Run the command as a subprocess with `input` on stdin. */
function pico(args: string[], input = '') {
  const r = spawnSync(join(REPO, 'node_modules/.bin/vite-node'), [RUNNER, '--', ...args], { input, encoding: 'utf8', cwd: REPO });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('pico ladder', () => {
  it('prints {ok, value, fixes, confidence} for repairable text and exits 0; a span miss exits 1 at level 4', () => {
    const dir = tempDir('pico-ladder-cli-');
    writeFileSync(join(dir, 'df.txt'), '/dev/sda1  100G  88G  12G  88% /var\n');
    const ok = pico(['--schema', SCHEMA, '--source', join(dir, 'df.txt'), '--json'], 'Result:\n```json\n{"mount": "/var", "freePct": "12",}\n```');
    expect(ok.code, ok.stderr).toBe(0);
    const okOut = JSON.parse(ok.stdout);
    expect(okOut).toMatchObject({ ok: true, value: { mount: '/var', free_pct: 12 } });
    expect(okOut.fixes).toContain('renamed freePct -> free_pct');
    expect(typeof okOut.confidence).toBe('number');
    const bad = pico(['--schema', SCHEMA, '--source', join(dir, 'df.txt'), '--json'], '{"mount": "/home", "free_pct": 12}');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, kind: 'crosscheck', level: 4 });
  });

  it('--corpus prints every case, per-category accepted / refused counts, and the score against expected', async () => {
    const dir = tempDir('pico-ladder-cli-');
    const corpus = [
      { id: 'a', category: 'strict', input: '{"x": 1}', schema: { type: 'object' }, expected: { x: 1 } },
      { id: 'b', category: 'reject', input: 'nothing here', schema: { type: 'object' }, expected_error: true },
      { id: 'c', category: 'strict', input: '{"x": 1}', schema: { type: 'object' }, expected: { x: 2 } },
    ];
    writeFileSync(join(dir, 'corpus.json'), JSON.stringify(corpus));
    const r = await inProcess(['--corpus', join(dir, 'corpus.json'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.cases.map((c: { id: string; ok: boolean }) => [c.id, c.ok])).toEqual([['a', true], ['b', false], ['c', true]]);
    expect(out.cases[1].error).toContain('no JSON value found');
    expect(out.summary).toMatchObject({ cases: 3, accepted: 2, refused: 1, scored: 3, right: 2 });
    expect(out.summary.by_category).toEqual({ strict: { cases: 2, accepted: 2, refused: 0, right: 1 }, 'reject (refuse)': { cases: 1, accepted: 0, refused: 1, right: 1 } });
    expect(out.cases.map((c: { right: boolean }) => c.right)).toEqual([true, true, false]);
    const human = await inProcess(['--corpus', join(dir, 'corpus.json')]);
    expect(human.stdout).toContain('3 cases: 2 accepted, 1 refused; 2 of 3 right');
    expect(human.stdout).toMatch(/strict\s+2\s+2\s+0\s+1/);
  });

  it('--corpus sends a tool-call case through the tool-call path and prints the call under the schema key names', async () => {
    const dir = tempDir('pico-ladder-cli-');
    const args = { type: 'object', required: ['city'], additionalProperties: false, properties: { city: { type: 'string' } } };
    const schema = { anyOf: [{ type: 'object', properties: { tool: { const: 'get_weather' }, arguments: args }, required: ['tool', 'arguments'] }] };
    const corpus = [
      { id: 'py', category: 'tool-call', input: '[get_weather(city="Oslo")]', schema, expected: { tool: 'get_weather', arguments: { city: 'Oslo' } } },
      { id: 'two', category: 'tool-call', input: '[get_weather(city="Oslo"), get_weather(city="Bergen")]', schema, expected_error: true },
    ];
    writeFileSync(join(dir, 'calls.json'), JSON.stringify(corpus));
    const out = JSON.parse((await inProcess(['--corpus', join(dir, 'calls.json'), '--json'])).stdout);
    expect(out.cases[0]).toMatchObject({ ok: true, value: { tool: 'get_weather', arguments: { city: 'Oslo' } }, right: true });
    expect(out.cases[1]).toMatchObject({ ok: false, code: 'extra_calls', right: true });
  });

  it('a missing --schema is a usage error (exit 2) that names the flag', async () => {
    const r = await inProcess(['--json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--schema FILE is required');
  });
});
