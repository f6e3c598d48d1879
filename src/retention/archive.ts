/**
 * Monthly archives: `sessions/archive/YYYY-MM.tar.gz`, one gzip-compressed
 * tar per month of the sessions' end, which `tar tzf` lists.
 *
 * Adding to a month never touches the archive that exists: a new file is
 * written beside it (a dot-name unique to this write) holding the old
 * entries and then the new ones, fsynced, and renamed over the old one, so a
 * crash leaves either the old archive or the new one whole, plus at most a
 * stray temp file that the next run removes. An entry already in the archive
 * under a path being added again (a run that crashed after archiving but
 * before removing) is replaced, never duplicated. This module writes
 * archives; choosing what goes in and removing it afterwards is `gc.ts`.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, fsyncSync, closeSync, openSync, readdirSync, readlinkSync, unlinkSync, type Stats } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { syncDir } from '../base/durable-file.js';
import { walk } from './disk-use.js';
import { END, entryHeader, padding, readEntries } from './tar.js';

export const ARCHIVE_DIR = 'archive';

/** One tree to add: what is on disk at `path`, stored as `as` (forward slashes) in the archive. */
export interface ArchiveItem {
  path: string;
  as: string;
}

/** The archive file for a month of `iso`'s UTC time under sessions/. */
export function monthArchive(sessionsDir: string, iso: string): string {
  return join(sessionsDir, ARCHIVE_DIR, `${iso.slice(0, 7)}.tar.gz`);
}

/** Is `name` the item's own path or inside it? */
const under = (name: string, roots: readonly string[]): boolean => roots.some((r) => name === r || name === `${r}/` || name.startsWith(`${r}/`));

/** The tar blocks of one tree on disk, file contents streamed. */
async function* treeBlocks(item: ArchiveItem): AsyncGenerator<Buffer> {
  const entries: { path: string; st: Stats }[] = [];
  walk(item.path, (p, st) => entries.push({ path: p, st }));
  for (const { path, st } of entries) {
    const rel = relative(item.path, path).split(sep).join('/');
    const name = rel === '' ? item.as : `${item.as}/${rel}`;
    const mtime = st.mtimeMs / 1000;
    if (st.isDirectory()) yield entryHeader({ name, type: 'dir', mode: st.mode, size: 0, mtime });
    else if (st.isSymbolicLink()) yield entryHeader({ name, type: 'symlink', mode: st.mode, size: 0, mtime, linkname: readlinkSync(path) });
    else if (st.isFile()) {
      yield entryHeader({ name, type: 'file', mode: st.mode, size: st.size, mtime });
      let n = 0;
      for await (const chunk of createReadStream(path)) {
        n += (chunk as Buffer).length;
        if (n > st.size) throw new Error(`${path} grew while it was archived; a finished session's files do not change, so something still writes there`);
        yield chunk as Buffer;
      }
      if (n !== st.size) throw new Error(`${path} shrank while it was archived (${n} of ${st.size} bytes)`);
      yield padding(st.size);
    }
    // sockets, fifos and devices have no place in a session and are left out
  }
}

/** Remove temp files a crashed run left in the archive folder. */
export function removeStrayTemps(sessionsDir: string): number {
  const dir = join(sessionsDir, ARCHIVE_DIR);
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') && name.endsWith('.tmp')) {
      unlinkSync(join(dir, name));
      n++;
    }
  }
  return n;
}

/** Add trees to an archive (created when absent) by writing a new file and renaming it over the old one. */
export async function addToArchive(archive: string, items: readonly ArchiveItem[]): Promise<void> {
  await mkdir(dirname(archive), { recursive: true });
  const tmp = join(dirname(archive), `.${basename(archive)}.${randomBytes(4).toString('hex')}.tmp`);
  const roots = items.map((i) => i.as);
  async function* all(): AsyncGenerator<Buffer> {
    if (existsSync(archive)) {
      for await (const e of readEntries(createReadStream(archive).pipe(createGunzip()))) {
        if (!under(e.name, roots)) yield* e.blocks;
      }
    }
    for (const item of items) yield* treeBlocks(item);
    yield END;
  }
  try {
    await pipeline(Readable.from(all()), createGzip(), createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await rename(tmp, archive);
    syncDir(dirname(archive));
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch { /* never made */ }
    if (e instanceof Error && /damaged|ends in the middle|incorrect header check|unexpected end/i.test(e.message)) {
      throw new Error(`${archive}: the existing archive cannot be read (${e.message}); it was left as it is — move it aside (e.g. to ${archive}.damaged) and run again`);
    }
    throw e;
  }
}
