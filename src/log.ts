/**
 * Structured logs (pino). The daemon logs JSON lines to stdout for journald;
 * foreground commands log to stderr so stdout stays the command's answer.
 * The level comes from PICO_LOG_LEVEL (default info for the daemon, warn for
 * commands). Times are ISO 8601.
 */
import pino, { type Logger } from 'pino';

export function createLogger(opts: { to: 'stdout' | 'stderr'; level?: string; name?: string }): Logger {
  const level = process.env.PICO_LOG_LEVEL ?? opts.level ?? 'info';
  return pino(
    { level, base: { name: opts.name ?? 'picoharness', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ fd: opts.to === 'stdout' ? 1 : 2, sync: true }),
  );
}
