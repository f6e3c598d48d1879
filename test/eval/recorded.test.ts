/**
 * Issue 16, done when: "On toolcalls-dev.json with --recorded, the table
 * shows raw near zero and ladder far above it, and the numbers agree with
 * pico ladder --corpus on the same cases." Also: the TypeScript scorer gives
 * the Python reference scorer's verdicts on both corpora, the shipped eval set
 * is complete and self-consistent, and bad input is a clear exit 2.
 *
 * `pico` runs as the real compiled CLI (dist/; build first) with real files;
 * the reference scorer runs as the real Python script.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLive, readCaseFile } from '../../src/eval/cases.js';
import { ladderAnswer } from '../../src/eval/modes.js';
import { isRight, same } from '../../src/eval/score.js';
import { loadRoot } from '../../src/registry/load.js';
import { tempDir } from '../helpers/temp.js';
import { makeRoot } from '../helpers/root.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(REPO, 'dist/src/cli/main.js');
const CORPORA = path.resolve(REPO, '../shared/corpora');
const TOOLCALLS = path.join(CORPORA, 'toolcalls-dev.json');
const LADDER = path.join(CORPORA, 'ladder-dev.json');
const SCORER = path.resolve(REPO, '../shared/tools/score-corpus');
const SHIPPED = path.join(REPO, 'examples/eval/admin.json');
const haveCorpora = existsSync(TOOLCALLS) && existsSync(LADDER);
const havePython = haveCorpora && existsSync(SCORER) && spawnSync('python3', ['--version']).status === 0;
if (!haveCorpora) console.warn(`[test/eval] corpus tests skipped: ${CORPORA} is absent (the shared folder beside the repo)`);
else if (!havePython) console.warn('[test/eval] reference-scorer comparison skipped: python3 or ../shared/tools/score-corpus is absent');

/** How long a test here may take: each runs the CLI over a whole corpus, minutes on a loaded box. */
const CLI_MS = 300_000;

/**
 * A command run to its end without blocking this worker (vitest's worker must keep answering its
 * runner: a corpus run held in spawnSync blocked it for most of a minute on a loaded box).
 */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

// the commands run from the checkout (relative paths are the repository's) on a root of their own:
// the checkout itself is never a root
let root: string | undefined;
function pico(args: string[]) {
  root ??= makeRoot('pico-eval-recorded-');
  return run(process.execPath, [MAIN, ...args], { ...process.env, PICO_ROOT: root });
}

type Row = { id: string; ok: boolean; value?: unknown };
type Case = { id: string; category?: string; expected?: unknown; expected_error?: boolean; allowed?: Record<string, unknown[]> };

/** `pico ladder --corpus FILE --json` rows, and the file they were written to. */
async function ladderRows(corpus: string): Promise<{ rows: Row[]; file: string }> {
  const r = await pico(['ladder', '--corpus', corpus, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const file = path.join(tempDir('pico-eval-rows-'), 'rows.json');
  writeFileSync(file, r.stdout);
  return { rows: (JSON.parse(r.stdout) as { cases: Row[] }).cases, file };
}

describe('scoring as the corpora README says', () => {
  it('1.0 equals 1, a boolean equals only a boolean, a property left out equals one given as null, key order is free', () => {
    expect(same({ a: 1.0, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(same(true, 1)).toBe(false);
    expect(same({ a: 1, b: null }, { a: 1 })).toBe(true);
    expect(same([1, 2], [2, 1])).toBe(false);
    expect(same({}, [])).toBe(false);
  });

  it('a tool call is right when every given argument is allowed (trimmed, any case) and every missing one may be absent', () => {
    const c = { category: 'tool-call', expected: { name: 'unit_status', arguments: { unit: 'nginx' } }, allowed: { unit: ['nginx', 'nginx.service'], since: ['today', ''] } };
    expect(isRight(c, { ok: true, value: { name: 'unit_status', arguments: { unit: ' NGINX.service ' } } })).toBe(true);
    expect(isRight(c, { ok: true, value: { tool: 'unit_status', parameters: { unit: 'nginx', since: 'today' } } })).toBe(true);
    expect(isRight(c, { ok: true, value: { name: 'unit_status', arguments: { unit: 'nginx', boot: 0 } } })).toBe(false);
    expect(isRight(c, { ok: true, value: { name: 'unit_status', arguments: {} } })).toBe(false);
    expect(isRight(c, { ok: true, value: { name: 'journal_window', arguments: { unit: 'nginx' } } })).toBe(false);
  });

  it('a must-refuse case is right only for a classified refusal: a parse crash is not a refusal', () => {
    const c = { category: 'tool-call', expected_error: true };
    expect(isRight(c, { ok: false, classified: true })).toBe(true);
    expect(isRight(c, { ok: false, classified: false })).toBe(false);
    expect(isRight(c, { ok: true, value: { name: 'x', arguments: {} } })).toBe(false);
  });

  it.skipIf(!havePython)('the TypeScript scorer gives the Python reference scorer\'s verdict on every case of both corpora', async () => {
    for (const corpus of [TOOLCALLS, LADDER]) {
      const { rows, file } = await ladderRows(corpus);
      const py = await run('python3', [SCORER, corpus, '--results', file, '--misses', '100000']);
      expect(py.code, py.stderr).toBe(0);
      const pyMisses = new Set(py.stdout.split('\n').filter((l) => l.startsWith('miss ')).map((l) => l.slice(5).split(' - ')[0]!));
      const cases = JSON.parse(readFileSync(corpus, 'utf8')) as Case[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      const tsMisses = new Set(cases.filter((c) => {
        const row = byId.get(c.id)!;
        return !isRight(c, row.ok ? { ok: true, value: row.value } : { ok: false, classified: true });
      }).map((c) => c.id));
      expect([...tsMisses].sort(), path.basename(corpus)).toEqual([...pyMisses].sort());
      const pyScore = /score: (\d+)\/(\d+)/.exec(py.stdout)!;
      expect(cases.length - tsMisses.size).toBe(Number(pyScore[1]));
    }
  }, CLI_MS);
});

describe.skipIf(!haveCorpora)('pico eval --recorded on toolcalls-dev.json (issue 16)', () => {
  it('raw is near zero, ladder far above it, and every ladder verdict and value is the one pico ladder --corpus gives', async () => {
    const r = await pico(['eval', TOOLCALLS, '--recorded', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { modes: Record<string, { score: number; right: number; cases: number }>; cases: Array<{ id: string; modes: Record<string, { ok: boolean; right: boolean; value?: unknown }> }> };
    expect(Object.keys(out.modes)).toEqual(['raw', 'extract', 'ladder']);
    expect(out.modes.raw!.score).toBeLessThan(0.05);
    expect(out.modes.ladder!.score).toBeGreaterThan(out.modes.raw!.score + 0.5);
    const { rows } = await ladderRows(TOOLCALLS);
    expect(out.cases.map((c) => c.id)).toEqual(rows.map((x) => x.id));
    rows.forEach((row, i) => {
      const mine = out.cases[i]!.modes.ladder!;
      expect(mine.ok, row.id).toBe(row.ok);
      if (row.ok) expect(mine.value, row.id).toEqual(row.value);
    });
    const cases = JSON.parse(readFileSync(TOOLCALLS, 'utf8')) as Case[];
    const right = rows.filter((row, i) => isRight(cases[i]!, row.ok ? { ok: true, value: row.value } : { ok: false, classified: true })).length;
    expect(out.modes.ladder!.right).toBe(right);
  }, CLI_MS);

  it('the human table lists each mode with its legend, and retry or grammar on recorded text is refused with exit 2', async () => {
    const r = await pico(['eval', TOOLCALLS, '--recorded']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^raw +0\.0\d\d/m);
    expect(r.stdout).toMatch(/^ladder +0\.9\d\d/m);
    expect(r.stdout).toContain('p50/p90  model wall time per case');
    const bad = await pico(['eval', TOOLCALLS, '--recorded', '--modes', 'ladder,retry']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('retry cannot run on recorded text');
  }, CLI_MS);
});

describe('the shipped eval set (examples/eval/admin.json)', () => {
  const loaded = loadRoot(REPO);
  const file = readCaseFile(SHIPPED, { tools: loaded.documents.tools, schemas: loaded.documents.schemas as Record<string, Record<string, unknown>> });

  it('holds at least 100 cases over the shipped tools and fixtures, each with what a model needs', () => {
    expect(file.cases.length).toBeGreaterThanOrEqual(100);
    expect(() => checkLive(file)).not.toThrow();
    const tools = new Set(file.cases.filter((c) => c.toolCall && !c.expected_error).map((c) => (c.expected as { name: string }).name));
    // destructive tools are never offered to a model planner (plannableTools), so no case names one
    expect([...tools].sort()).toEqual(Object.values(loaded.documents.tools).filter((t) => t.effect !== 'destructive').map((t) => t.name).sort());
    expect(file.cases.filter((c) => c.schemaId === 'log_summary@2').length).toBeGreaterThan(20);
    expect(file.cases.filter((c) => c.schemaId === 'disk_usage@1').length).toBeGreaterThan(5);
    expect(file.cases.filter((c) => c.expected_error).length).toBeGreaterThan(5);
  });

  it('is whole in itself: the copy pico init puts in a root reads the same cases there, with no file outside the root', () => {
    const raw = JSON.parse(readFileSync(SHIPPED, 'utf8')) as Record<string, unknown>[];
    expect(raw.filter((c) => 'input_file' in c || 'expected_file' in c).map((c) => c.id)).toEqual([]);
    const copy = path.join(makeRoot('pico-eval-shipped-'), 'examples', 'eval', 'admin.json');
    const inRoot = readCaseFile(copy, { tools: loaded.documents.tools, schemas: loaded.documents.schemas as Record<string, Record<string, unknown>> });
    expect(inRoot.cases.map((c) => [c.id, c.input, c.expected])).toEqual(file.cases.map((c) => [c.id, c.input, c.expected]));
  });

  it('every expected answer, written out as a model would, passes the ladder and scores right; a refusal in prose is right on must-refuse cases', () => {
    for (const c of file.cases) {
      const text = c.expected_error ? 'None of these tools can do that; I cannot help with it.' : JSON.stringify(c.expected);
      const answer = ladderAnswer(text, c);
      expect(isRight(c, answer), `${c.id}: ${answer.ok ? JSON.stringify(answer.value) : answer.error}`).toBe(true);
    }
  });
});

describe('bad input is a clear exit 2', () => {
  it('a tool-call case without a query asks for one (or --recorded); an unknown tool, provider or mode is named', async () => {
    const dir = tempDir('pico-eval-bad-');
    const noQuery = path.join(dir, 'no-query.json');
    writeFileSync(noQuery, JSON.stringify([{ id: 'a', category: 'tool-call', tools: ['capture_df'], expected: { name: 'capture_df', arguments: {} } }]));
    const r1 = await pico(['eval', noQuery, '--provider', 'log-summary-parser']);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('case "a": a tool-call case needs "query"');
    expect(r1.stderr).toContain('--recorded');
    const unknown = path.join(dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify([{ id: 'b', query: 'q', tools: ['format_disk'], expected_error: true }]));
    const r2 = await pico(['eval', unknown, '--recorded']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('no tool manifest for format_disk');
    const r3 = await pico(['eval', SHIPPED, '--provider', 'nope']);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('--provider nope: no such provider');
    const r4 = await pico(['eval', SHIPPED, '--provider', 'log-summary-parser']);
    expect(r4.code).toBe(2);
    expect(r4.stderr).toContain('is a code provider');
    const r5 = await pico(['eval', SHIPPED, '--recorded', '--modes', 'json']);
    expect(r5.code).toBe(2);
    expect(r5.stderr).toContain('unknown mode "json"');
    const r6 = await pico(['eval', path.join(dir, 'missing.json'), '--recorded']);
    expect(r6.code).toBe(2);
    expect(r6.stderr).toContain(`${path.join(dir, 'missing.json')}: no such file`);
  }, CLI_MS);
});
