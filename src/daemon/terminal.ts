/**
 * The terminal a daemon was started on, and what to do when it hangs up.
 *
 * A hung-up terminal (its window closed) is still the process's stdin,
 * stdout and stderr: writes to it fail with EIO, and Node, which restores a
 * terminal's mode at exit, aborts on that failure (an assertion in its
 * ResetStdio) — a crash and a core dump for a daemon that stopped cleanly.
 * `detach` puts /dev/null in place of each descriptor that was a
 * terminal (close, then open: the lowest free descriptor is the one just
 * closed), so the lines that follow go nowhere, as they would have anyway,
 * and Node sees a file it did not start with and leaves it alone. Linux
 * tells a hangup by the process having no controlling terminal any more
 * (tty_nr 0 in /proc/self/stat). This module decides nothing about stopping.
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { isatty } from 'node:tty';

/** The controlling terminal's device number (0: none), from /proc/self/stat; null where that cannot be read. */
export function controllingTerminal(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // after the command name in parentheses: state ppid pgrp session tty_nr …
    const tty = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4]);
    return Number.isInteger(tty) ? tty : null;
  } catch {
    return null;
  }
}

/**
 * A watcher made at start, which notes which of stdin, stdout and stderr are a terminal then
 * (after a hangup they no longer say so: the kernel answers EIO to the question).
 * `hungUp()` is true once the terminal the process started on is gone; `detach()` puts
 * /dev/null in place of each descriptor that was a terminal.
 */
export function terminalWatch(): { hungUp(): boolean; detach(): void } {
  const startedOnTerminal = (controllingTerminal() ?? 0) !== 0;
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  return {
    hungUp: () => startedOnTerminal && controllingTerminal() === 0,
    detach: () => {
      for (const fd of terminals.splice(0)) {
        closeSync(fd);
        const opened = openSync('/dev/null', fd === 0 ? 'r' : 'w');
        if (opened !== fd) closeSync(opened); // another thread took the number first: leave the descriptor closed
      }
    },
  };
}
