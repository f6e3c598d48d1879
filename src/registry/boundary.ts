/**
 * Boundary rules of manifests: what a tool's or shell provider's argv may
 * name, checked at load so a manifest cannot widen what a program reaches.
 *
 *   - the program (argv[0]) is a world built-in, a bare name (found on the
 *     world's fixed PATH), an absolute path in one of settings' COMMAND_DIRS,
 *     or a path inside the root that stays inside it after symlinks;
 *   - a placeholder is a whole argv element ("{msg}", never "echo {msg}"),
 *     names a property of input_schema, and never is the program itself;
 *   - an interpreter's code (`sh -c CODE`, `python3 -c`, `node -e`, …) is a
 *     literal: a placeholder there would run the argument as code;
 *
 * It only checks; every refusal is an issue naming the file, the key path and
 * the fix. Arguments at run time are tools/args.ts's.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { COMMAND_DIRS } from '../runtime/settings.js';
import type { ManifestIssue } from './load.js';

const PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const ANY_PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/;
/** Programs that run their argument as code, and the flags that take the code. */
const INTERPRETERS: Record<string, readonly string[]> = {
  sh: ['-c'], bash: ['-c'], dash: ['-c'], zsh: ['-c'], ksh: ['-c'], mksh: ['-c'], ash: ['-c'], busybox: ['-c'],
  python: ['-c'], python3: ['-c'], perl: ['-e', '-E'], ruby: ['-e'], node: ['-e', '--eval', '-p', '--print'],
  php: ['-r'], lua: ['-e'], awk: ['-e'], mawk: [], gawk: ['-e', '--source'], sed: ['-e', '--expression'],
};
/** Programs whose first operand is their code when no code flag is given. */
const FIRST_OPERAND_IS_CODE = new Set(['awk', 'mawk', 'gawk', 'sed']);

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync.native(p);
  } catch {
    return null;
  }
}

/** Check where argv[0] lives; `at` is the key path of the command array. */
export function checkProgram(file: string, at: string, program: string, root: string, issues: ManifestIssue[]): void {
  const fix = `use a bare program name, an absolute path in ${COMMAND_DIRS.join(', ')} (settings COMMAND_DIRS), or a path inside the root`;
  if (PLACEHOLDER.test(program) || ANY_PLACEHOLDER.test(program)) {
    issues.push({ file, path: `${at}.0`, message: `the program ${JSON.stringify(program)} is a placeholder; an argument must never choose what runs`, fix: 'name a fixed program' });
    return;
  }
  if (!program.includes('/')) return; // found on the world's fixed PATH only
  if (isAbsolute(program)) {
    if (!COMMAND_DIRS.includes(dirname(program))) issues.push({ file, path: `${at}.0`, message: `${program} is outside the root and the system command folders`, fix });
    return;
  }
  const realRoot = realOrNull(root) ?? resolve(root);
  const abs = resolve(root, program);
  if (!inside(abs, resolve(root))) {
    issues.push({ file, path: `${at}.0`, message: `${program} climbs out of the root`, fix });
    return;
  }
  const real = realOrNull(abs);
  if (real === null) issues.push({ file, path: `${at}.0`, message: `${program} does not exist under the root`, fix: `add the file or correct the path (relative paths are resolved against the root)` });
  else if (!inside(real, realRoot)) issues.push({ file, path: `${at}.0`, message: `${program} is a symlink to ${real}, outside the root`, fix: `copy the program into the root instead of linking to it, or ${fix}` });
}

/** The interpreter of argv[0] (after an `env` prefix) and its index, or null. */
function interpreter(argv: readonly string[]): { name: string; from: number } | null {
  const base = (s: string): string => s.slice(s.lastIndexOf('/') + 1);
  let i = 0;
  if (base(argv[0] ?? '') === 'env') {
    i = 1;
    while (i < argv.length && (argv[i]!.startsWith('-') || argv[i]!.includes('='))) i++;
  }
  const name = base(argv[i] ?? '').replace(/^python[0-9.]*$/, 'python');
  return name in INTERPRETERS ? { name, from: i } : null;
}

/** Check every element of a tool's argv: whole placeholders of known arguments, no code from arguments. */
export function checkToolArgv(file: string, command: readonly string[], properties: readonly string[], issues: ManifestIssue[]): void {
  command.forEach((el, i) => {
    const whole = PLACEHOLDER.exec(el);
    if (!whole && ANY_PLACEHOLDER.test(el)) {
      issues.push({ file, path: `command.${i}`, message: `${JSON.stringify(el)} has a placeholder inside a larger string; it would be passed as written, never filled`, fix: 'make the placeholder its own argv element, e.g. ["echo", "{msg}"] instead of ["echo {msg}"]' });
    }
    if (whole && !properties.includes(whole[1]!)) {
      issues.push({ file, path: `command.${i}`, message: `placeholder {${whole[1]}} names no property of input_schema`, fix: `add "${whole[1]}" to input_schema.properties or fix the name` });
    }
  });
  const interp = interpreter(command);
  if (!interp) return;
  const codeFlags = INTERPRETERS[interp.name]!;
  for (let i = interp.from + 1; i < command.length; i++) {
    const el = command[i]!;
    // awk, sed scripts and the like: the first non-option element is the code
    const firstOperand = !el.startsWith('-') && !command.slice(interp.from + 1, i).some((e) => !e.startsWith('-'));
    const isCode = codeFlags.includes(command[i - 1]!) || (FIRST_OPERAND_IS_CODE.has(interp.name) && firstOperand);
    if (isCode && ANY_PLACEHOLDER.test(el)) {
      issues.push({ file, path: `command.${i}`, message: `${command[interp.from]} would run the argument ${el} as code`, fix: `keep the code literal and pass the argument after it as a positional parameter (e.g. ["sh", "-c", "grep -- \\"$1\\" file", "sh", "{pattern}"]), or run the program directly without a shell` });
    }
  }
}

/** Refuse a manifest file or folder that leads out of the root through a symlink. */
export function checkInsideRoot(file: string, abs: string, root: string, issues: ManifestIssue[]): boolean {
  const real = realOrNull(abs);
  const realRoot = realOrNull(root) ?? resolve(root);
  if (real === null || inside(real, realRoot)) return true;
  issues.push({ file, path: '', message: `is a symlink to ${real}, outside the root ${realRoot}`, fix: 'copy the manifest into the root instead of linking to it; manifests are never read from outside the root' });
  return false;
}
