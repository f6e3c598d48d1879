/**
 * The word rules of log_summary@2: which severity a line and a window state
 * (spec `max_severity`).
 *
 * This module owns the severity vocabulary so that the parser and the
 * ladder's cross-check cannot disagree. Rules 1 and 2 themselves (which lines
 * are failure lines, `isRule1FailureLine`, `isRule2FailureLine`) live in
 * src/agent/failure-lines.ts, below the providers, because the agent's log
 * compaction keeps failure lines by the same rules; the parser and the
 * cross-check use exactly those functions. It looks at one line at a time and
 * knows nothing about time stamps, hosts or tags (see `line.ts`).
 */
import { leadingPriority } from '../../src/agent/failure-lines.js';

export type Severity = 'critical' | 'error' | 'warning' | 'info' | 'debug';

/** Higher is more severe; used to keep the maximum over a window. */
export const SEVERITY_RANK: Record<Severity, number> = { debug: 1, info: 2, warning: 3, error: 4, critical: 5 };

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
