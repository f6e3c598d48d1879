/** `pico deny SESSION [STEP] [--reason TEXT]`: deny one destructive step (src/approval/cli.ts). */
import { decideCommand } from '../approval/cli.js';

export function main(argv: string[]): Promise<number> {
  return Promise.resolve(decideCommand(argv, 'denied'));
}
