/**
 * Disk facts for `pico status` and `pico doctor`: the free space of the
 * filesystem under the root (statfs: the space an unprivileged writer may
 * use), and the bytes the sessions hold (a walk of sessions/ counting each
 * file's allocated blocks, so sparse or tiny files count as the disk sees
 * them). The walk lstats every file once and follows no link; on a root of
 * thousands of sessions it is the slowest part of `pico status` (measured
 * in the report of issue 15), which is why it is one function with a
 * counter of what it walked. It reads, never writes.
 */
import { lstatSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** Free bytes for an unprivileged writer on the filesystem holding `path`, and its size; null when statfs fails. */
export function freeSpace(path: string): { free_bytes: number; total_bytes: number } | null {
  try {
    const s = statfsSync(path);
    return { free_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  } catch {
    return null;
  }
}

/** Bytes allocated under `dir` (files and folders), and how many entries were walked. */
export function diskUse(dir: string): { bytes: number; entries: number } {
  let bytes = 0;
  let entries = 0;
  const walk = (d: string): void => {
    let names;
    try {
      names = readdirSync(d, { withFileTypes: true });
    } catch {
      return; // vanished meanwhile, or unreadable: counted as nothing
    }
    for (const e of names) {
      const p = join(d, e.name);
      entries++;
      try {
        bytes += lstatSync(p).blocks * 512;
      } catch {
        continue;
      }
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return { bytes, entries };
}

/** "1.4 GiB"-style size. */
export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}
