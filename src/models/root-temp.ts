/**
 * Scratch space inside the root: `<root>/.tmp/<prefix>XXXXXX/`, made by
 * mkdtemp (a unique name, mode 0700), removed when the work ends however it
 * ends, and `.tmp` itself removed again when this made it and it is empty.
 *
 * Never a fixed name under /tmp: a second user would meet the first one's
 * file (EACCES), and under the unit PrivateTmp gives the daemon a /tmp of its
 * own. Inside the root it is on the models' filesystem and within the unit's
 * ReadWritePaths. This module hands out folders; it does not know what goes in.
 */
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';

export const ROOT_TMP = '.tmp';

/** Run `fn` with a fresh folder under `<root>/.tmp/`, removed afterwards. */
export async function withRootTemp<T>(root: string, prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const base = path.join(root, ROOT_TMP);
  const made = !existsSync(base);
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(path.join(base, prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (made) {
      try {
        rmdirSync(base);
      } catch { /* another run's folder is in it */ }
    }
  }
}
