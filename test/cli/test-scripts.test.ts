/**
 * Issue 37 item 2: one failure in the parallel run must not hide the files that run alone.
 * `npm test` and `npm run test:quick` are run here as npm runs them (the script text of
 * package.json, by sh), with a stand-in `vitest` first on the PATH that records its arguments and
 * exits as told: the real suite cannot run inside itself. Both runs always run, and the script's
 * exit code is the worse of the two.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const REPO = join(import.meta.dirname, '..', '..');
const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Run a package.json script with a stand-in vitest that exits `parallel` / `alone` for each project. */
function runScript(name: string, parallel: number, alone: number): { code: number | null; calls: string[] } {
  const dir = tempDir('pico-test-script-');
  const log = join(dir, 'calls.log');
  writeFileSync(join(dir, 'vitest'), `#!/bin/sh
echo "$*" >> "${log}"
case "$*" in *"--project parallel"*) exit ${parallel} ;; *"--project alone"*) exit ${alone} ;; esac
exit 99
`, { mode: 0o755 });
  const r = spawnSync('/bin/sh', ['-c', scripts[name]!], { env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` }, encoding: 'utf8' });
  let calls: string[] = [];
  try { calls = readFileSync(log, 'utf8').trim().split('\n'); } catch { /* no call at all */ }
  return { code: r.status, calls };
}

describe('npm test and test:quick', () => {
  for (const name of ['test', 'test:quick']) {
    it(`${name}: both runs always run, and the exit code is the worse of the two`, () => {
      for (const [parallel, alone, worse] of [[0, 0, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]] as const) {
        const r = runScript(name, parallel, alone);
        expect(r.calls.map((c) => /--project (\w+)/.exec(c)?.[1]), `${name} with exits ${parallel}, ${alone}`).toEqual(['parallel', 'alone']);
        expect(r.code, `${name} with exits ${parallel}, ${alone}`).toBe(worse);
      }
    });
  }
});
