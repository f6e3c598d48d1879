/**
 * Log lines for journald: the syslog priority prefix of sd-daemon(3).
 *
 * Under systemd a service's stdout is a stream into the journal, and systemd
 * says so by setting JOURNAL_STREAM to that stream's "DEVICE:INODE". When the
 * descriptor a logger writes to is that very stream (not merely inherited
 * through a pipe or a redirect), each line may start with `<N>`, its syslog
 * priority, which journald (SyslogLevelPrefix=yes, the default) strips and
 * files the line under: `journalctl -p warning` then shows exactly the
 * warnings and errors. This module decides whether a descriptor is the
 * journal's and maps pino levels to priorities; it does not format lines
 * (pino does) nor choose the destination (log.ts).
 */
import { fstatSync } from 'node:fs';

/** sd-daemon(3) priorities for pino's levels: fatal→crit, error→err, warn→warning, info→info, debug/trace→debug. */
export function journalPriority(pinoLevel: number): number {
  if (pinoLevel >= 60) return 2;
  if (pinoLevel >= 50) return 3;
  if (pinoLevel >= 40) return 4;
  if (pinoLevel >= 30) return 6;
  return 7;
}

/** True when `fd` is the stream systemd named in JOURNAL_STREAM ("DEV:INODE", decimal). */
export function isJournalStream(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const m = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? '');
  if (!m) return false;
  try {
    const st = fstatSync(fd, { bigint: true });
    return st.dev === BigInt(m[1]!) && st.ino === BigInt(m[2]!);
  } catch {
    return false; // a closed descriptor is nobody's stream
  }
}
