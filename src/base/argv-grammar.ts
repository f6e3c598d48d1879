/**
 * The argv grammar of tool and shell manifests: which elements are
 * placeholders, and where an interpreter's code sits.
 *
 * Why one owner: the load-time boundary rules (registry/boundary.ts), the
 * argument filler (tools/args.ts) and the world's list of files an argv names
 * (world/readable.ts) must read an argv the same way, or an element one of
 * them calls literal could be filled by another. It lives in base/ because
 * those three layers share it and it imports nothing.
 *
 *   "{name}"                       the checked argument, as one element
 *   "--opt={name}"                 the option with the value attached: still one
 *                                  element, so the value is never an option of its own
 *   "{name?}", "--opt={name?}"     the same, dropped when the argument is absent
 *
 * Any other "{name}" inside an element is not a placeholder (boundary.ts
 * refuses it rather than pass it on as written).
 *
 * An interpreter (`sh`, `python3`, `node`, `awk`, …) runs one element as code:
 * the one after a code flag (`-c`, `-e`, also inside a cluster like `-ec`,
 * and past a `--`: `sh -c -- CODE`), an attached `--eval=…`, or else its first
 * operand (a script file, or the program of awk and sed). Elements after the
 * code are its positional parameters ($1..$n); the code decides what they
 * become.
 *
 * A wrapper runs another program: `env`, `timeout`, `nice`, `ionice`,
 * `setsid`, `nohup`, `stdbuf`, `chrt`, `taskset`, `xargs`, `busybox`, `sudo`,
 * `flock`, `strace`, … and `find -exec … ;`. programRuns follows each wrapper
 * by its own option grammar (which options take a value, which operands it
 * reads before the program) to the program it runs, again and again, so
 * `timeout 5 nice -n 5 sh -c {x}` is `sh -c {x}`. Some wrappers run a string
 * as code themselves (`env -S`, `su -c`, `flock -c`, `watch`), and `xargs`
 * and `find -exec` append words at run time: an interpreter left without
 * literal code there runs its input. argumentHazards is the one check over
 * all of it: which elements, if an argument filled them, would choose what
 * runs or run as code — plus a net for wrappers it does not know: an
 * interpreter named anywhere with a code flag, and an argument in its code.
 *
 * It reads argv shapes and says where the hazards are; it fills nothing, and
 * the refusals (with file and fix) are registry/boundary.ts's.
 */

const WHOLE = /^(--[A-Za-z0-9][A-Za-z0-9-]*=)?\{([A-Za-z_][A-Za-z0-9_]*)(\?)?\}$/;
const INSIDE = /\{[A-Za-z_][A-Za-z0-9_]*\??\}/;

export interface Placeholder {
  /** "" or the "--opt=" the value is attached to */
  prefix: string;
  name: string;
  /** "{name?}": the element is dropped when the argument is absent */
  optional: boolean;
}

/** The placeholder an element is, or null when it is literal (or holds one inside a larger string). */
export function placeholder(element: string): Placeholder | null {
  const m = WHOLE.exec(element);
  return m ? { prefix: m[1] ?? '', name: m[2]!, optional: m[3] === '?' } : null;
}

/** True when an element holds a placeholder inside a larger string (which is never filled). */
export function embedsPlaceholder(element: string): boolean {
  return placeholder(element) === null && INSIDE.test(element);
}

/** Programs that run an element as code, and the flags that take the code (or name the file or module it is). */
const INTERPRETERS: Record<string, readonly string[]> = {
  sh: ['-c'], bash: ['-c'], dash: ['-c'], zsh: ['-c'], ksh: ['-c'], mksh: ['-c'], ash: ['-c'], rbash: ['-c'], yash: ['-c'], posh: ['-c'],
  csh: ['-c'], tcsh: ['-c'], fish: ['-c', '--command', '-C', '--init-command'], pwsh: ['-c', '-Command', '-command', '-EncodedCommand', '-File', '-f'],
  python: ['-c', '-m'], pypy: ['-c', '-m'], perl: ['-e', '-E', '-M', '-m'], ruby: ['-e', '-r'], irb: ['-r'],
  node: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader'],
  bun: ['-e', '--eval', '-p', '--print', '-r', '--preload'], deno: [], tsx: ['-e', '--eval', '-p', '--print'], 'ts-node': ['-e', '--eval', '-p', '--print', '-r', '--require'],
  php: ['-r', '-f', '-B', '-R', '-E', '-F'], lua: ['-e', '-l'], luajit: ['-e', '-l'], tclsh: [], wish: [], expect: ['-c', '-f'],
  awk: ['-e', '-f'], mawk: ['-f'], gawk: ['-e', '--source', '-f', '--file', '-i', '--include', '-l', '--load'], nawk: ['-f'], sed: ['-e', '--expression', '-f', '--file'],
  Rscript: ['-e'], R: ['-e'], julia: ['-e', '--eval', '-E', '--print', '-L', '--load'], guile: ['-c', '-l', '-s'], racket: ['-e', '--eval', '-f', '--load', '-r', '--require-script'],
  elixir: ['-e', '-r'], erl: ['-eval', '-s', '-run'], escript: [], gnuplot: ['-e'], octave: ['--eval'], dc: ['-e', '--expression', '-f', '--file'],
  groovy: ['-e'], scala: ['-e'], jshell: [], osascript: ['-e'], vim: ['-c', '--cmd', '-S'], vi: ['-c', '--cmd', '-S'], ex: ['-c', '--cmd', '-S'],
  gdb: ['-ex', '--eval-command', '-x', '--command', '-iex'], sqlite3: ['-cmd', '-init'], make: ['-f', '--file', '--makefile', '--eval'],
};

/** Options of an interpreter that take a value without being code (so the value is not its script). */
const INTERPRETER_VALUES: Record<string, readonly string[]> = {
  python: ['-W', '-X', '-Q'], pypy: ['-W', '-X'], perl: ['-I', '-x'], ruby: ['-I', '-C', '-E'], node: ['-C', '--conditions', '--title', '--input-type'],
  sed: [], awk: ['-F', '-v'], gawk: ['-F', '-v', '--field-separator', '--assign'], mawk: ['-F', '-v'], nawk: ['-F', '-v'], sqlite3: ['-separator', '-newline', '-nullvalue', '-cmd'],
};

/** Operands an interpreter reads before its code (sqlite3's database file). */
const INTERPRETER_SKIPS: Record<string, number> = { sqlite3: 1 };

/** Other spellings of an interpreter's name. */
const ALIASES: Record<string, string> = { nodejs: 'node', pypy3: 'pypy', python3: 'python', python2: 'python', gvim: 'vim', nvim: 'vim', view: 'vim' };

/**
 * The grammar of a program that runs another program. `short`/`long`: options that take a value
 * (attached, or as the next element); `operands`: what the wrapper reads before the program (a
 * duration, a priority, a lock file, a user); `assigns`: NAME=value elements before the program;
 * `code`: options whose value is itself run as a command line; `operandsAreCode`: every operand is
 * joined into one command line (watch); `none`: options after which it runs no program.
 */
interface Wrapper {
  short?: string;
  long?: readonly string[];
  operands?: number;
  assigns?: boolean;
  code?: readonly string[];
  operandsAreCode?: boolean;
  none?: readonly string[];
}

const WRAPPERS: Record<string, Wrapper> = {
  env: { short: 'uCS', long: ['--unset', '--chdir', '--split-string', '--default-signal', '--ignore-signal', '--block-signal'], assigns: true, code: ['-S', '--split-string'] },
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], operands: 1 },
  nice: { short: 'n', long: ['--adjustment'] },
  ionice: { short: 'cnp', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'], none: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  setsid: {}, nohup: {}, stdbuf: { short: 'ioe', long: ['--input', '--output', '--error'] },
  chrt: { short: 'TPD', long: ['--sched-runtime', '--sched-period', '--sched-deadline'], operands: 1, none: ['-p', '--pid', '-m', '--max'] },
  taskset: { operands: 1, none: ['-p', '--pid'] },
  xargs: { short: 'adEILnPs', long: ['--arg-file', '--delimiter', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'] },
  busybox: {}, toybox: {}, coreutils: {}, command: {}, exec: { short: 'a' }, builtin: {}, time: { short: 'fo', long: ['--format', '--output'] },
  nsenter: { short: 'tSGTUmunipCr', long: ['--target', '--setuid', '--setgid', '--wd', '--root'] },
  unshare: { short: 'S', long: ['--setuid', '--setgid', '--map-user', '--map-group', '--propagation', '--root', '--wd'] },
  setpriv: { long: ['--reuid', '--regid', '--ruid', '--rgid', '--euid', '--egid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--selinux-label', '--apparmor-profile', '--pdeathsig', '--landlock-access', '--landlock-rule'] },
  chroot: { long: ['--userspec', '--groups'], operands: 1 }, setarch: { operands: 1 }, linux32: {}, linux64: {},
  prlimit: { short: 'p', long: ['--pid'], none: ['-p', '--pid'] },
  numactl: { short: 'aCNmlpPi', long: ['--cpunodebind', '--physcpubind', '--membind', '--preferred', '--interleave'] },
  sudo: { short: 'ughpCDRTrt', long: ['--user', '--group', '--host', '--prompt', '--close-from', '--chdir', '--chroot', '--command-timeout', '--role', '--type'] },
  doas: { short: 'uC' }, pkexec: { long: ['--user'] },
  su: { short: 'cgGsw', long: ['--command', '--session-command', '--group', '--supp-group', '--shell', '--whitelist-environment'], operands: 1, code: ['-c', '--command', '--session-command'] },
  runuser: { short: 'ucgGsw', long: ['--user', '--command', '--session-command', '--group', '--supp-group', '--shell', '--whitelist-environment'], code: ['-c', '--command', '--session-command'] },
  sg: { operands: 1, operandsAreCode: true, code: ['-c'] },
  flock: { short: 'wEc', long: ['--timeout', '--conflict-exit-code', '--command'], operands: 1, code: ['-c', '--command'] },
  script: { short: 'cEIOBTm', long: ['--command', '--echo', '--log-in', '--log-out', '--log-io', '--log-timing', '--logging-format', '--output-limit'], code: ['-c', '--command'], operands: 99 },
  watch: { short: 'nqd', long: ['--interval', '--differences', '--equexit', '--errexit'], operandsAreCode: true },
  strace: { short: 'abeEIopPSuXO', long: ['--output', '--trace', '--signal', '--status', '--user', '--env'] },
  ltrace: { short: 'aAeEFlnopsuwx', long: ['--output', '--library'] },
  valgrind: {}, catchsegv: {}, eatmydata: {}, fakeroot: { short: 'ils', long: ['--lib', '--faked'] }, unbuffer: {}, firejail: {}, proot: { short: 'rbwqk' },
  cgexec: { short: 'g' }, chpst: { short: 'uUbenlamofpcr' }, trickle: { short: 'udwtlns' }, torsocks: {},
  'systemd-run': { short: 'pEMHu', long: ['--property', '--setenv', '--machine', '--host', '--unit', '--description', '--slice', '--working-directory', '--uid', '--gid', '--nice', '--on-calendar', '--on-active', '--timer-property', '--path-property', '--socket-property'] },
  'systemd-inhibit': { long: ['--what', '--who', '--why', '--mode'] },
  bwrap: { long: ['--bind', '--ro-bind', '--dev-bind', '--bind-try', '--ro-bind-try', '--dev-bind-try', '--symlink', '--setenv', '--unsetenv', '--chdir', '--uid', '--gid', '--hostname', '--proc', '--dev', '--tmpfs', '--dir', '--remount-ro', '--file', '--bind-data', '--ro-bind-data', '--seccomp', '--info-fd', '--lock-file', '--sync-fd', '--userns', '--cap-add', '--cap-drop', '--perms', '--size', '--argv0', '--exec-label', '--file-label'] },
  parallel: { operandsAreCode: true }, dtach: {}, tmux: { operandsAreCode: true }, screen: { operandsAreCode: true },
};

/** bwrap options that take two values (source and destination). */
const TWO_VALUES = new Set(['--bind', '--ro-bind', '--dev-bind', '--bind-try', '--ro-bind-try', '--dev-bind-try', '--symlink', '--setenv', '--file', '--bind-data', '--ro-bind-data']);

export interface InterpreterArgv {
  /** the interpreter's name (python3 reads as python) */
  name: string;
  /** index of the interpreter in the argv (after any wrappers) */
  at: number;
  /** index of the element it runs as code, or null when the argv ends before one */
  code: number | null;
  /** indices of every element a code flag takes, wherever it stands (a later -c still takes code) */
  flagged: number[];
}

/** One program an argv runs: where it stands, and what the wrappers in front of it read. */
export interface ProgramRun {
  /** index of the program element */
  at: number;
  /** exclusive end of its arguments (`find -exec … ;` ends before the `;`) */
  end: number;
  /** the wrappers that lead to it, by index */
  wrappers: number[];
  /** elements the wrappers read themselves (their options, values and operands) */
  read: number[];
  /** elements a wrapper runs as a command line itself (`env -S`, `su -c`, `watch`'s operands) */
  code: number[];
  /** what appends words to its argv at run time (xargs, find -exec … +), or null */
  input: 'xargs' | 'find' | null;
  /** xargs -I's replacement string (or find's "{}"): text replaced by the input inside elements */
  replace: string | null;
}

const base = (s: string): string => s.slice(s.lastIndexOf('/') + 1);

/** A program's name as the tables know it: no folder, no version suffix (python3.11, perl5.36, lua5.4). */
export function programName(el: string): string {
  const b = base(el);
  if (ALIASES[b]) return ALIASES[b]!;
  if (INTERPRETERS[b] || WRAPPERS[b]) return b;
  const bare = b.replace(/[0-9][0-9.]*$/, '').replace(/[-.]$/, '');
  return ALIASES[bare] ?? bare;
}

/** True when `el` is one of the code flags, or a cluster of short options holding one (`-ec`, `-ne`). */
function isCodeFlag(el: string, flags: readonly string[]): boolean {
  if (flags.includes(el)) return true;
  if (!/^-[A-Za-z0-9]{2,}$/.test(el)) return false;
  return flags.some((f) => /^-[A-Za-z]$/.test(f) && el.includes(f[1]!));
}

/** Read an interpreter's argv from `at` (its name) to `end`: where its code is. */
function readInterpreter(argv: readonly string[], at: number, end: number, name: string): InterpreterArgv {
  const flags = INTERPRETERS[name]!;
  const values = INTERPRETER_VALUES[name] ?? [];
  let skip = INTERPRETER_SKIPS[name] ?? 0;
  const flagged: number[] = [];
  let code: number | null = null;
  let taking = false; // a code flag waits for its code (past options and "--": `sh -c -- CODE`)
  let options = true;
  for (let i = at + 1; i < end; i++) {
    const el = argv[i]!;
    const attached = flags.some((f) => (f.startsWith('--') && el.startsWith(`${f}=`)) || (/^-[A-Z]$/.test(f) && el.length > 2 && el.startsWith(f) && !el.startsWith('--')));
    if (attached) {
      flagged.push(i);
      code ??= i;
      continue;
    }
    if (taking) {
      flagged.push(i);
      if (el === '--' || (el.startsWith('-') && el.length > 1 && options)) continue;
      taking = false;
      code ??= i;
      continue;
    }
    if (isCodeFlag(el, flags) && (options || code !== null)) {
      taking = true;
      continue;
    }
    if (code !== null) continue;
    if (options && el === '--') {
      options = false;
      continue;
    }
    if (options && el.startsWith('-') && el.length > 1) {
      if (values.includes(el)) i++; // its value, not the script
      continue;
    }
    if (skip > 0) {
      skip--;
      continue;
    }
    code = i;
  }
  return { name, at, code, flagged };
}

/**
 * Follow the wrapper at `at` to the program it runs: the index of that program (null when it runs
 * none), and what the wrapper read and runs as code on the way.
 */
function readWrapper(argv: readonly string[], at: number, end: number, w: Wrapper): { next: number | null; read: number[]; code: number[]; replace: string | null } {
  const read: number[] = [];
  const code: number[] = [];
  const short = w.short ?? '';
  const long = w.long ?? [];
  const codeOpts = w.code ?? [];
  let operands = w.operands ?? 0;
  let replace: string | null = null;
  let options = true;
  let i = at + 1;
  for (; i < end; i++) {
    const el = argv[i]!;
    if (options && el === '--') {
      read.push(i);
      options = false;
      continue;
    }
    if (options && el.startsWith('--') && el.length > 2) {
      read.push(i);
      const eq = el.indexOf('=');
      const name = eq < 0 ? el : el.slice(0, eq);
      if (w.none?.includes(name)) return { next: null, read, code, replace };
      if (name === '--replace' || name === '-i') replace = eq < 0 ? '{}' : el.slice(eq + 1);
      const isCode = codeOpts.includes(name);
      if (eq >= 0) {
        if (isCode) code.push(i);
        continue;
      }
      if (long.includes(name)) {
        const n = TWO_VALUES.has(name) ? 2 : 1;
        for (let k = 1; k <= n && i + 1 < end; k++) {
          i++;
          read.push(i);
          if (isCode) code.push(i);
        }
      }
      continue;
    }
    if (options && el.startsWith('-') && el.length > 1 && !/^-[0-9]+$/.test(el)) {
      read.push(i);
      // a cluster of short options; the first that takes a value takes the rest or the next element
      for (let k = 1; k < el.length; k++) {
        const c = el[k]!;
        if (w.none?.includes(`-${c}`)) return { next: null, read, code, replace };
        if (c === 'i' && (argv[at] !== undefined && programName(argv[at]!) === 'xargs')) replace = el.length > k + 1 ? el.slice(k + 1) : '{}';
        if (!short.includes(c)) continue;
        const isCode = codeOpts.includes(`-${c}`);
        if (k + 1 < el.length) {
          if (isCode) code.push(i);
          if (c === 'I') replace = el.slice(k + 1);
        } else if (i + 1 < end) {
          i++;
          read.push(i);
          if (isCode) code.push(i);
          if (c === 'I') replace = argv[i]!;
        }
        break;
      }
      continue;
    }
    if (/^-[0-9]+$/.test(el) && options) {
      read.push(i); // nice -5
      continue;
    }
    if (w.assigns && options && /^[A-Za-z_][A-Za-z0-9_]*=/.test(el)) {
      read.push(i);
      continue;
    }
    if (w.operandsAreCode) {
      for (let k = i; k < end; k++) {
        read.push(k);
        if (operands > 0) operands--;
        else code.push(k);
      }
      return { next: null, read, code, replace };
    }
    if (operands > 0) {
      read.push(i);
      operands--;
      continue;
    }
    break;
  }
  return { next: i < end ? i : null, read, code, replace };
}

/** Where find's -exec/-execdir/-ok/-okdir commands stand: [program index, end (the ";" or "+"), appended?]. */
function findCommands(argv: readonly string[], at: number, end: number): { at: number; end: number; plus: boolean }[] {
  const out: { at: number; end: number; plus: boolean }[] = [];
  for (let i = at + 1; i < end; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(argv[i]!)) continue;
    let j = i + 1;
    while (j < end && argv[j] !== ';' && argv[j] !== '+') j++;
    if (i + 1 < j) out.push({ at: i + 1, end: j, plus: argv[j] === '+' });
    i = j;
  }
  return out;
}

/**
 * Every program an argv runs, wrappers followed: the first element's chain, and each command of a
 * `find -exec` at any depth of it.
 */
export function programRuns(argv: readonly string[]): ProgramRun[] {
  const out: ProgramRun[] = [];
  const follow = (at: number, end: number, input: ProgramRun['input'], replace: string | null, wrappers: number[], read: number[], code: number[]): void => {
    let i: number | null = at;
    for (let depth = 0; i !== null && i < end && depth < 32; depth++) {
      const name = programName(argv[i]!);
      const w = WRAPPERS[name];
      if (!w) break;
      const r = readWrapper(argv, i, end, w);
      wrappers = [...wrappers, i];
      read = [...read, ...r.read];
      code = [...code, ...r.code];
      if (name === 'xargs') {
        input = 'xargs';
        replace = r.replace;
      }
      if (r.next === null) {
        // the wrapper runs no program of its own choosing (ionice -p, su -c, watch): it is the last run
        out.push({ at: i, end, wrappers: wrappers.slice(0, -1), read, code, input, replace });
        return;
      }
      i = r.next;
    }
    if (i === null || i >= end) return;
    out.push({ at: i, end, wrappers, read, code, input, replace });
    if (programName(argv[i]!) === 'find') {
      for (const c of findCommands(argv, i, end)) follow(c.at, c.end, c.plus ? 'find' : null, '{}', [], [], []);
    }
  };
  follow(0, argv.length, null, null, [], [], []);
  return out;
}

/** The interpreter each run of an argv is, with where its code is (runs that are no interpreter are left out). */
export function interpreterRuns(argv: readonly string[]): (InterpreterArgv & { run: ProgramRun })[] {
  const out: (InterpreterArgv & { run: ProgramRun })[] = [];
  for (const run of programRuns(argv)) {
    const name = programName(argv[run.at]!);
    if (INTERPRETERS[name]) out.push({ ...readInterpreter(argv, run.at, run.end, name), run });
  }
  return out;
}

/** The interpreter an argv runs (wrappers followed) and where its code is, or null when it runs none. */
export function interpreterArgv(argv: readonly string[]): InterpreterArgv | null {
  const first = interpreterRuns(argv)[0];
  if (!first) return null;
  const { run: _run, ...rest } = first;
  return rest;
}

/** An element that, filled from an argument (or by a wrapper's input), would choose what runs or run as code. */
export interface ArgvHazard {
  index: number;
  message: string;
}

/**
 * The one check of "an argument never chooses what runs and never becomes code": for each element
 * `filled` says an argument fills, whether a program, a wrapper or an interpreter would take it as
 * the program, as an option of its own before its code, or as code; and, whatever is filled, an
 * interpreter behind xargs or find -exec left without literal code (its input would become the code),
 * or literal code holding the replacement string the input is put into.
 */
export function argumentHazards(argv: readonly string[], filled: (index: number) => boolean = (i) => placeholder(argv[i]!) !== null): ArgvHazard[] {
  const out = new Map<number, string>();
  const add = (index: number, message: string): void => {
    if (!out.has(index)) out.set(index, message);
  };
  const runs = programRuns(argv);
  for (const run of runs) {
    const prog = argv[run.at]!;
    if (filled(run.at)) add(run.at, `${argv[run.wrappers.at(-1) ?? 0] ?? 'the argv'} would run the argument ${prog} as its program`);
    for (const i of run.code) if (filled(i)) add(i, `${base(argv[run.wrappers.find((w) => w < i) ?? run.at]!)} would run the argument ${argv[i]} as a command line`);
    for (const i of run.read) if (filled(i)) add(i, `${base(argv[[...run.wrappers, run.at].filter((w) => w < i).at(-1) ?? run.at]!)} would read the argument ${argv[i]} as one of its own options or operands, before the program it runs`);
    const name = programName(prog);
    if (!INTERPRETERS[name]) continue;
    const it = readInterpreter(argv, run.at, run.end, name);
    for (let i = run.at + 1; i < run.end; i++) {
      if (!filled(i)) continue;
      const asCode = i === it.code || it.flagged.includes(i);
      if (!asCode && it.code !== null && i > it.code) continue; // a positional parameter of literal code
      add(i, asCode ? `${base(prog)} would run the argument ${argv[i]} as code` : `${base(prog)} would read the argument ${argv[i]} as one of its own options, before its code`);
    }
    if (run.input !== null && (it.code === null || (it.flagged.length > 0 && !it.flagged.includes(it.code)))) {
      add(run.at, `${run.input} appends its input to ${base(prog)}, which has no literal code there: the input would run as code`);
    }
    if (run.replace && it.code !== null && argv[it.code]!.includes(run.replace)) {
      add(it.code, `${run.input ?? 'find'} puts its input into ${base(prog)}'s code through ${JSON.stringify(run.replace)}: the input would run as code`);
    }
  }
  // a net for wrappers not in the table: an interpreter named anywhere with a code flag, and an argument in its code
  const known = new Set(runs.map((r) => r.at));
  for (let j = 1; j < argv.length; j++) {
    const name = programName(argv[j]!);
    if (known.has(j) || !INTERPRETERS[name] || (INTERPRETERS[name] ?? []).length === 0) continue;
    const it = readInterpreter(argv, j, argv.length, name);
    for (const i of it.flagged) if (filled(i)) add(i, `${base(argv[j]!)} named inside the argv would run the argument ${argv[i]} as code`);
  }
  return [...out.entries()].sort((a, b) => a[0] - b[0]).map(([index, message]) => ({ index, message }));
}
