/**
 * Issue 21 item 6: "`pico eval`: a progress line (case n of N, elapsed,
 * estimate left) on stderr; a cassette remembers its `--limit` and case ids;
 * `--replay` replays what it holds." The compiled CLI (dist/; build first)
 * records a real shell provider — the docs' worked `dir-size` example,
 * written into a fresh root — and replays the cassette with and without
 * `--limit`.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateWithProgress } from '../../src/cli/eval.js';
import { evalProgress, humanDuration, progressLine } from '../../src/eval/progress.js';
import { makeRoot } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { picoAsync as pico } from '../daemon/spawn.js';
import { allExampleFiles } from '../readme/readme.js';

/** A root holding the docs' dir-size schema, capability, provider and program, and a case file of `n` du lines. */
function dirSizeRoot(n: number): { root: string; cases: string } {
  const root = makeRoot('pico-eval-cassette-');
  for (const [rel, body] of allExampleFiles()) {
    if (!/^(manifests\/(schemas|capabilities|providers)\/|providers\/)/.test(rel) || !/dir.size|dir_size|extract/.test(rel)) continue;
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
    if (body.startsWith('#!')) chmodSync(join(root, rel), 0o755);
  }
  const cases = join(tempDir('pico-eval-cases-'), 'cases.json');
  writeFileSync(cases, JSON.stringify(Array.from({ length: n }, (_, i) => ({
    id: `du/${i}`, category: 'extraction', prompt: 'Read the du -s -k line.', input: `${(i + 1) * 8}\t/srv/f${i}\n`,
    schema_id: 'dir_size@1', expected: { path: `/srv/f${i}`, kilobytes: (i + 1) * 8 },
  }))));
  return { root, cases };
}

describe('a cassette remembers what it holds', () => {
  it('a recording made with --limit keeps its case ids and limit, and --replay replays them without repeating --limit', async () => {
    const { root, cases } = dirSizeRoot(5);
    const cassette = join(tempDir('pico-cassette-'), 'c');
    const rec = await pico(['eval', cases, '--provider', 'dir-size', '--modes', 'raw,ladder', '--limit', '3', '--record', cassette, '--root', root, '--json']);
    expect(rec.code, rec.stderr).toBe(0);
    const header = JSON.parse(readFileSync(join(cassette, 'run.json'), 'utf8')) as { cases: { ids: string[]; limit: number | null; count: number } };
    expect(header.cases).toMatchObject({ ids: ['du/0', 'du/1', 'du/2'], limit: 3, count: 3 });

    const replay = await pico(['eval', cases, '--replay', cassette, '--root', root, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    const ids = (out: string) => (JSON.parse(out) as { cases: { id: string }[] }).cases.map((c) => c.id);
    expect(ids(replay.stdout)).toEqual(['du/0', 'du/1', 'du/2']);
    // the same table, byte for byte, as the recording run printed
    const table = async (args: string[]) => (await pico(['eval', cases, ...args, '--root', root])).stdout;
    expect(await table(['--replay', cassette])).toBe(await table(['--replay', cassette, '--limit', '3']));

    const fewer = await pico(['eval', cases, '--replay', cassette, '--limit', '2', '--root', root, '--json']);
    expect(fewer.code, fewer.stderr).toBe(0);
    expect(ids(fewer.stdout)).toEqual(['du/0', 'du/1']);

    const more = await pico(['eval', cases, '--replay', cassette, '--limit', '4', '--root', root]);
    expect(more.code).toBe(2);
    expect(more.stderr).toContain(`--limit 4: the cassette ${cassette} holds 3 cases; give --limit 3 or less, or leave it out`);
    expect(more.stderr).not.toMatch(/record it again/);
  }, 120_000);
});

describe('the progress line', () => {
  it('every command that evaluates shows it (pico eval, pico provision --eval): one line per case on a terminal, cleared at the end', async () => {
    const { root, cases } = dirSizeRoot(3);
    const lines: string[] = [];
    const run = await evaluateWithProgress({ casesPath: cases, root, provider: 'dir-size', modes: ['raw'] }, { isTTY: true, write: (s) => lines.push(s) });
    expect(run.results.map((r) => r.id)).toEqual(['du/0', 'du/1', 'du/2']);
    expect(lines.map((l) => /case (\d) of (\d)/.exec(l)?.slice(1).join('/') ?? l)).toEqual(['1/3', '2/3', '3/3', '\r\x1b[2K']);
  }, 60_000);


  it('says case n of N, the time so far and an estimate of what is left', () => {
    expect(progressLine(3, 12, 45_000)).toBe('pico eval: case 3 of 12, 45 s so far, about 2 min 15 s left');
    expect(progressLine(12, 12, 180_000)).toBe('pico eval: case 12 of 12, 3 min 00 s so far');
    expect(humanDuration(3_725_000)).toBe('1 h 02 min');
  });

  it('in a pipe it prints a plain line at most every 2 s, and none for a fast run; on a terminal it rewrites one line and clears it', () => {
    let t = 0;
    const out: string[] = [];
    const pipe = evalProgress({ isTTY: false, write: (s) => out.push(s) }, () => t);
    for (let i = 1; i <= 10; i++) {
      t += 700;
      pipe.tick(i, 10);
    }
    pipe.end();
    expect(out).toEqual([
      'pico eval: case 3 of 10, 2 s so far, about 5 s left\n',
      'pico eval: case 6 of 10, 4 s so far, about 3 s left\n',
      'pico eval: case 9 of 10, 6 s so far, about 1 s left\n',
      'pico eval: case 10 of 10, 7 s so far\n',
    ]);
    const fast: string[] = [];
    const quick = evalProgress({ isTTY: false, write: (s) => fast.push(s) }, () => 0);
    quick.tick(1, 1);
    quick.end();
    expect(fast).toEqual([]);
    const tty: string[] = [];
    const term = evalProgress({ isTTY: true, write: (s) => tty.push(s) }, () => 0);
    term.tick(1, 2);
    term.tick(2, 2);
    term.end();
    expect(tty).toEqual(['\r\x1b[2Kpico eval: case 1 of 2, 0 s so far, about 0 s left', '\r\x1b[2Kpico eval: case 2 of 2, 0 s so far', '\r\x1b[2K']);
  });
});
