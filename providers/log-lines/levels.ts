/**
 * The eight syslog levels (RFC 5424 §6.2.1) and the words formats use for
 * them, as log_lines@1 states a line's level.
 *
 * Why one owner: the journal's PRIORITY, a kernel record's level, a syslog
 * `<PRI>`, a level column ("[error]", "ERROR:", "level=warn") and a format's
 * own fields all land on this scale, so "a failure line" means one thing —
 * a level of err or more severe — whatever wrote the log. A word counts only
 * where a format puts its level (see heads.ts), never wherever it appears.
 */

export const LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
export type Level = (typeof LEVELS)[number];

/** The level of a syslog severity number (PRIORITY, `<PRI>` mod 8, a kernel record's level). */
export function levelOfNumber(n: number): Level | null {
  return Number.isInteger(n) && n >= 0 ? LEVELS[n % 8]! : null;
}

/** Lower is more severe, as in syslog. */
export function rank(level: Level): number {
  return LEVELS.indexOf(level);
}

/** A failure line: the level it states is err or more severe. */
export function isFailure(level: Level | null): boolean {
  return level !== null && rank(level) <= rank('err');
}

// The words programs write in a level column, mapped onto the scale (case-insensitive).
const WORDS: Record<string, Level> = {
  emerg: 'emerg', emergency: 'emerg', panic: 'emerg',
  alert: 'alert',
  crit: 'crit', critical: 'crit', fatal: 'crit',
  err: 'err', error: 'err', severe: 'err',
  warn: 'warning', warning: 'warning',
  notice: 'notice',
  info: 'info', information: 'info', informational: 'info', log: 'info', statement: 'info', detail: 'info', hint: 'info', context: 'info',
  debug: 'debug', trace: 'debug', verbose: 'debug', fine: 'debug', finer: 'debug', finest: 'debug',
  debug1: 'debug', debug2: 'debug', debug3: 'debug', debug4: 'debug', debug5: 'debug',
};

/** The level a level-column word names ("ERROR", "warn", "debug3"), or null when it names none. */
export function levelOfWord(word: string): Level | null {
  return WORDS[word.toLowerCase()] ?? null;
}

/** The single letters some tools print as their level (apt's "E:", "W:", "N:"). */
export const LETTERS: Record<string, Level> = { E: 'err', W: 'warning', N: 'notice', I: 'info', D: 'debug', F: 'crit' };

/** The more severe of two levels, null meaning "none stated". */
export function worse(a: Level | null, b: Level | null): Level | null {
  if (a === null) return b;
  if (b === null) return a;
  return rank(b) < rank(a) ? b : a;
}
