/**
 * Disk facts for `pico status` and `pico doctor`: the free space of the
 * filesystem under the root (statfs: the space an unprivileged writer may
 * use), and sizes as a person reads them. What the sessions hold is counted
 * by src/retention/disk-use.ts, which also knows what removing them frees.
 * It reads, never writes.
 */
import { statfsSync } from 'node:fs';

/** Free bytes for an unprivileged writer on the filesystem holding `path`, and its size; null when statfs fails. */
export function freeSpace(path: string): { free_bytes: number; total_bytes: number } | null {
  try {
    const s = statfsSync(path);
    return { free_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  } catch {
    return null;
  }
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
