/** `pico deny SESSION [STEP] [--reason TEXT]`: deny one destructive step (src/cli/decide.ts). */
import { decideCommand } from './decide.js';

export function main(argv: string[]): Promise<number> {
  return Promise.resolve(decideCommand(argv, 'denied'));
}
