/**
 * Small tmpfs mounts for the disk-full suites: a real filesystem that really
 * runs out of space, instead of a mocked write. Mounting needs root; when the
 * tests do not run as root, or the kernel refuses the mount (a container
 * without CAP_SYS_ADMIN), `tmpfsProbe` says why and the suites skip with that
 * message. Every mount is unmounted after each test (lazily, so a process
 * still holding a file there cannot keep it mounted).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { tempDir } from './temp.js';

const mounted: string[] = [];

afterEach(() => {
  for (const dir of mounted.splice(0).reverse()) unmount(dir);
});

function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** Mount a tmpfs of `size` (e.g. "1m"), with at most `inodes` files and folders when given, on `dir`; returns the reason when it cannot. */
export function mountTmpfs(dir: string, size: string, inodes?: number): string | null {
  if (process.getuid?.() !== 0) return 'not running as root: mounting a small tmpfs needs root';
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755${inodes ? `,nr_inodes=${inodes}` : ''}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return `mount -t tmpfs failed: ${(r.stderr || r.error?.message || '').trim()}`;
  mounted.push(dir);
  return null;
}

/** Why this machine cannot run the tmpfs suites, or null when it can (probed once). */
export const tmpfsProbe: string | null = (() => {
  const dir = tempDir('pico-tmpfs-probe-');
  const why = mountTmpfs(dir, '64k');
  if (why === null) {
    unmount(dir);
    mounted.pop();
  }
  return why;
})();

/** Free bytes on the filesystem of `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * Fill the filesystem of `dir` until at most `leave` bytes are free, with a file `.filler`
 * in `dir` (a dot-name: the daemon ignores it). Returns its path; delete it to free the space.
 */
export function fill(dir: string, leave: number): string {
  const path = join(dir, '.filler');
  const fd = openSync(path, 'a');
  const chunk = Buffer.alloc(4096, 0x2e);
  try {
    while (freeBytes(dir) > leave) {
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, freeBytes(dir) - leave));
      } catch {
        break; // full already
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * Take every free inode of the filesystem of `dir` but `leave`, with empty files in a folder
 * `.inode-filler` in `dir` (a dot-name: the daemon ignores it). Returns the folder; remove it
 * to give the inodes back.
 */
export function fillInodes(dir: string, leave = 0): string {
  const folder = join(dir, '.inode-filler');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; statfsSync(dir).ffree > leave; i++) {
    try {
      closeSync(openSync(join(folder, String(i)), 'w'));
    } catch {
      break; // out of inodes already
    }
  }
  return folder;
}

/** Give the space of a filler back. */
export function unfill(path: string): void {
  rmSync(path, { force: true, recursive: true });
}
