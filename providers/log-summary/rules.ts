/**
 * The word rules of log_summary@2: which lines report a failure and which
 * severity a window states (spec "What counts as a failure line", `max_severity`).
 *
 * This module owns the vocabulary so that the parser and the ladder's
 * cross-check cannot disagree: rule 1 is exported as `isRule1FailureLine` and
 * the cross-check recounts with exactly that function. It looks at one line at
 * a time and knows nothing about time stamps, hosts or tags (see `line.ts`).
 */

export type Severity = 'critical' | 'error' | 'warning' | 'info' | 'debug';

/** Higher is more severe; used to keep the maximum over a window. */
export const SEVERITY_RANK: Record<Severity, number> = { debug: 1, info: 2, warning: 3, error: 4, critical: 5 };

// Rule 1: these words, whole and in any case, make a failure line.
const RULE1 = /\b(?:emerg|emergency|alert|crit|critical|panic|fatal|err|error|errors|fail|failed|failure|failures)\b/i;

// Every word that states a severity, mapped as the spec's table says. The
// plural and long forms of rule-1 words map like their stems, so a line that
// counts as a failure always states at least `error`.
const SEVERITY_WORDS = /\b(emerg|emergency|alert|crit|critical|panic|fatal|err|error|errors|fail|failed|failure|failures|warn|warning|notice|info|debug)\b/gi;
const WORD_SEVERITY: Record<string, Severity> = {
  emerg: 'critical', emergency: 'critical', alert: 'critical', crit: 'critical', critical: 'critical',
  panic: 'critical', fatal: 'critical',
  err: 'error', error: 'error', errors: 'error', fail: 'error', failed: 'error', failure: 'error', failures: 'error',
  warn: 'warning', warning: 'warning',
  notice: 'info', info: 'info',
  debug: 'debug',
};

// A syslog priority opening the line: "<PRI>", PRI in 0..191.
const PRIORITY = /^<(\d{1,3})>/;

/** Rule 1: the line contains a failure word as a whole word, in any letter case. */
export function isRule1FailureLine(line: string): boolean {
  return RULE1.test(line);
}

/** The syslog priority the line starts with, or null when it has none (or it is out of range). */
export function leadingPriority(line: string): number | null {
  const m = PRIORITY.exec(line);
  if (!m) return null;
  const pri = Number(m[1]);
  return pri <= 191 ? pri : null;
}

/** Rule 2: the line starts with a priority whose severity (priority mod 8) is 3 or less. */
export function isRule2FailureLine(line: string): boolean {
  const pri = leadingPriority(line);
  return pri !== null && pri % 8 <= 3;
}

/** Map a numeric syslog severity (0..7) onto the five-level scale. */
export function severityOfNumber(sev: number): Severity {
  if (sev <= 2) return 'critical';
  if (sev === 3) return 'error';
  if (sev === 4) return 'warning';
  if (sev <= 6) return 'info';
  return 'debug';
}

/** The highest severity one line states (words anywhere, or its leading priority); null when none. */
export function lineSeverity(line: string): Severity | null {
  let best: Severity | null = null;
  const pri = leadingPriority(line);
  if (pri !== null) best = severityOfNumber(pri % 8);
  for (const m of line.matchAll(SEVERITY_WORDS)) {
    const sev = WORD_SEVERITY[m[1]!.toLowerCase()];
    if (sev && (best === null || SEVERITY_RANK[sev] > SEVERITY_RANK[best])) best = sev;
  }
  return best;
}

/** The more severe of two severities, treating null as "none stated". */
export function maxSeverity(a: Severity | null, b: Severity | null): Severity | null {
  if (a === null) return b;
  if (b === null) return a;
  return SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a;
}
