/**
 * The log_files_top capture → log_files@1: the largest files under /var/log,
 * how many files and bytes the folder holds, and how much of it is rotated
 * old logs (names ending in .1, .gz, .xz, .bz2, .zst or -YYYYMMDD, as
 * logrotate and journald leave them).
 *
 * Sections of the log_files_top script: "== folder" (the folder read),
 * "== files" (`find -printf '%s\t%p'`, biggest first, at most 15),
 * "== all" and "== rotated" ("COUNT BYTES" over every file found),
 * "== exit RC" and "== unreadable N" with find's first complaints. A folder
 * find could not open is named and its files are not counted.
 */
import { sections } from '../lib/sections.js';
import { int } from '../lib/single-schema.js';
import { complainedPath } from './du.js';

export interface LogFiles {
  folder: string | null;
  files: { path: string; bytes: number }[];
  file_count: number | null;
  total_bytes: number | null;
  rotated_count: number | null;
  rotated_bytes: number | null;
  unreadable_count: number | null;
  unreadable: string[];
}

/** "COUNT BYTES" of one section, or nulls. */
function countBytes(lines: readonly string[] | undefined): [number | null, number | null] {
  const m = /^\s*(\d+)\s+(\d+)\s*$/.exec((lines ?? []).find((l) => l.trim() !== '') ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [null, null];
}

/** Parse one log_files_top capture. */
export function parseLogFiles(text: string): LogFiles {
  const s = sections(text);
  const files: LogFiles['files'] = [];
  for (const line of s.get('files') ?? []) {
    const m = /^(\d+)\t(.+)$/.exec(line);
    if (m) files.push({ path: m[2]!, bytes: Number(m[1]) });
  }
  const [fileCount, total] = countBytes(s.get('all'));
  const [rotatedCount, rotated] = countBytes(s.get('rotated'));
  const unreadKey = [...s.keys()].find((k) => k.startsWith('unreadable '));
  return {
    folder: (s.get('folder') ?? []).find((l) => l !== '') ?? null,
    files: files.sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1)),
    file_count: fileCount,
    total_bytes: total,
    rotated_count: rotatedCount,
    rotated_bytes: rotated,
    unreadable_count: unreadKey ? int(unreadKey.slice('unreadable '.length)) : null,
    unreadable: (unreadKey ? s.get(unreadKey)! : []).map(complainedPath).filter((p): p is string => p !== null).slice(0, 20),
  };
}
