/** `pico approve SESSION [STEP]`: grant one destructive step (src/approval/cli.ts). */
import { decideCommand } from '../approval/cli.js';

export function main(argv: string[]): Promise<number> {
  return Promise.resolve(decideCommand(argv, 'granted'));
}
