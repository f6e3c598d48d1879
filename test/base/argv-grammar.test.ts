// "Interpreter code must be literal", followed through wrappers (issue 20): every wrapper the attack
// used, more of the same kind, nesting, "--" in front of the code, and the input xargs and
// find -exec append. One check (argumentHazards) judges them all; literal code with the argument
// as a positional parameter still passes behind any wrapper.
import { describe, expect, it } from 'vitest';
import { argumentHazards, interpreterArgv, programRuns } from '../../src/base/argv-grammar.js';

const hazards = (argv: string[]) => argumentHazards(argv);
const refused = (argv: string[]) => hazards(argv).length > 0;

describe('programRuns', () => {
  it('follows a chain of wrappers, each by its own options and operands, to the program it runs', () => {
    const argv = ['timeout', '-s', 'KILL', '5', 'nice', '-n', '5', 'ionice', '-c3', 'stdbuf', '-o0', 'setsid', '-w', 'nohup', 'chrt', '-f', '10', 'taskset', '-c', '0', 'env', '-u', 'X', 'A=b', 'busybox', 'sh', '-c', 'echo', 'sh'];
    const [run] = programRuns(argv);
    expect(argv[run!.at]).toBe('sh');
    expect(run!.wrappers.map((i) => argv[i])).toEqual(['timeout', 'nice', 'ionice', 'stdbuf', 'setsid', 'nohup', 'chrt', 'taskset', 'env', 'busybox']);
  });

  it('each find -exec command is a program of its own, ending at ";" or "+"', () => {
    const argv = ['find', '.', '-name', '*.log', '-exec', 'gzip', '{}', ';', '-execdir', 'sh', '-c', 'x', 'sh', '{}', '+'];
    expect(programRuns(argv).map((r) => [argv[r.at], r.end, r.input])).toEqual([['find', 15, null], ['gzip', 7, null], ['sh', 14, 'find']]);
  });

  it('interpreterArgv finds the interpreter behind wrappers, versioned names included', () => {
    expect(interpreterArgv(['nice', 'python3.11', '-c', 'x'])).toMatchObject({ name: 'python', at: 1, code: 3 });
    expect(interpreterArgv(['ls', '-l'])).toBeNull();
  });
});

describe('argumentHazards', () => {
  it('every wrapper of the attack is followed: sh -c -- {x}, timeout, nice, setsid, nohup, stdbuf, find -exec, xargs', () => {
    const attacks = [
      ['sh', '-c', '--', '{x}'],
      ['timeout', '5', 'sh', '-c', '{x}'],
      ['nice', 'sh', '-c', '{x}'],
      ['setsid', 'sh', '-c', '{x}'],
      ['nohup', 'sh', '-c', '{x}'],
      ['stdbuf', '-o0', 'sh', '-c', '{x}'],
      ['find', '.', '-exec', 'sh', '-c', '{x}', ';'],
      ['xargs', 'sh', '-c', '{x}'],
    ];
    for (const argv of attacks) expect(hazards(argv).map((h) => h.index), JSON.stringify(argv)).toContain(argv.indexOf('{x}'));
  });

  it('and the rest of the kind: env (options, variables, -S), ionice, chrt, taskset, busybox, sudo, flock, su -c, watch, strace, nesting', () => {
    const attacks = [
      ['env', '-i', 'A=1', '--', 'bash', '-c', '{x}'],
      ['env', '-S', '{x}'],
      ['ionice', '-c', '3', 'sh', '-c', '{x}'],
      ['chrt', '-f', '10', 'dash', '-c', '{x}'],
      ['taskset', '-c', '0', 'python3', '-c', '{x}'],
      ['busybox', 'sh', '-c', '{x}'],
      ['busybox', 'timeout', '5', 'ash', '-c', '{x}'],
      ['sudo', '-u', 'nobody', 'sh', '-c', '{x}'],
      ['flock', '/tmp/l', 'sh', '-c', '{x}'],
      ['flock', '/tmp/l', '-c', '{x}'],
      ['su', 'nobody', '-c', '{x}'],
      ['watch', '-n', '1', '{x}'],
      ['strace', '-o', '/dev/null', 'perl', '-e', '{x}'],
      ['timeout', '5', 'nice', '-n', '5', 'setsid', 'node', '-e', '{x}'],
      ['xargs', '-0', '-n', '1', 'python3', '-m', '{x}'],
      ['find', '/var/log', '-type', 'f', '-exec', 'timeout', '5', 'sh', '-c', '{x}', '{}', ';'],
      ['sh', '-ec', '--', '{x}'],
      ['sh', '-c', '-e', '--', '{x}'],
      ['awk', '-f', '{x}', 'file'],
      ['sqlite3', 'db.sqlite', '{x}'],
      ['somewrapper', '--flag', 'sh', '-c', '{x}'], // a wrapper no table knows: the net
    ];
    for (const argv of attacks) expect(refused(argv), JSON.stringify(argv)).toBe(true);
  });

  it('an argument as the program a wrapper runs, or among a wrapper\'s own options, is refused', () => {
    expect(hazards(['timeout', '5', '{x}']).map((h) => h.index)).toEqual([2]);
    expect(hazards(['nice', '{x}', 'ls'])[0]!.index).toBe(1);
    expect(hazards(['find', '.', '-exec', '{x}', ';'])[0]!.message).toMatch(/as its program/);
  });

  it('xargs or find -exec in front of an interpreter without literal code is refused whatever the arguments: the input would be the code', () => {
    expect(hazards(['xargs', 'sh', '-c'])[0]!.message).toMatch(/input would run as code/);
    expect(refused(['xargs', 'sh'])).toBe(true);
    expect(refused(['find', '.', '-exec', 'sh', '-c', 'echo {}', ';'])).toBe(true);
    expect(refused(['xargs', '-I', '%', 'sh', '-c', 'rm %'])).toBe(true);
  });

  it('literal code with the argument as a positional parameter passes behind any wrapper', () => {
    const fine = [
      ['timeout', '5', 'sh', '-c', 'grep -- "$1" f', 'sh', '{x}'],
      ['nice', '-n', '5', 'python3', 'tool.py', '{x}'],
      ['env', 'LC_ALL=C', 'sh', '-c', 'echo "$1"', 'sh', '{x}'],
      ['find', '{x}', '-type', 'f', '-exec', 'sh', '-c', 'wc -l "$@"', 'sh', '{}', '+'],
      ['xargs', '-0', 'sh', '-c', 'echo "$@"', 'sh'],
      ['stdbuf', '-oL', 'grep', '-e', '{x}', 'file'],
      ['grep', 'python', '{x}'],
      ['/bin/sh', '-c', 'exec journalctl "$@"', 'journal', '--since={x?}', '{y?}'],
    ];
    for (const argv of fine) expect(hazards(argv), JSON.stringify(argv)).toEqual([]);
  });
});
