/**
 * The du_top capture → folder_sizes@1: where the space of one folder (a mount
 * point, usually) went, as du measured it on that filesystem alone.
 *
 * The capture is the du_top script's sections: "== df" (`df -P -k PATH`, the
 * filesystem the folder is on), "== du depth=N seconds=S" (`du -x -k -d N`,
 * biggest first, at most 60 rows), "== exit RC" (du's exit code: 124 when the
 * time limit stopped it, 1 when it met folders it could not read) and
 * "== unreadable N" with du's first complaints. A time-stopped du printed only
 * the folders it finished, so their sizes are exact but the list is not
 * complete, and the fact says so (`complete: false`); a folder it could not
 * read is not counted and is named. `largest` is what a person wants first:
 * the biggest listed folders that hold no other listed folder (the deepest
 * place the space can be pinned to at this depth). Nothing here guesses a
 * size: a row that is not "KIB<tab>PATH" is skipped.
 */
import { sections } from '../lib/sections.js';
import { int, round } from '../lib/single-schema.js';
import { parseDf } from '../disk-usage/parse.js';

export interface Folder {
  path: string;
  bytes: number;
  depth: number;
  share_percent: number | null;
}

export interface FolderSizes {
  path: string | null;
  depth: number | null;
  seconds: number | null;
  mount: string | null;
  filesystem_bytes: number | null;
  filesystem_used_percent: number | null;
  total_bytes: number | null;
  folders: Folder[];
  largest: Folder[];
  complete: boolean | null;
  unreadable_count: number | null;
  unreadable: string[];
}

/** How many folders the fact lists, and how many of them are "largest". */
export const MAX_FOLDERS = 30;
export const MAX_LARGEST = 5;
/** Exit code of timeout(1) when the time limit stopped the command. */
export const TIMED_OUT = 124;

const ROW = /^(\d+)\t(.+)$/;

/**
 * The path du or find names in one of its complaints ("du: cannot read directory '/x': Permission
 * denied"; in a UTF-8 locale GNU tools quote it ‘/x’ instead).
 */
export function complainedPath(line: string): string | null {
  const m = /^(?:du|find): [^'‘]*['‘](.+)['’](?::|$)/.exec(line);
  return m ? m[1]! : null;
}

/** Parse one du_top capture. */
export function parseDuTop(text: string): FolderSizes {
  const s = sections(text);
  const df = parseDf((s.get('df') ?? []).join('\n'));
  const fs = df.filesystems[0] ?? null;
  const duKey = [...s.keys()].find((k) => k.startsWith('du '));
  const opts = duKey ? /^du depth=(\d+) seconds=(\d+)$/.exec(duKey) : null;
  const rows: { path: string; bytes: number }[] = [];
  for (const line of duKey ? s.get(duKey)! : []) {
    const m = ROW.exec(line);
    if (m) rows.push({ path: m[2]!, bytes: Number(m[1]) * 1024 });
  }
  const exitKey = [...s.keys()].find((k) => k.startsWith('exit '));
  const exit = exitKey ? int(exitKey.slice(5)) : null;
  const unreadKey = [...s.keys()].find((k) => k.startsWith('unreadable '));
  const unreadable = (unreadKey ? s.get(unreadKey)! : []).map(complainedPath).filter((p): p is string => p !== null);
  // the measured folder, as the script printed it; du prints it last (the sum of all), so a stopped du may lack its row
  const path = (s.get('path') ?? []).find((l) => l !== '') ?? null;
  const root = path === null ? null : rows.find((r) => strip(r.path) === strip(path)) ?? null;
  const size = fs?.size_bytes ?? null;
  const share = (bytes: number) => (size ? round((100 * bytes) / size) : null);
  const folders: Folder[] = rows
    .filter((r) => r !== root && path !== null && within(r.path, path))
    .map((r) => ({ path: r.path, bytes: r.bytes, depth: depthBelow(r.path, path!), share_percent: share(r.bytes) }))
    .sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1));
  const leaves = folders.filter((f) => !folders.some((o) => o !== f && within(o.path, f.path)));
  return {
    path,
    depth: opts ? Number(opts[1]) : null,
    seconds: opts ? Number(opts[2]) : null,
    mount: fs?.mount ?? null,
    filesystem_bytes: size,
    filesystem_used_percent: fs?.used_percent ?? null,
    total_bytes: root?.bytes ?? null,
    folders: folders.slice(0, MAX_FOLDERS),
    largest: leaves.slice(0, MAX_LARGEST),
    complete: exit === null ? null : exit !== TIMED_OUT,
    unreadable_count: unreadKey ? int(unreadKey.slice('unreadable '.length)) : null,
    unreadable: unreadable.slice(0, 20),
  };
}

/** A path without its trailing slashes ("/" stays "/"). */
function strip(p: string): string {
  const t = p.replace(/\/+$/, '');
  return t === '' ? '/' : t;
}

/** `p` is folder `dir` or lies inside it. */
function within(p: string, dir: string): boolean {
  const a = strip(p);
  const d = strip(dir);
  return a === d || a.startsWith(d === '/' ? '/' : `${d}/`);
}

/** How many levels `p` lies below `dir`. */
function depthBelow(p: string, dir: string): number {
  const rest = strip(p).slice(strip(dir) === '/' ? 1 : strip(dir).length + 1);
  return rest === '' ? 0 : rest.split('/').length;
}
