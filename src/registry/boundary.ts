/**
 * Boundary rules of manifests: what a tool's or shell provider's argv may
 * name, checked at load so a manifest cannot widen what a program reaches.
 *
 *   - the program (argv[0]) is a world built-in, a bare name (found on the
 *     world's fixed PATH), an absolute path in one of settings' COMMAND_DIRS,
 *     or a path inside the root that stays inside it after symlinks;
 *   - a placeholder is a whole argv element ("{msg}", "{msg?}", or
 *     "--opt={msg}" with the value attached; never "echo {msg}"), names a
 *     property of input_schema, and never is the program itself — nor the
 *     program a wrapper runs (`env`, `timeout`, `nice`, `xargs`, `find -exec`,
 *     …: base/argv-grammar.ts follows them) or a wrapper's own option;
 *   - an interpreter's code (`sh -c CODE`, `python3 -c`, `node -e`, a script
 *     file, awk's program, …) is a literal, behind any wrappers and past a
 *     `--`: a placeholder there, or among the interpreter's own options before
 *     it, would run the argument as code or choose the code. Placeholders
 *     after the literal code are its positional parameters ($1..$n) and are
 *     admitted; an interpreter behind xargs or find -exec without literal code
 *     would run their input, and is refused in shell providers too;
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
import { argumentHazards, embedsPlaceholder, placeholder } from '../base/argv-grammar.js';

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
  command.forEach((el, i) => {
    const p = placeholder(el);
    if (p === null && embedsPlaceholder(el)) {
      issues.push({ file, path: `command.${i}`, message: `${JSON.stringify(el)} has a placeholder inside a larger string; it would be passed as written, never filled`, fix: 'make the placeholder its own argv element, e.g. ["echo", "{msg}"] instead of ["echo {msg}"], or attach it to an option as "--opt={msg}"' });
    }
    if (p === null) return;
    if (!properties.includes(p.name)) {
      issues.push({ file, path: `command.${i}`, message: `placeholder {${p.name}} names no property of input_schema`, fix: `add "${p.name}" to input_schema.properties or fix the name` });
    }
  });
  checkCodeHazards(file, command, issues);
}

/**
 * The one rule on code (base/argv-grammar.ts's argumentHazards): no argument chooses a program or
 * becomes code, through any wrapper, and nothing xargs or find -exec appends becomes an
 * interpreter's code. For tool argv and shell providers' argv alike.
 */
export function checkCodeHazards(file: string, command: readonly string[], issues: ManifestIssue[], filled = true): void {
  // a provider's argv is never filled (its input comes on stdin): only what xargs or find would append counts
  for (const h of argumentHazards(command, filled ? undefined : () => false)) {
    issues.push({ file, path: `command.${h.index}`, message: h.message, fix: 'keep the program, its wrappers\' options and an interpreter\'s code literal, and pass the argument after the code as a positional parameter (e.g. ["sh", "-c", "grep -- \\"$1\\" file", "sh", "{pattern}"]), or run the program directly without a shell' });
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
