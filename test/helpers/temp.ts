/**
 * Temp folders for tests: real folders under the OS temp folder, each removed
 * when its test file ends (test/setup.ts), so `npm test` leaves nothing in
 * /tmp however often it runs. Suites that remove a folder sooner may still do so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh empty folder under the OS temp folder, removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Remove every folder tempDir made so far (test/setup.ts calls this after each test file). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
