/** Every command of the CLI, read from its table in src/cli/main.ts (which runs when imported, so it is read as text). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const COMMANDS = [...readFileSync(join(import.meta.dirname, '../../src/cli/main.ts'), 'utf8').matchAll(/^ {2}([a-z]+): \{ summary:/gm)].map((m) => m[1]!);
