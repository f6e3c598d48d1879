/**
 * The argv grammar of tool and shell manifests: which elements are
 * placeholders, and where an interpreter's code sits.
 *
 * Why one owner: the load-time boundary rules (boundary.ts), the argument
 * filler (tools/args.ts) and the world's list of files an argv names
 * (world/readable.ts) must read an argv the same way, or an element one of
 * them calls literal could be filled by another.
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
 * the one after a code flag (`-c`, `-e`, also inside a cluster like `-ec`),
 * an attached `--eval=…`, or else its first operand (a script file, or the
 * program of awk and sed). Elements after the code are its positional
 * parameters ($1..$n); the code decides what they become.
 *
 * It only reads argv shapes; it checks nothing and fills nothing.
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

/** Programs that run an element as code, and the flags that take the code. */
const INTERPRETERS: Record<string, readonly string[]> = {
  sh: ['-c'], bash: ['-c'], dash: ['-c'], zsh: ['-c'], ksh: ['-c'], mksh: ['-c'], ash: ['-c'], busybox: ['-c'],
  python: ['-c'], perl: ['-e', '-E'], ruby: ['-e'], node: ['-e', '--eval', '-p', '--print'],
  php: ['-r'], lua: ['-e'], awk: ['-e'], mawk: [], gawk: ['-e', '--source'], sed: ['-e', '--expression'],
};

export interface InterpreterArgv {
  /** the interpreter's name (python3 reads as python) */
  name: string;
  /** index of the interpreter in the argv (after an `env` prefix) */
  at: number;
  /** index of the element it runs as code, or null when the argv ends before one */
  code: number | null;
  /** indices of every element a code flag takes, wherever it stands (a later -c still takes code) */
  flagged: number[];
}

const base = (s: string): string => s.slice(s.lastIndexOf('/') + 1);

/** True when `el` is one of the code flags, or a cluster of short options holding one (`-ec`, `-ne`). */
function isCodeFlag(el: string, flags: readonly string[]): boolean {
  if (flags.includes(el)) return true;
  if (!/^-[A-Za-z0-9]{2,}$/.test(el)) return false;
  return flags.some((f) => /^-[A-Za-z]$/.test(f) && el.includes(f[1]!));
}

/** The interpreter an argv runs and where its code is, or null when argv[0] (after `env`) is no interpreter. */
export function interpreterArgv(argv: readonly string[]): InterpreterArgv | null {
  let at = 0;
  if (base(argv[0] ?? '') === 'env') {
    at = 1;
    while (at < argv.length && (argv[at]!.startsWith('-') || argv[at]!.includes('='))) at++;
  }
  const name = base(argv[at] ?? '').replace(/^python[0-9.]*$/, 'python');
  const flags = INTERPRETERS[name];
  if (!flags) return null;
  const flagged: number[] = [];
  let code: number | null = null;
  for (let i = at + 1; i < argv.length; i++) {
    const el = argv[i]!;
    const attached = flags.some((f) => f.startsWith('--') && el.startsWith(`${f}=`));
    if (attached) flagged.push(i);
    if (isCodeFlag(argv[i - 1]!, flags) && i - 1 > at) flagged.push(i);
    if (code !== null) continue;
    if (attached || flagged.includes(i) || !el.startsWith('-')) code = i;
  }
  return { name, at, code, flagged };
}
