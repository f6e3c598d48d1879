/**
 * Is the process that wrote a pid file still that process?
 *
 * A pid alone lies after a reboot: on a Pi the daemon gets a low pid every
 * boot, and a stale lock or status file could name some unrelated process
 * that now holds the same number. So the daemon records an identity — boot
 * id, pid and the kernel's start time of the process (/proc/<pid>/stat field
 * 22) — and a reader compares it. A zombie is not running: it exited and
 * only waits to be reaped. Where /proc is missing (not Linux) it falls
 * back to "the pid exists". Nothing here kills or signals anything.
 */
import { readFileSync } from 'node:fs';

/** The identity of process `pid` now, or null when it does not exist. */
export function processIdentity(pid: number): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may contain spaces and parentheses: split after the last ")"
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${boot}:${pid}:${fields[19] ?? '?'}`; // field 22 overall = index 19 after "pid (comm)"
  } catch {
    return pidExists(pid) ? `pid:${pid}` : null;
  }
}

/** True when a process with this pid exists (EPERM counts: it exists, it is just not ours). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when the process recorded as `identity` (from processIdentity) still runs. A zombie
 * (state Z: exited, not yet reaped by its parent) or a dead entry (X) does not: it holds no
 * file, runs no code, and waiting for it to go would wait on its parent.
 */
export function stillRunning(pid: number, identity: string | undefined): boolean {
  if (exited(pid)) return false;
  const now = processIdentity(pid);
  if (now === null) return false;
  return identity === undefined || identity === now;
}

/** True when /proc says the process has exited but is still listed (zombie or dead). */
export function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}
