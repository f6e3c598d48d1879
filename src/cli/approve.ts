/** `pico approve SESSION [STEP]`: grant one destructive step (src/cli/decide.ts). */
import { decideCommand } from './decide.js';

export function main(argv: string[]): Promise<number> {
  return Promise.resolve(decideCommand(argv, 'granted'));
}
