/**
 * A root holding the example files of the README and docs/ (`<!-- file: … -->`), and a way to
 * run a line of a page in it: shared by the files that run those examples (examples.test.ts,
 * unreadable.test.ts, the walk in commands.test.ts).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { MAIN_JS, pico } from '../daemon/spawn.js';
import { allExampleFiles } from './readme.js';

export const FILES = allExampleFiles();

/** A fresh root from the compiled `pico init`, with every example file but those left out written into it. */
export function exampleRoot(leaveOut: (path: string) => boolean = () => false): string {
  const root = join(tempDir('pico-readme-'), 'root');
  const init = pico(['init', root]);
  expect(init.code, init.stderr).toBe(0);
  for (const [rel, body] of FILES) {
    if (rel.includes('SESSION') || leaveOut(rel)) continue;
    const file = join(root, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
    if (body.startsWith('#!')) chmodSync(file, 0o755);
  }
  return root;
}

/** Run one README line from inside the root with `pico` on PATH and DIR standing for the root. */
export function sh(root: string, command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = join(dirname(root), 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'pico'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN_JS}" "$@"\n`, { mode: 0o755 });
  // async, so the test worker keeps answering vitest while a line runs
  return new Promise((done) => {
    execFile('/bin/sh', ['-c', command.replace(/\bDIR\b/g, root)], {
      cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
      done({ code, stdout, stderr });
    });
  });
}

