/**
 * Tool arguments: checked, confined, then placed into the argv.
 *
 * Why: a tool call may be built from a job file or (later) from a routing
 * model, so its arguments are untrusted until proven otherwise. Before
 * anything runs, they must fit the tool's `input_schema`; every argument named
 * in `path_args` must resolve — after symlinks — inside one of `read_paths`;
 * and they enter the argv only as whole elements (`"{name}"`, or `"--opt={name}"`
 * with the value attached to its option), never through a shell, so there is
 * no quoting to get wrong; `"{name?}"` drops the element when the argument is
 * absent (registry/argv-grammar.ts owns these forms). A path argument starting
 * with "-" is refused so it cannot be read as an option; so is any other
 * argument in an element of its own starting with "-", unless its property in
 * input_schema says which values it takes (a pattern, an enum, a const or a
 * lower bound) and the value fits, or the argv has "--" before its
 * placeholder — which counts only where the program itself reads the "--":
 * after an interpreter's literal code (`sh -c CODE name {x}`) the code
 * decides what "$1" becomes, so there "--" protects nothing. A value attached
 * as "--opt={name}" is never an option of its own.
 *
 * It deliberately does not run anything (run.ts does) and does not interpret
 * argument meaning beyond paths.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { ProviderError } from '../runtime/provider.js';
import { checkValue, compileSchema } from '../ladder/schemas.js';
import type { SchemaHandle } from '../ladder/types.js';
import { interpreterArgv, placeholder } from '../base/argv-grammar.js';
import type { ToolManifest } from '../registry/manifest.js';

/**
 * Compiled input schemas, by the schema object: the step hands the runner a copy of the manifest
 * whose time limit is cut to the job's budget (runtime/budget.ts clipToBudget), a new object on
 * every call that shares the original's input_schema, so keying by the manifest compiled (and
 * digested) the schema again on every tool call.
 */
const handles = new WeakMap<object, SchemaHandle>();

/** A refusal of the arguments: tool_failed, naming the tool and the argument (and why, in plain words, where a path is not there). */
function refuse(tool: ToolManifest, message: string, cause?: { id: string; plain: string }): ProviderError {
  return new ProviderError('tool_failed', `tool ${tool.name}: ${message}`, cause ? { cause } : undefined);
}

/** A path that cannot be resolved, in plain words: not there, or not reachable by this user. */
const PATH_CAUSES: Record<string, { id: string; plain: string }> = {
  ENOENT: { id: 'no_such_path', plain: 'there is no such file or folder' },
  ENOTDIR: { id: 'no_such_path', plain: 'there is no such file or folder' },
  EACCES: { id: 'path_not_reachable', plain: 'this user may not reach that path' },
  ELOOP: { id: 'path_loops', plain: 'that path is a loop of symbolic links' },
};

/** The compiled input schema of a tool, compiled once per schema object (and tool name, which its handle carries). */
function inputSchema(tool: ToolManifest): SchemaHandle {
  const id = `tool:${tool.name}/input`;
  let h = handles.get(tool.input_schema);
  if (!h || h.id !== id) {
    h = compileSchema(tool.input_schema, id);
    handles.set(tool.input_schema, h);
  }
  return h;
}

/** Level 2/3 check of the arguments against the tool's input_schema. */
export function checkArgs(tool: ToolManifest, args: Record<string, unknown>): void {
  const failure = checkValue(inputSchema(tool), args);
  if (failure) {
    throw refuse(tool, `arguments do not fit input_schema: ${failure.error}; fix the arguments given for this step`);
  }
}

/** Resolve one path argument to its real path, refusing anything outside read_paths. */
export async function confinePath(tool: ToolManifest, name: string, value: unknown, root: string): Promise<string> {
  if (typeof value !== 'string' || value === '' || value.includes('\0')) {
    throw refuse(tool, `argument "${name}" must be a non-empty path string, got ${JSON.stringify(value)}`);
  }
  if (value.startsWith('-')) {
    throw refuse(tool, `argument "${name}" = ${JSON.stringify(value)} starts with "-" and could be read as an option; write it as ./${value}`);
  }
  const allowed = tool.read_paths.map((p) => (isAbsolute(p) ? p : resolve(root, p)));
  let real: string;
  try {
    real = realpathSync.native(isAbsolute(value) ? value : resolve(root, value));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw refuse(tool, `argument "${name}" = ${JSON.stringify(value)} cannot be resolved (${code}); pass an existing path under ${allowed.join(' or ')}`, PATH_CAUSES[code]);
  }
  for (const dir of allowed) {
    let realDir: string;
    try {
      realDir = realpathSync.native(dir);
    } catch {
      continue; // a declared folder that does not exist on this machine admits nothing
    }
    if (real === realDir || real.startsWith(realDir.endsWith(sep) ? realDir : realDir + sep)) return real;
  }
  throw refuse(tool, `argument "${name}" = ${JSON.stringify(value)} resolves to ${real}, outside read_paths (${allowed.join(', ') || 'none declared'}); `
    + `use a file under one of them, or add its folder to read_paths in the ${tool.name} tool manifest`);
}

/** The property's schema says which values it takes (a pattern, an enum, a const, a lower bound): a leading "-" is then its choice. */
function explicitlyAdmitsDash(tool: ToolManifest, name: string): boolean {
  const props = tool.input_schema.properties as Record<string, Record<string, unknown>> | undefined;
  const p = props?.[name];
  if (!p || typeof p !== 'object') return false;
  return ['pattern', 'enum', 'const', 'minimum', 'exclusiveMinimum'].some((k) => k in p);
}

/** Render a non-path argument as one argv element; only scalars are allowed, and none that reads as an option. */
function scalar(tool: ToolManifest, name: string, value: unknown, cannotBeOption: boolean): string {
  let text: string;
  if (typeof value === 'string') {
    if (value.includes('\0')) throw refuse(tool, `argument "${name}" contains a NUL byte; remove it`);
    text = value;
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    text = String(value);
  } else {
    throw refuse(tool, `argument "${name}" must be a string, number or boolean to appear in the command, got ${value === null ? 'null' : typeof value}`);
  }
  if (text.startsWith('-') && !cannotBeOption && !explicitlyAdmitsDash(tool, name)) {
    throw refuse(tool, `argument "${name}" = ${JSON.stringify(text)} starts with "-" and would be read as an option; `
      + `pass a value without the leading "-", or (in the ${tool.name} tool manifest) put "--" before {${name}} in command (where the program itself reads it, not after an interpreter's code), attach it as "--opt={${name}}", or give input_schema.properties.${name} a pattern that admits it`);
  }
  return text;
}

/**
 * Check the arguments and build the argv: "{name}" elements become the checked value and
 * "--opt={name}" the option with the value attached (still one element, so the value can never be
 * read as an option of its own); an element marked "{name?}" is dropped when the argument is absent.
 */
export async function buildArgv(tool: ToolManifest, args: Record<string, unknown>, root: string): Promise<string[]> {
  checkArgs(tool, args);
  const paths = new Map<string, string>();
  for (const name of tool.path_args) {
    if (name in args) paths.set(name, await confinePath(tool, name, args[name], root));
  }
  // "--" ends the options of the program that reads it; an interpreter hands it to its code instead
  const dashDash = interpreterArgv(tool.command) === null ? tool.command.indexOf('--') : -1;
  const argv: string[] = [];
  tool.command.forEach((element, i) => {
    const p = placeholder(element);
    if (!p) {
      argv.push(element);
      return;
    }
    if (!(p.name in args) || args[p.name] === undefined) {
      if (p.optional) return;
      throw refuse(tool, `the command uses {${p.name}} but no argument "${p.name}" was given; pass it, mark it required in input_schema, or write {${p.name}?} in the command`);
    }
    const attached = p.prefix !== '';
    argv.push(p.prefix + (paths.get(p.name) ?? scalar(tool, p.name, args[p.name], attached || (dashDash >= 0 && dashDash < i))));
  });
  return argv;
}
