/**
 * Issue 37 items 4–6 and issue 33 item 5: one table of exit codes, held over every command (the
 * table of docs/commands.md is src/cli/args.ts's EXIT, test/readme/pages.test.ts holds that);
 * a person's mistake — an unknown option, a missing argument, a misspelt command, a job file
 * that is not there, is a folder or is empty — is exit 2 from every command that meets it, said
 * in words rather than errno, with the nearest command or option named; and `pico … | head`
 * stops quietly. The compiled CLI (dist/; build first) in a real root.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRoot } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { MAIN_JS, picoAsync, runAsync } from '../daemon/spawn.js';
import { COMMANDS } from '../helpers/commands.js';

const STACK = /^\s+at .+:\d+:\d+\)?$/m;

/** pico run to its end without blocking this fork (some 70 commands in one test: see test/setup.ts). */
const pico = (args: string[], cwd?: string) => picoAsync(args, { cwd, env: { ...process.env, PICO_ROOT: '' } });

/** What each command needs before it can meet the mistake under test (a subcommand, a value). */
const LEAD: Record<string, string[]> = { init: ['DIR'], manifests: ['check'], memory: ['stats'], failures: ['list'], fleet: ['status'] };

describe('one table of exit codes', () => {
  it('every command exits 2 for the user\'s mistakes', async () => {
    const root = makeRoot('pico-exit-');
    const problems: string[] = [];
    const expect2 = async (args: string[], words: RegExp) => {
      const r = await pico(args.map((a) => (a === 'DIR' ? join(root, 'new') : a)), root);
      if (r.code !== 2 || !words.test(r.stderr) || STACK.test(r.stderr)) problems.push(`pico ${args.join(' ')}: exit ${r.code}: ${r.stderr.slice(0, 300)}`);
    };
    for (const c of COMMANDS) {
      // an option the command does not have: named, with the usage, never a stack trace
      await expect2([c, ...(LEAD[c] ?? []), '--no-such-flag'], /unknown option --no-such-flag|Unknown option '--no-such-flag'/);
    }
    // a missing argument, for each command that needs one
    for (const c of ['init', 'run', 'plan', 'call', 'submit', 'cancel', 'retry', 'approve', 'deny', 'watch', 'show', 'replay', 'manifests', 'ladder', 'recall', 'memory', 'gc', 'provision', 'probe', 'eval', 'fleet']) {
      await expect2([c], /usage|name|expected|give|say|required/i);
    }
    // an id the root does not know, a value out of range, a file that is not there
    const unknown = '20000101-000000-000000000000';
    for (const args of [['cancel', unknown], ['retry', unknown], ['approve', unknown], ['deny', unknown], ['watch', unknown], ['show', unknown], ['replay', unknown], ['check', unknown], ['composition', unknown],
      ['probe', 'nope'], ['models', 'rm', 'nope'], ['jobs', '--state', 'nope'], ['report', '--days', '0'], ['gc', '--older-than', '3x'], ['daemon', '--listen', '0.0.0.0:80'],
      ['eval', 'no-such-cases.json', '--recorded'], ['replay', '--all', '--policy', 'no-such-policy.json'], ['ladder', '--schema', 'no-such-schema.json']]) {
      await expect2(args, /./);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  }, 600_000);

  it('a misspelt command gets the nearest command, not the whole usage', async () => {
    const r = await pico(['stauts']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pico: unknown command "stauts" (did you mean pico status?)');
    expect(r.stderr.split('\n').length).toBeLessThanOrEqual(3);
    const opt = await pico(['jobs', '--stat', 'done', '--root', makeRoot('pico-exit-opt-')]);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain('unknown option --stat (did you mean --state?)');
    // and a misspelt subcommand the nearest subcommand
    for (const [args, near] of [[['memory', 'rebuidl'], 'rebuild'], [['failures', 'reprot'], 'report'], [['fleet', 'stauts'], 'status'], [['manifests', 'chek'], 'check'], [['models', 'rn', 'x'], 'rm']] as const) {
      const r = await pico([...args, '--root', makeRoot('pico-exit-sub-')]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(`unknown subcommand "${args[1]}" (did you mean ${near}?)`);
    }
    const far = await pico(['frobnicate']);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/the commands: init, ask, run, .*status/);
  }, 120_000); // eight commands, each a process start: seconds apiece on a loaded box

  it('a job file that is missing, a folder or empty is said in words by run, submit and fleet submit alike (exit 2)', async () => {
    const root = makeRoot('pico-exit-words-');
    const dir = tempDir('pico-exit-files-');
    mkdirSync(join(dir, 'jobs'));
    writeFileSync(join(dir, 'empty.json'), '');
    writeFileSync(join(dir, 'broken.json'), '{"job": "job@1",\n  "goal": "x" "budget_class": "interactive"}');
    const cases: [string, string][] = [
      [join(dir, 'missing.json'), `${join(dir, 'missing.json')}: no such file`],
      [join(dir, 'jobs'), `${join(dir, 'jobs')} is a folder, not a job file`],
      [join(dir, 'empty.json'), `${join(dir, 'empty.json')} is empty`],
      [join(dir, 'broken.json'), `${join(dir, 'broken.json')}: not valid JSON: a comma or a closing brace was expected (at line 2, column 15)`],
    ];
    for (const [file, words] of cases) {
      for (const args of [['run', file, '--root', root], ['submit', file, '--root', root], ['fleet', 'submit', file, '--to', 'box=b1', '--server', 'nats://127.0.0.1:1']]) {
        const r = await pico(args);
        expect(r.code, `pico ${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr, `pico ${args.join(' ')}`).toContain(words);
        expect(r.stderr, `pico ${args.join(' ')}`).not.toMatch(/ENOENT|EISDIR|end of JSON input|in the middle of a value/);
      }
    }
  }, 120_000);

  it('pico … | head stops quietly: when the reader goes away, no command dies on EPIPE', async () => {
    const root = makeRoot('pico-epipe-');
    expect((await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root])).code).toBe(0);
    const err = join(tempDir('pico-epipe-err-'), 'stderr');
    // outputs far larger than a pipe holds (the composition document is over 100 kB), read by head as a person would
    for (const args of ['composition', 'composition --json', `show ${'$'}(ls sessions | head -1) --json --full`]) {
      const r = await runAsync('bash', ['-c', `"${'$'}0" "${'$'}1" ${args} 2>"${'$'}2" | head -c 10 >/dev/null; exit ${'$'}{PIPESTATUS[0]}`, process.execPath, MAIN_JS, err], { cwd: root, env: { ...process.env, PICO_ROOT: '' } });
      const stderr = readFileSync(err, 'utf8');
      expect(stderr, `pico ${args}`).not.toMatch(/EPIPE|internal error/);
      expect(stderr, `pico ${args}`).not.toMatch(STACK);
      expect(r.code, `pico ${args}: ${stderr}`).toBe(0);
    }
  }, 120_000);
});
