/**
 * The log_summary@2 fold: one window of raw log text in, the seven fields out,
 * each decided exactly as `shared/specs/log_summary@2.md` says.
 *
 * Failure lines are rule 1 or rule 2; only when neither finds a line and the
 * window states no severity at all does the fallback ("an operation did not
 * succeed") apply. A collector notice makes `error_count` null and leaves the
 * other fields answered from what is visible. This module never reads files
 * and never interprets what a message asks for: it only measures text.
 */
import { parseLine, type ParsedLine } from './line.js';
import { isRule1FailureLine, isRule2FailureLine } from '../../src/agent/failure-lines.js';
import { lineSeverity, maxSeverity, type Severity } from './rules.js';
import { isCollectorNotice, isLifecycleMessage, isRedactionMarker, namesUnit, saysDidNotSucceed } from './markers.js';

export interface LogSummary {
  host: string | null;
  error_count: number | null;
  first_error: string | null;
  first_error_at: string | null;
  service: string | null;
  max_severity: Severity | null;
  service_restarted: boolean | null;
}

/** One non-blank line of the window with what was read from it. */
interface Record {
  raw: string;
  parsed: ParsedLine;
  notice: boolean;
}

/** Split a window into its non-blank lines, dropping only the line terminators. */
export function windowLines(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim().length > 0);
}

/** Every non-blank line, taken apart, with whether it is a collector notice. */
function readRecords(text: string): Record[] {
  return windowLines(text).map((raw) => {
    const parsed = parseLine(raw);
    return { raw, parsed, notice: isCollectorNotice(raw, parsed.tag) };
  });
}

/** True when the window itself says that some of its lines are missing ("N lines not returned"). */
export function hasCollectorNotice(text: string): boolean {
  return readRecords(text).some((r) => r.notice);
}

/** Summarise one window of log text as log_summary@2. */
export function summarizeLog(text: string): LogSummary {
  const records = readRecords(text);
  const entries = records.filter((r) => !r.notice);

  let severity: Severity | null = null;
  for (const r of records) severity = maxSeverity(severity, lineSeverity(r.raw));

  let failures = entries.filter((r) => isRule1FailureLine(r.raw) || isRule2FailureLine(r.raw));
  if (failures.length === 0 && severity === null) failures = entries.filter((r) => saysDidNotSucceed(r.parsed.message));

  const first = failures[0];
  const message = first?.parsed.message ?? '';
  return {
    host: pickHost(entries, first),
    error_count: records.some((r) => r.notice) ? null : failures.length,
    first_error: first && message.length > 0 && !isRedactionMarker(message) ? message : null,
    first_error_at: first?.parsed.timestamp ?? null,
    service: first?.parsed.tag ?? null,
    max_severity: severity,
    service_restarted: restarted(entries),
  };
}

/** The host of the first failure line; failing that the nearest host above it, else the first host. */
function pickHost(entries: Record[], first: Record | undefined): string | null {
  const firstHost = entries.find((r) => r.parsed.host !== null)?.parsed.host ?? null;
  if (!first) return firstHost;
  if (first.parsed.host !== null) return first.parsed.host;
  for (let i = entries.indexOf(first) - 1; i >= 0; i -= 1) {
    const h = entries[i]!.parsed.host;
    if (h !== null) return h;
  }
  return firstHost;
}

/** true on a lifecycle start; false when named programs or units logged but none started; null otherwise. */
function restarted(entries: Record[]): boolean | null {
  if (entries.some((r) => isLifecycleMessage(r.parsed.message))) return true;
  if (entries.some((r) => r.parsed.tag !== null || namesUnit(r.parsed.message))) return false;
  return null;
}
