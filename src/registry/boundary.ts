/**
 * Boundary rules of manifests: what a tool's or shell provider's argv may
 * name, checked at load so a manifest cannot widen what a program reaches.
 *
 *   - the program (argv[0]) is a world built-in, a bare name (found on the
 *     world's fixed PATH), an absolute path in one of settings' COMMAND_DIRS,
 *     or a path inside the root that stays inside it after symlinks;
 *   - a placeholder is a whole argv element ("{msg}", "{msg?}", or
 *     "--opt={msg}" with the value attached; never "echo {msg}"), names a
 *     property of input_schema, and never is the program itself — nor
 *     `env`'s program or variable;
 *   - an interpreter's code (`sh -c CODE`, `python3 -c`, `node -e`, a script
 *     file, awk's program, …) is a literal: a placeholder there, or among the
 *     interpreter's own options before it, would run the argument as code or
 *     choose the code. Placeholders after the literal code are its positional
 *     parameters ($1..$n) and are admitted (argv-grammar.ts says where the
 *     code is);
 *   - a tool's host_view does not rule out its own requires_isolation (a
 *     view lowers the level of its runs, host-view.ts);
 *
 * It only checks; every refusal is an issue naming the file, the key path and
 * the fix. Arguments at run time are tools/args.ts's.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { COMMAND_DIRS } from './settings.js';
import { bestLevel, type HostView } from './host-view.js';
import { type IsolationLevel, meetsLevel } from './levels.js';
import { embedsPlaceholder, interpreterArgv, placeholder } from './argv-grammar.js';

/** One problem of a manifest file: where it is (file, key path), what is wrong, and the fix. load.ts collects them. */
export interface ManifestIssue {
  file: string;
  path: string;
  message: string;
  fix: string;
}

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
  if (placeholder(program) !== null || embedsPlaceholder(program)) {
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

/** Check every element of a tool's argv: whole placeholders of known arguments, no code (and no program) from arguments. */
export function checkToolArgv(file: string, command: readonly string[], properties: readonly string[], issues: ManifestIssue[]): void {
  const holes: number[] = [];
  command.forEach((el, i) => {
    const p = placeholder(el);
    if (p === null && embedsPlaceholder(el)) {
      issues.push({ file, path: `command.${i}`, message: `${JSON.stringify(el)} has a placeholder inside a larger string; it would be passed as written, never filled`, fix: 'make the placeholder its own argv element, e.g. ["echo", "{msg}"] instead of ["echo {msg}"], or attach it to an option as "--opt={msg}"' });
    }
    if (p === null) return;
    holes.push(i);
    if (!properties.includes(p.name)) {
      issues.push({ file, path: `command.${i}`, message: `placeholder {${p.name}} names no property of input_schema`, fix: `add "${p.name}" to input_schema.properties or fix the name` });
    }
  });
  if (holes.length === 0) return;
  if (command[0]!.slice(command[0]!.lastIndexOf('/') + 1) === 'env') {
    // env's arguments up to its program are variables and the program itself
    let prog = 1;
    while (prog < command.length && placeholder(command[prog]!) === null && (command[prog]!.startsWith('-') || command[prog]!.includes('='))) prog++;
    for (const i of holes.filter((h) => h <= prog)) {
      issues.push({ file, path: `command.${i}`, message: `env would take the argument ${command[i]} as a variable or as the program to run`, fix: 'name the variables and the program literally; pass arguments after the program' });
    }
  }
  const interp = interpreterArgv(command);
  if (!interp) return;
  for (const i of holes) {
    const before = interp.code === null || i <= interp.code;
    if (!before && !interp.flagged.includes(i)) continue; // a positional parameter of literal code
    const what = i === interp.code || interp.flagged.includes(i) ? 'run the argument' : 'read the argument';
    const how = i === interp.code || interp.flagged.includes(i) ? 'as code' : 'as one of its own options, before its code';
    issues.push({ file, path: `command.${i}`, message: `${command[interp.at]} would ${what} ${command[i]} ${how}`, fix: `keep the code literal and pass the argument after it as a positional parameter (e.g. ["sh", "-c", "grep -- \\"$1\\" file", "sh", "{pattern}"]), or run the program directly without a shell` });
  }
}

/** A tool cannot both see part of the host and require a level that seeing it rules out. */
export function checkHostView(file: string, views: readonly HostView[], requires: IsolationLevel | undefined, issues: ManifestIssue[]): void {
  if (!requires || meetsLevel(bestLevel(views), requires)) return;
  issues.push({ file, path: 'requires_isolation', message: `host_view ${JSON.stringify(views)} leaves its runs at most "${bestLevel(views)}", so requires_isolation "${requires}" can never be met`,
    fix: `lower requires_isolation to "${bestLevel(views)}" or drop the view that lowers it` });
}

/** Refuse a manifest file or folder that leads out of the root through a symlink. */
export function checkInsideRoot(file: string, abs: string, root: string, issues: ManifestIssue[]): boolean {
  const real = realOrNull(abs);
  const realRoot = realOrNull(root) ?? resolve(root);
  if (real === null || inside(real, realRoot)) return true;
  issues.push({ file, path: '', message: `is a symlink to ${real}, outside the root ${realRoot}`, fix: 'copy the manifest into the root instead of linking to it; manifests are never read from outside the root' });
  return false;
}
