/**
 * Shared command-line plumbing: flag parsing with clear usage errors, the
 * `--root` default, and one way to print either for a person or (`--json`)
 * for a script. Commands hold their parsing here and their logic elsewhere.
 *
 * Exit codes, for every command (docs/commands.md holds the same table, and
 * test/cli/exit-codes.test.ts holds every command to it): 0 success (an
 * answered job, a valid value); 1 a negative but well-formed result (partial
 * or declined answer, a refused value, a replay that differs); 2 the user's
 * mistake (a usage or input error, a folder that is not a root); 3 a root
 * that cannot serve (manifests or settings that do not load, a disk that
 * refuses writes); 4 an internal error (a bug: please report it).
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { visibleJson } from '../base/log-pretty.js';
import { nearest } from '../base/near.js';

export const EXIT = { ok: 0, negative: 1, usage: 2, root: 3, internal: 4 } as const;

export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parse flags for a command; unknown flags are usage errors that name the flag, the nearest known one and the command's usage. */
export function parse<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec((err as Error).message)?.[1] : undefined;
    if (unknown !== undefined) {
      const near = nearest(unknown.replace(/^-+/, '').replace(/=.*$/, ''), Object.keys(options));
      throw new UsageError(`unknown option ${unknown}${near ? ` (did you mean --${near}?)` : ''}\nusage: ${usage}`);
    }
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
}

/** A subcommand that is not one: named, with the nearest known one, and the usage. */
export function unknownSubcommand(given: string | undefined, known: readonly string[], usage: string): UsageError {
  if (given === undefined) return new UsageError(`name a subcommand: ${known.join(', ')}\nusage: ${usage}`);
  const near = nearest(given, known);
  return new UsageError(`unknown subcommand "${given}"${near ? ` (did you mean ${near}?)` : `; the subcommands: ${known.join(', ')}`}\nusage: ${usage}`);
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
