/**
 * Issue 23, "A house a newcomer can live in": the layers written down in src/README.md are the
 * layers of the code. Every import of src/ and providers/ points down the map, no file imports
 * one that imports it back, no file is longer than an afternoon's reader will take in one go, and
 * the core stays small enough to read in an afternoon (design P11).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importEdges, layerOf, readLayerMap, sourceFiles, type ImportEdge } from '../helpers/import-graph.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const MAX_FILE_LINES = 450;
const CORE = ['ledger', 'runtime', 'registry', 'ladder'];
const MAX_CORE_LINES = 5_500;

/** Imports that go against the map, each as a sentence naming the file, the line and the fix. */
function againstTheMap(edges: readonly ImportEdge[], map: ReadonlyMap<string, number>): string[] {
  const wrong: string[] = [];
  for (const e of edges) {
    const a = layerOf(e.from);
    const b = layerOf(e.to);
    if (a === b) continue;
    const la = map.get(a);
    const lb = map.get(b);
    if (la === undefined || lb === undefined) continue; // reported by the "every folder has a place" claim
    if (lb >= la) wrong.push(`${e.from}:${e.line} imports ${e.to}: ${a} (layer ${la}) may not import ${b} (layer ${lb}); move what it needs down, or hand it in through a seam ${a} owns`);
  }
  return wrong;
}

const files = sourceFiles(REPO, ['src', 'providers']);
const edges = importEdges(REPO, files);
const map = readLayerMap(readFileSync(`${REPO}/src/README.md`, 'utf8'));

describe('the layer map of src/README.md is the code', () => {
  it('every folder of src/ and providers/ has a place in the map, and no file lies loose at src/\'s top', () => {
    const missing = [...new Set(files.map(layerOf))].filter((l) => !map.has(l));
    expect(missing, 'add each to the table under "## Layers" in src/README.md (one sentence, its level)').toEqual([]);
  });

  it('no file imports a file that imports it back', () => {
    expect(importCircles(files, edges)).toEqual([]);
  });

  it('every import points down the map', () => {
    expect(againstTheMap(edges, map)).toEqual([]);
  });

  it(`no source file is over ${MAX_FILE_LINES} lines`, () => {
    const long = [...files, ...sourceFiles(REPO, ['bench'])]
      .map((f) => ({ f, n: readFileSync(`${REPO}/${f}`, 'utf8').split('\n').length - 1 }))
      .filter(({ n }) => n > MAX_FILE_LINES)
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });

  it(`the core (${CORE.join(', ')}) stays within ${MAX_CORE_LINES} lines`, () => {
    const lines = files
      .filter((f) => CORE.includes(layerOf(f)))
      .reduce((n, f) => n + readFileSync(`${REPO}/${f}`, 'utf8').split('\n').length - 1, 0);
    expect(lines).toBeLessThanOrEqual(MAX_CORE_LINES);
  });
});

describe('the layer check itself', () => {
  it('finds a circle of two files and one of three, and none in a chain', () => {
    const f = ['a', 'b', 'c', 'd'];
    const e = (from: string, to: string): ImportEdge => ({ from, to, line: 1 });
    expect(importCircles(f, [e('a', 'b'), e('b', 'a'), e('c', 'd')])).toEqual([['a', 'b']]);
    expect(importCircles(f, [e('a', 'b'), e('b', 'c'), e('c', 'a')])).toEqual([['a', 'b', 'c']]);
    expect(importCircles(f, [e('a', 'b'), e('b', 'c'), e('c', 'd')])).toEqual([]);
  });

  it('reads the table and names an upward import and an import between two folders of one level', () => {
    const m = readLayerMap('# x\n## Layers\n| level | folders | what |\n|---|---|---|\n| 1 | `base/` | shared |\n| 2 | ledger, ladder | two |\n| 3 | cli | top |\n## Next\n| 9 | other | not read |\n');
    expect([...m]).toEqual([['base', 1], ['ledger', 2], ['ladder', 2], ['cli', 3]]);
    const wrong = againstTheMap([
      { from: 'src/base/a.ts', to: 'src/cli/b.ts', line: 4 },
      { from: 'src/ledger/a.ts', to: 'src/ladder/b.ts', line: 7 },
      { from: 'src/cli/a.ts', to: 'src/base/b.ts', line: 2 },
    ], m);
    expect(wrong).toHaveLength(2);
    expect(wrong[0]).toMatch(/^src\/base\/a\.ts:4 imports src\/cli\/b\.ts: base \(layer 1\) may not import cli \(layer 3\)/);
    expect(wrong[1]).toMatch(/^src\/ledger\/a\.ts:7 .* ledger \(layer 2\) may not import ladder \(layer 2\)/);
  });

  it('sees static, type-only, re-exported and dynamic imports', () => {
    const edgesHere = importEdges(REPO, ['test/helpers/import-graph.ts', 'test/layers/fixture-imports.ts', 'test/helpers/temp.ts', 'test/helpers/until.ts', 'test/helpers/root.ts']);
    const targets = edgesHere.filter((x) => x.from === 'test/layers/fixture-imports.ts').map((x) => x.to).sort();
    expect(targets).toEqual(['test/helpers/root.ts', 'test/helpers/temp.ts', 'test/helpers/until.ts']);
  });
});
