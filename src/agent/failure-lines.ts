/**
 * Failure lines by rules 1 and 2 of log_summary@2 (spec "What counts as a
 * failure line"): a failure word anywhere in the line, or a leading syslog
 * priority of severity 3 or less. One line at a time.
 *
 * It lives in the agent, the lowest of its users: the agent's log compaction
 * (compact-lines.ts) keeps these lines first, and the log-summary provider
 * (providers/log-summary) and its ladder cross-check count them, all with
 * exactly these functions, so none of them can disagree.
 */

// Rule 1: these words, whole and in any case, make a failure line.
const RULE1 = /\b(?:emerg|emergency|alert|crit|critical|panic|fatal|err|error|errors|fail|failed|failure|failures)\b/i;

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
