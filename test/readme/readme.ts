/**
 * Reading the README and the pages of docs/ as the tests of test/readme/ need
 * them: their sections, the example files, and the command lines of their
 * `sh` blocks. README.md is the front door and docs/ the shelf of pages; the
 * tests hold both to the same conventions, so neither can rot.
 *
 * The conventions (the pages' own markup, invisible when rendered):
 * - `<!-- file: REL/PATH -->` on the line before a fenced block: the block is
 *   the whole content of that file, written at REL/PATH of a root (`SESSION`
 *   in the path stands for the session it belongs to). Paths are unique
 *   across all pages: the examples of every page go into one root.
 * - `<!-- run -->` before a ```sh block: its lines run in order from inside
 *   that root, `pico` being the built CLI and `DIR` the root, and each must
 *   exit as its trailing `# exit N` says (default 0).
 * - `<!-- not run: REASON -->` before a block: the walk does not run it, for
 *   the reason given (systemd, a Pi, a network, a model file, a daemon).
 * - every other ```sh block is run by the walk and must be read as written.
 * This module only parses; it runs nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');

/** A page: its path relative to the repository, and its text. */
export interface Page {
  name: string;
  text: string;
}

function readPage(name: string): Page {
  return { name, text: readFileSync(join(REPO, name), 'utf8') };
}

/** README.md, then every page of docs/ in name order. */
export const PAGES: Page[] = [readPage('README.md'),
  ...readdirSync(join(REPO, 'docs')).filter((n) => n.endsWith('.md')).sort().map((n) => readPage(`docs/${n}`))];

/** One page by its path relative to the repository (`docs/manifests.md`). */
export function page(name: string): string {
  const p = PAGES.find((x) => x.name === name);
  if (!p) throw new Error(`no page ${name} (pages: ${PAGES.map((x) => x.name).join(', ')})`);
  return p.text;
}

export const README = page('README.md');

export interface Block {
  lang: string;
  body: string;
  /** the `<!-- … -->` marker on the line before the fence, if any */
  marker: string | null;
  /** the 1-based line of the opening fence */
  line: number;
}

/** Every fenced block of a markdown text, with the marker comment just before it. */
export function blocks(text: string): Block[] {
  const lines = text.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`line ${i + 1}: a fenced block never closes`);
    const prev = i > 0 ? /^<!--\s*(.+?)\s*-->$/.exec(lines[i - 1]!.trim()) : null;
    out.push({ lang: open[1]!, body: lines.slice(i + 1, end).join('\n') + '\n', marker: prev ? prev[1]! : null, line: i + 1 });
    i = end;
  }
  return out;
}

/** The reason a block is not run (`<!-- not run: REASON -->`), or null when it runs. */
export function notRunReason(b: Block): string | null {
  const m = b.marker ? /^not run:\s*(.*)$/.exec(b.marker) : null;
  return m ? m[1]! : null;
}

/** The text under a heading (found by a pattern) up to the next heading of the same or a higher level. */
export function section(text: string, heading: RegExp): string {
  const lines = text.split('\n');
  const found = headings(text).find((h) => heading.test(h.text));
  if (!found) throw new Error(`no heading matching ${heading}`);
  const next = headings(text).find((h) => h.index > found.index && h.level <= found.level);
  return lines.slice(found.index, next ? next.index : undefined).join('\n');
}

/** The headings of a markdown text (lines in fenced blocks are not headings). */
export function headings(text: string): { index: number; level: number; text: string }[] {
  const out: { index: number; level: number; text: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((l, index) => {
    if (/^```/.test(l)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6}) (.*)$/.exec(l);
    if (m) out.push({ index, level: m[1]!.length, text: l });
  });
  return out;
}

/** A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading.replace(/^#+ /, '').trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

/** The example files of a text: path → content. */
export function exampleFiles(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const b of blocks(text)) {
    const m = b.marker ? /^file:\s*(\S+)$/.exec(b.marker) : null;
    if (!m) continue;
    if (files.has(m[1]!)) throw new Error(`line ${b.line}: example file ${m[1]} is given twice`);
    files.set(m[1]!, b.body);
  }
  return files;
}

/** The example files of every page, in one map (a path given on two pages is an error). */
export function allExampleFiles(): Map<string, string> {
  const all = new Map<string, string>();
  for (const p of PAGES) {
    for (const [path, body] of exampleFiles(p.text)) {
      if (all.has(path)) throw new Error(`${p.name}: example file ${path} is given on another page too`);
      all.set(path, body);
    }
  }
  return all;
}

export interface CommandLine {
  command: string;
  /** the exit code its trailing `# exit N` names (default 0) */
  expectExit: number;
  /** whether the line names its exit code */
  exitGiven: boolean;
  line: number;
}

/** The lines of the `<!-- run -->` blocks of a text, comments split off. */
export function runLines(text: string): CommandLine[] {
  return blocks(text).filter((b) => b.marker === 'run').flatMap((b) => shLines(b));
}

/** The command lines of one sh block: blank lines and whole-line comments dropped, `# exit N` read. */
export function shLines(b: Block): CommandLine[] {
  return b.body.split('\n').flatMap((raw, k) => {
    const l = raw.trim();
    if (l === '' || l.startsWith('#')) return [];
    const exit = /\s#\s*exit (\d+)\b/.exec(l);
    return [{ command: stripComment(l), expectExit: exit ? Number(exit[1]) : 0, exitGiven: exit !== null, line: b.line + 1 + k }];
  });
}

/** A line without its trailing ` # comment` (a `#` inside quotes is kept). */
export function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && i > 0 && /\s/.test(line[i - 1]!)) return line.slice(0, i).trimEnd();
  }
  return line;
}
