/**
 * The walk: every command of README.md and of each page of docs/ still works
 * as written. Each page runs in a fresh root made by the compiled `pico init`
 * and holding every page's example files (`<!-- file: … -->`), its ```sh
 * blocks in page order, one line at a time, with `pico` the compiled CLI on
 * the PATH, HOME a folder of the test (so `~/pico` is one too) and `cd` moving
 * the following lines. Placeholders become real values: `<job id>`,
 * `<session id>`, `JOB` and `SESSION` the newest session of the root the line
 * names, `CASES` the shipped eval set, `DIR` the root, `/tmp/X` a file of the
 * test; `test/…` and `systemd/…` are the repository's.
 *
 * A line of a `<!-- run -->` block, and any line ending `# exit N`, must exit
 * with that code. Every other line must be read as written: a known command,
 * known flags, no internal error, no stack trace, a program that exists. It
 * may still exit non-zero for what the test's machine lacks — no daemon
 * serving the root, no model file at `/path/to/model.gguf`, nothing waiting
 * for approval — and says so in its own message. A block marked
 * `<!-- not run: REASON -->` (systemd, a Pi, a network, a model file, a
 * daemon that runs until stopped, the test suite itself) is not run, and
 * says why where a reader sees it. Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleRoot, sh } from './example-root.js';
import { blocks, notRunReason, PAGES, REPO, shLines, type CommandLine } from './readme.js';

/**
 * Lines that need a feature another engineer is still building, skipped here with the reason.
 * The lead removes an entry when that feature is merged; the lines then run like every other.
 */
const PENDING: { line: RegExp; reason: string }[] = [];

/** The root a line names (`--root X`), else the folder it runs in. */
function rootOf(command: string, cwd: string): string {
  const m = /--root (\S+)/.exec(command);
  return m ? resolve(cwd, m[1]!) : cwd;
}

/** The newest session of a root; before the first, an id of the right shape that names none. */
function newestSession(root: string): string {
  const dir = join(root, 'sessions');
  const ids = existsSync(dir) ? readdirSync(dir).filter((n) => /^\d{8}-\d{6}-/.test(n)).sort() : [];
  return ids.at(-1) ?? '20000101-000000-000000000000';
}

/** The line as it is run here: placeholders filled, paths moved into the test's folder or the repository. */
function concrete(command: string, base: string, root: string, cwd: string): string {
  let c = command
    .replace(/\/tmp\/([\w.@-]+)/g, (_m, f: string) => join(base, f))
    .replace(/\bDIR\b/g, root)
    .replace(/\bCASES\b/g, 'examples/eval/admin.json')
    .replace(/(^|\s)((?:test|systemd)\/)/g, (_m, pre: string, dir: string) => `${pre}${REPO}/${dir}`);
  const target = rootOf(c, cwd);
  c = c.replace(/<(job|session) id>|\bJOB\b|\bSESSION\b/g, () => newestSession(target));
  return c;
}

interface Ran { status: number | null; signal: string | null; stdout: string; stderr: string }

/** Run one line with sh, stdin closed; async, so the test worker keeps answering vitest while it runs. */
function run(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      done({ status, signal, stdout, stderr });
    });
  });
}

/** What is wrong with how a line ran, or null. */
function problem(l: CommandLine, strict: boolean, r: Ran): string | null {
  if (r.status === null) return `did not end (${r.signal})`;
  if (strict || l.exitGiven) return r.status === l.expectExit ? null : `exit ${r.status} where the page says ${l.expectExit}`;
  if (r.status === 4) return 'internal error (exit 4)';
  if (r.status === 126 || r.status === 127) return `the program was not found (exit ${r.status})`;
  if (/unknown command|unknown option|usage: |internal error|is not a valid job/i.test(r.stderr)) return 'not read as written';
  if (/^\s+at .+:\d+:\d+\)?$/m.test(r.stderr)) return 'a stack trace';
  return null;
}

/** The lines a page's walk runs: every sh block not marked `not run`, and whether each is held to its exit code. */
function walkLines(text: string): { line: CommandLine; strict: boolean }[] {
  return blocks(text)
    .filter((b) => b.lang === 'sh' && notRunReason(b) === null && !(b.marker ?? '').startsWith('file:'))
    .flatMap((b) => shLines(b).map((line) => ({ line, strict: b.marker === 'run' })));
}

describe('every command of the README and docs/ works as written', () => {
  it('each block of commands is a sh block the walk runs, or says why it is not run', () => {
    const unmarked: string[] = [];
    for (const p of PAGES) {
      for (const b of blocks(p.text)) {
        const reason = notRunReason(b);
        if (reason !== null) expect(reason.length, `${p.name} line ${b.line}: a not-run block says why`).toBeGreaterThan(10);
        if (b.lang !== 'sh' && /^(pico|sudo|npm) /m.test(b.body)) unmarked.push(`${p.name} line ${b.line}: commands in a \`${b.lang || 'plain'}\` block`);
      }
    }
    expect(unmarked).toEqual([]);
  });

  it('finds the pages\' command lines, and each line the walk skips as pending still exists', () => {
    const all = PAGES.flatMap((p) => walkLines(p.text).map((x) => x.line.command));
    expect(all.length).toBeGreaterThanOrEqual(80);
    for (const cmd of ['init', 'ask', 'run', 'show', 'replay', 'submit', 'watch', 'status', 'plan', 'ladder', 'recall', 'eval', 'provision', 'report', 'gc', 'cancel', 'check']) {
      expect(all.some((c) => new RegExp(`^pico ${cmd}\\b|\\| pico ${cmd}\\b`).test(c)), cmd).toBe(true);
    }
    for (const p of PENDING) expect(all.some((c) => p.line.test(c)), `pending entry ${p.line} matches no line any more`).toBe(true);
  });

  // a page whose every block needs what the test's machine lacks (the fleet's server, the suite itself) has no walk
  for (const p of PAGES.filter((x) => walkLines(x.text).length > 0)) {
    it(`${p.name}: each line runs as written in a fresh root`, async () => {
      const root = exampleRoot();
      const base = dirname(root);
      const env = { ...process.env, HOME: base, PICO_ROOT: '', PATH: `${join(base, 'bin')}:${process.env.PATH ?? ''}` };
      await sh(root, 'true'); // writes the bin/pico wrapper beside the root
      let cwd = root;
      let ran = 0;
      const problems: string[] = [];
      for (const { line: l, strict } of walkLines(p.text)) {
        const pending = PENDING.find((x) => x.line.test(l.command));
        if (pending) continue;
        const cd = /^cd (\S+)$/.exec(l.command);
        if (cd) {
          cwd = resolve(cwd, cd[1]!.replace(/^\/tmp\//, `${base}/`).replace(/^~(?=\/|$)/, base));
          if (!existsSync(cwd)) {
            problems.push(`${p.name} line ${l.line}: ${l.command}: no folder ${cwd} by then`);
            break;
          }
          continue;
        }
        const command = concrete(l.command, base, root, cwd);
        const r = await run(command, cwd, env);
        ran++;
        const bad = problem(l, strict, r);
        if (bad) problems.push(`${p.name} line ${l.line}: ${l.command}\n  ran: ${command}\n  ${bad}: ${`${r.stdout}\n${r.stderr}`.trim().slice(0, 600)}`);
      }
      expect(ran, `${p.name}: lines run`).toBeGreaterThan(0);
      expect(problems, problems.join('\n\n')).toEqual([]);
    }, 900_000);
  }
});
