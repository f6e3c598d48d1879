/**
 * The vocabulary of `pico doctor`: one check is one line — its group, what
 * was looked at, ok / warn / fail, what was found and, unless ok, the fix.
 * `fail` means something picoharness needs is broken here (the exit code is
 * 1); `warn` means it works with less than it could (a weaker sandbox, a
 * missing folder the daemon makes itself). Each group of checks is its own
 * module in this folder and returns a list of these.
 */
export type Level = 'ok' | 'warn' | 'fail';

export interface Check {
  group: 'node' | 'modules' | 'sandbox' | 'disk' | 'root' | 'models';
  name: string;
  level: Level;
  detail: string;
  /** what to do; empty when ok */
  fix: string;
}

/** A check that passed. */
export function ok(group: Check['group'], name: string, detail: string): Check {
  return { group, name, level: 'ok', detail, fix: '' };
}
