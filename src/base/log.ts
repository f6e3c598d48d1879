/**
 * Structured logs (pino). The daemon logs to stdout, foreground commands to
 * stderr so stdout stays the command's answer. What a line looks like follows
 * where it goes:
 * - the journal (JOURNAL_STREAM names this descriptor, log-journal.ts): the
 *   JSON line behind its syslog priority `<N>`, so journald files errors as
 *   errors and `journalctl -p warning` shows warnings and worse;
 * - a terminal: one readable line per record (log-pretty.ts, loaded only then);
 * - anything else (a pipe, a file): the plain pino JSON line.
 * Every write is synchronous and one whole line; a reader that went away
 * (a closed terminal, a broken pipe) makes later lines drop, never a crash. The level comes from
 * PICO_LOG_LEVEL (default info for the daemon, warn for commands). Times are
 * ISO 8601. This module does not decide what is logged.
 */
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import type { DestinationStream, Logger } from 'pino';
import { isJournalStream, journalPriority } from './log-journal.js';
import { terminalFormatter } from './log-pretty.js';

export type LogFormat = 'journal' | 'terminal' | 'json';

/**
 * pino is CommonJS; `require` loads it as such. An `import` of it would start node's
 * CommonJS-to-ESM translation (its export lexer), which alone costs the idle daemon about
 * 0.7 MB of resident memory, when pino is the daemon's only CommonJS module.
 */
const pino = createRequire(import.meta.url)('pino') as typeof import('pino');

/** How lines written to `fd` are shaped: for the journal, for a person, or plain JSON. */
export function logFormat(fd: number, env: NodeJS.ProcessEnv = process.env): LogFormat {
  if (isJournalStream(fd, env)) return 'journal';
  if (isatty(fd)) return 'terminal';
  return 'json';
}

/** How long a line waits for a full pipe (EAGAIN) before it is dropped, ms. */
const BUSY_WAIT_MS = 1_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write one whole line to `fd`, synchronously, looping over short writes. A reader that is gone
 * — a closed terminal (EIO), a journal or pipe that went away (EPIPE) — must not take the
 * process down: from then on lines to `fd` are dropped (a daemon on a terminal that hung up
 * stops by SIGHUP: daemon/signals.ts). A full pipe is waited for briefly, then the line dropped.
 */
function lineWriter(fd: number): (line: string) => void {
  let gone = false;
  return (line) => {
    if (gone) return;
    const buf = Buffer.from(line, 'utf8');
    let off = 0;
    const deadline = Date.now() + BUSY_WAIT_MS;
    while (off < buf.length) {
      try {
        const n = writeSync(fd, buf, off, buf.length - off);
        if (n <= 0) {
          gone = true; // a write that makes no progress would loop for ever
          return;
        }
        off += n;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if ((code === 'EAGAIN' || code === 'EBUSY') && Date.now() < deadline) {
          Atomics.wait(pause, 0, 0, 10);
          continue;
        }
        if (code !== 'EAGAIN' && code !== 'EBUSY') gone = true;
        return;
      }
    }
  };
}

/**
 * A pino destination on `fd` that rewrites each serialised line before one synchronous write.
 * pino tells a stream marked with its metadata symbol the level of the line it is about to write.
 */
function rewriting(fd: number, rewrite: (line: string, level: number) => string): DestinationStream {
  const write = lineWriter(fd);
  const stream = {
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 30,
    write(line: string): void {
      write(rewrite(line, stream.lastLevel));
    },
  };
  return stream;
}

/** The destination for `fd` in the given format. */
export function logDestination(fd: number, format: LogFormat, env: NodeJS.ProcessEnv = process.env): DestinationStream {
  if (format === 'journal') return rewriting(fd, (line, level) => `<${journalPriority(level)}>${line}`);
  if (format === 'terminal') {
    const pretty = terminalFormatter({ colour: env.NO_COLOR === undefined || env.NO_COLOR === '' });
    return rewriting(fd, (line) => pretty(line));
  }
  return rewriting(fd, (line) => line);
}

export function createLogger(opts: { to: 'stdout' | 'stderr'; level?: string; name?: string }): Logger {
  const level = process.env.PICO_LOG_LEVEL ?? opts.level ?? 'info';
  const fd = opts.to === 'stdout' ? 1 : 2;
  return pino(
    { level, base: { name: opts.name ?? 'picoharness', pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    logDestination(fd, logFormat(fd)),
  );
}
