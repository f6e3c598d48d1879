/**
 * Shared command-line plumbing: flag parsing with clear usage errors, the
 * `--root` default, and one way to print either for a person or (`--json`)
 * for a script. Commands hold their parsing here and their logic elsewhere.
 *
 * Exit codes, for every command: 0 success (an answered job, a valid value);
 * 1 a negative but well-formed result (partial or declined answer, a refused
 * value, a replay that differs); 2 a usage or input error; 3 a broken root
 * (manifests that do not load); 4 an internal error (a bug: please report it).
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { visibleJson } from '../base/log-pretty.js';

export const EXIT = { ok: 0, negative: 1, usage: 2, root: 3, internal: 4 } as const;

export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parse flags for a command; unknown flags are usage errors that name the command's usage. */
export function parse<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
}

export const rootOption = { root: { type: 'string' } } as const;
export const jsonOption = { json: { type: 'boolean' } } as const;

/** The root: --root DIR, else $PICO_ROOT (the installed `pico` wrapper sets it), else the current directory. */
export function rootOf(values: { root?: string | boolean | undefined }): string {
  return resolve(typeof values.root === 'string' ? values.root : process.env.PICO_ROOT || process.cwd());
}

/** Print a result: JSON for scripts, or the human rendering. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  // JSON holds outside text too: no character a terminal acts on stands raw in it (log-pretty.ts)
  process.stdout.write(json ? visibleJson(value, 2) + '\n' : human() + '\n');
}
