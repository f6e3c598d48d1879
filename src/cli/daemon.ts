/**
 * `pico daemon --root DIR` — run the job daemon in the foreground.
 *
 * Logs are pino JSON lines on stdout (journald keeps them under systemd);
 * `PICO_LOG_LEVEL` sets the level (default info). Flags only; the daemon
 * itself is src/daemon/loop.ts.
 */
import { createLogger } from '../log.js';
import { runDaemon } from '../daemon/loop.js';
import { parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = `pico daemon [--root DIR] [--grace-ms MS]
  Watches DIR/sessions/inbox/ and runs job files one at a time.
  --root DIR      the picoharness root (default: the current directory)
  --grace-ms MS   how long SIGTERM may take to finish the current step (default 20000)
  SIGTERM/SIGINT stop after the current step (exit 0); a second signal forces (exit 1).`;

/** Entry point of `pico daemon`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, 'grace-ms': { type: 'string' } }, USAGE);
  if (positionals.length > 0) throw new UsageError(`takes no positional arguments, got ${JSON.stringify(positionals)}\nusage: ${USAGE}`);
  let graceMs: number | undefined;
  if (values['grace-ms'] !== undefined) {
    graceMs = Number(values['grace-ms']);
    if (!Number.isInteger(graceMs) || graceMs <= 0) {
      process.stderr.write(`pico daemon: --grace-ms must be a positive whole number of milliseconds, got ${JSON.stringify(values['grace-ms'])}\n`);
      return 2;
    }
  }
  const log = createLogger({ to: 'stdout', level: 'info' });
  return runDaemon({ root: rootOf(values), log, graceMs });
}
