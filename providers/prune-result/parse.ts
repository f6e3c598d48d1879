/**
 * The prune_archive tool's report as a `prune_result@1` fact: which files it
 * removed and which it kept (each with its size), and the summary line's
 * counts. The tool prints one line per file — `removed NAME (N bytes)` or
 * `kept NAME (N bytes)` — then `summary: removed R files (B bytes), kept the
 * newest K of N in DIR`. A line of another shape is left out; a missing
 * summary leaves its fields null (abstention, never a guess).
 */

export interface PrunedFile {
  file: string;
  bytes: number;
}

export interface PruneResult {
  dir: string | null;
  removed: PrunedFile[];
  kept: PrunedFile[];
  removed_count: number;
  removed_bytes: number;
  keep: number | null;
  files_seen: number | null;
}

const FILE_LINE = /^(removed|kept) (.+) \((\d+) bytes\)$/;
const SUMMARY = /^summary: removed (\d+) files? \((\d+) bytes\), kept the newest (\d+) of (\d+) in (.+)$/;

/** Parse the tool's output. */
export function parsePrune(text: string): PruneResult {
  const out: PruneResult = { dir: null, removed: [], kept: [], removed_count: 0, removed_bytes: 0, keep: null, files_seen: null };
  for (const line of text.split('\n').map((l) => l.trimEnd())) {
    const f = FILE_LINE.exec(line);
    if (f) {
      (f[1] === 'removed' ? out.removed : out.kept).push({ file: f[2]!, bytes: Number(f[3]) });
      continue;
    }
    const s = SUMMARY.exec(line);
    if (s) {
      out.keep = Number(s[3]);
      out.files_seen = Number(s[4]);
      out.dir = s[5]!;
    }
  }
  out.removed_count = out.removed.length;
  out.removed_bytes = out.removed.reduce((n, f) => n + f.bytes, 0);
  return out;
}
