/**
 * The import graph of the project's own TypeScript (src/ and providers/), read with the
 * TypeScript compiler's own pre-processor (static imports, `export … from`, `import type` and
 * dynamic `import()` alike), and the layer map that src/README.md writes down.
 *
 * It exists for the layer test (test/layers/layers.test.ts): the picture of the house in the
 * README and the code cannot drift apart. It resolves relative specifiers only; packages and
 * node: built-ins are not the project's layers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** importing file, relative to the repository, with '/' */
  from: string;
  /** imported file, relative to the repository, with '/' (a .ts file) */
  to: string;
  /** 1-based line of the import in `from` */
  line: number;
}

/** Every .ts file below `dirs` (relative to `repo`), as repository-relative paths with '/'. */
export function sourceFiles(repo: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(relative(repo, p).split(sep).join('/'));
    }
  };
  for (const d of dirs) walk(join(repo, d));
  return out.sort();
}

/** The project-internal import edges of `files`. */
export function importEdges(repo: string, files: readonly string[]): ImportEdge[] {
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const text = readFileSync(join(repo, from), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const abs = resolve(repo, dirname(from), ref.fileName).replace(/\.js$/, '.ts');
      const to = relative(repo, abs).split(sep).join('/');
      if (!known.has(to)) continue;
      const line = text.slice(0, ref.pos).split('\n').length;
      edges.push({ from, to, line });
    }
  }
  return edges;
}

/** File-level import circles (strongly connected components of more than one file, or a self-import). */
export function importCircles(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)!.push(e.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  // Tarjan's algorithm, iterative so a deep chain cannot overflow the stack.
  for (const start of files) {
    if (index.has(start)) continue;
    const work: Array<{ v: string; i: number }> = [{ v: start, i: 0 }];
    index.set(start, counter); low.set(start, counter); counter++;
    stack.push(start); onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const outs = next.get(top.v)!;
      if (top.i < outs.length) {
        const w = outs[top.i++]!;
        if (!index.has(w)) {
          index.set(w, counter); low.set(w, counter); counter++;
          stack.push(w); onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) === index.get(top.v)) {
        const scc: string[] = [];
        let w: string;
        do { w = stack.pop()!; onStack.delete(w); scc.push(w); } while (w !== top.v);
        if (scc.length > 1 || outs.includes(top.v)) circles.push(scc.sort());
      }
    }
  }
  return circles;
}

/** The layer a file belongs to: `providers` for the repository's providers/, else its folder under src/. */
export function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'providers') return 'providers';
  return parts.length > 2 ? parts[1]! : '(src top)';
}

/**
 * The layer map of src/README.md: the rows of the table under the heading "## Layers", each
 * `| N | folder, folder | … |`. A lower N is a lower layer. Returns folder -> level.
 */
export function readLayerMap(readme: string): Map<string, number> {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Layers'));
  if (!section) throw new Error('src/README.md has no "## Layers" section: write the layer table there');
  const map = new Map<string, number>();
  for (const line of section.split('\n')) {
    const m = /^\|\s*(\d+)\s*\|([^|]+)\|/.exec(line);
    if (!m) continue;
    for (const name of m[2]!.split(',')) {
      const folder = name.trim().replace(/`/g, '').replace(/\/$/, '');
      if (folder) map.set(folder, Number(m[1]));
    }
  }
  return map;
}
