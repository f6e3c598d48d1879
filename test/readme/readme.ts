/**
 * Reading the README as the tests of test/readme/ need it: its sections, the
 * example files and the runnable command blocks of "Files you write", and
 * every command line of its `sh` blocks.
 *
 * The conventions (the README's own markup, invisible when it is rendered):
 * - `<!-- file: REL/PATH -->` on the line before a fenced block: the block is
 *   the whole content of that file, written at REL/PATH of a root (`SESSION`
 *   in the path stands for the session it belongs to).
 * - `<!-- run -->` before a ```sh block: its lines run in order from inside a
 *   root, `pico` being the built CLI and `DIR` that root; a trailing
 *   `# exit N` says the line's exit code (default 0).
 * This module only parses; it runs nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');
export const README = readFileSync(join(REPO, 'README.md'), 'utf8');

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
    if (end < 0) throw new Error(`README line ${i + 1}: a fenced block never closes`);
    const prev = i > 0 ? /^<!--\s*(.+?)\s*-->$/.exec(lines[i - 1]!.trim()) : null;
    out.push({ lang: open[1]!, body: lines.slice(i + 1, end).join('\n') + '\n', marker: prev ? prev[1]! : null, line: i + 1 });
    i = end;
  }
  return out;
}

/** The text under a heading (found by a pattern) up to the next heading of the same or a higher level. */
export function section(text: string, heading: RegExp): string {
  const lines = text.split('\n');
  const found = headings(text).find((h) => heading.test(h.text));
  if (!found) throw new Error(`README has no heading matching ${heading}`);
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

/** The example files of a text: path → content. */
export function exampleFiles(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const b of blocks(text)) {
    const m = b.marker ? /^file:\s*(\S+)$/.exec(b.marker) : null;
    if (!m) continue;
    if (files.has(m[1]!)) throw new Error(`README line ${b.line}: example file ${m[1]} is given twice`);
    files.set(m[1]!, b.body);
  }
  return files;
}

export interface CommandLine {
  command: string;
  expectExit: number;
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
    return [{ command: stripComment(l), expectExit: exit ? Number(exit[1]) : 0, line: b.line + 1 + k }];
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
