/**
 * Every `pico` command line in the README's ```sh blocks still works as
 * written. They run in README order, with the compiled CLI, from inside a
 * fresh `pico init` root (which is what `DIR`, the quick start's `root`
 * (the folder npm start makes) and its `/tmp/r` stand for; `test/` and `../shared/` are linked beside it so
 * the repository paths the README names resolve). Placeholders become real
 * values: `<job id>`, `<session id>`, `JOB` and `SESSION` the newest session
 * of the root, `CASES` the shipped eval set, `[--flag]` the flag, `[STEP]`
 * nothing. What "works" means here is that the line is read as it is
 * written: a known command, known flags, no internal error. A line may still
 * exit non-zero for what this machine lacks — no daemon, no model file
 * (`/path/to/model.gguf`), nothing waiting for approval — and says so in its
 * own message. Lines run by test/readme/examples.test.ts (the `<!-- run -->`
 * blocks), `pico daemon` (a service), and lines of other programs (npm, sudo,
 * systemctl, journalctl, curl, sqlite3, …) are not run here. Needs
 * `npm run build` first.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFile, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { MAIN_JS } from '../daemon/spawn.js';
import { blocks, README, REPO, shLines, type CommandLine } from './readme.js';

/** The programs a README line may start with that this test runs: pico, and the file writing before it. */
const RUN_FIRST = /^(pico|node dist\/src\/cli\/main\.js|echo|printf|cp)\b/;

/** The README's sh lines this test runs, in order. */
function readmeCommands(): CommandLine[] {
  return blocks(README)
    .filter((b) => b.lang === 'sh' && b.marker === null)
    .flatMap((b) => shLines(b))
    .filter((l) => RUN_FIRST.test(l.command) && !/\bpico daemon\b|main\.js daemon\b/.test(l.command));
}

/** The root a line names (`--root X`), else the one it runs in. */
function rootOf(command: string, cwd: string): string {
  const m = /--root (\S+)/.exec(command);
  return m ? resolve(cwd, m[1]!) : cwd;
}

function newestSession(root: string): string {
  const dir = join(root, 'sessions');
  const ids = existsSync(dir) ? readdirSync(dir).filter((n) => /^\d{8}-\d{6}-/.test(n)).sort() : [];
  return ids.at(-1) ?? 'NO-SESSION-YET';
}

/** The line as it is run here: placeholders filled, optional parts decided, paths moved into the test folder. */
function concrete(command: string, base: string, root: string): string {
  let c = command
    .replace(/^node dist\/src\/cli\/main\.js\b/, 'pico')
    .replace(/\/tmp\/r\b/g, join(base, 'r'))
    .replace(/\/tmp\/([\w.-]+)/g, (_m, f: string) => join(base, f))
    .replace(/\bDIR\b/g, root)
    // the quick start's ./root (the root npm start makes in the checkout) is the root the lines run in
    .replace(/--root root\b/g, '--root .')
    .replace(/(^|\s)root\//g, '$1')
    .replace(/\bCASES\b/g, 'examples/eval/admin.json')
    .replace(/\[(--[^\]]+)\]/g, '$1')
    .replace(/ \[[A-Z]+\]/g, '');
  const target = rootOf(c, root);
  c = c.replace(/<(job|session) id>|\bJOB\b|\bSESSION\b/g, () => newestSession(target));
  return c;
}

/** Run one line with sh; its exit status (null when it was killed), stdout and stderr. */
async function run(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; signal: string | null; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)('/bin/sh', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 120_000, maxBuffer: 16 << 20 });
    return { status: 0, signal: null, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number | string; signal?: string | null; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : null, signal: e.signal ?? null, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}

describe('every command in the README works as written', () => {
  const lines = readmeCommands();

  it('finds the README\'s command lines (the quick start, the daemon, the ladder, memory, eval, …)', () => {
    expect(lines.length).toBeGreaterThanOrEqual(30);
    for (const cmd of ['init', 'run', 'show', 'replay', 'submit', 'watch', 'status', 'plan', 'ladder', 'recall', 'eval', 'provision']) {
      expect(lines.some((l) => new RegExp(`(pico|main\\.js) ${cmd}\\b`).test(l.command)), cmd).toBe(true);
    }
  });

  it('each line is read as written: a known command, known flags, no internal error', async () => {
    const base = tempDir('pico-readme-cmds-');
    const root = join(base, 'root');
    const bin = join(base, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'pico'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN_JS}" "$@"\n`, { mode: 0o755 });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    expect(spawnSync(process.execPath, [MAIN_JS, 'init', root]).status).toBe(0);
    symlinkSync(join(REPO, 'test'), join(root, 'test'));
    const shared = join(REPO, '..', 'shared');
    if (existsSync(shared)) symlinkSync(shared, join(base, 'shared'));
    const problems: string[] = [];
    let ran = 0;
    for (const l of lines) {
      if (l.command.includes('../shared/') && !existsSync(shared)) continue;
      const command = concrete(l.command, base, root);
      // async, so the test worker keeps answering vitest while a line runs
      const r = await run(command, root, env);
      ran++;
      const said = `${r.stdout}\n${r.stderr}`;
      const bad = r.status === null ? `did not end (${r.signal})`
        : r.status === 4 ? 'internal error (exit 4)'
        : /unknown command|Unknown option|usage: |internal error|is not a valid job/.test(r.stderr) ? 'not read as written'
        : null;
      if (bad) problems.push(`README line ${l.line}: ${l.command}\n  ran: ${command}\n  ${bad}, exit ${r.status}: ${said.trim().slice(0, 600)}`);
    }
    expect(ran).toBeGreaterThanOrEqual(30);
    expect(problems, problems.join('\n\n')).toEqual([]);
  }, 600_000);
});

