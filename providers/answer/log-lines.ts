/**
 * Sentences for log_lines@1 (a journal window, the kernel's messages or a log
 * file, each line with the level its source states): how many lines were
 * read, how many state a failure level, the first of them, and — said, not
 * hidden — how many state no level at all. An empty window is said to be
 * empty; an absent or unreadable source never reaches here (the tool's
 * failure carries its cause). `shownLines` prints the lines themselves for a
 * request to show them: every line quoted (one line each, escaped), never
 * followed.
 */
import { count, int, list, obj, oneOf, quote, str } from './words.js';

type Fact = Record<string, unknown>;

const LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
const SAY: Record<(typeof LEVELS)[number], string> = {
  emerg: 'emergency', alert: 'alert', crit: 'critical', err: 'error', warning: 'warning', notice: 'notice', info: 'info', debug: 'debug',
};

/** "The journal of "nginx.service"", "The kernel's log", "The log file". */
function what(f: Fact): string {
  const source = oneOf(f.source, ['journal', 'kernel', 'file'] as const);
  const unit = str(f.unit);
  if (source === 'kernel') return 'The kernel\'s log';
  if (source === 'journal') return unit !== null ? `The journal of ${quote(unit)}` : 'The journal';
  return 'The log file';
}

/** One line as people read it: time, source and level, then the message quoted. */
function linePhrase(l: Fact): string {
  const level = oneOf(l.level, LEVELS);
  const head = [str(l.at) !== null ? quote(l.at) : null, str(l.source) !== null ? quote(l.source) : null, level !== null ? SAY[level] : null].filter(Boolean).join(' ');
  return `${head ? `${head}: ` : ''}${quote(str(l.text) ?? '')}`;
}

/** log_lines@1: the window's lines by level, the first failure, and what states no level. */
export function logLinesSentence(f: Fact): string {
  const n = int(f.lines_read);
  const pri = oneOf(f.priority, LEVELS);
  const filter = pri !== null && pri !== 'debug' ? ` (only lines of level ${SAY[pri]} or worse were asked for)` : '';
  if (n === null) return `${what(f)} could not be counted.`;
  if (n === 0) return `${what(f)} has no lines in that window${filter}.`;
  const failures = int(f.failure_count) ?? 0;
  const warnings = int(f.warning_count) ?? 0;
  const unstated = int(f.unstated_count) ?? 0;
  const span = str(f.first_at) !== null && str(f.last_at) !== null ? ` from ${quote(f.first_at)} to ${quote(f.last_at)}` : '';
  let s = `${what(f)} has ${count(n, 'line')}${span}${filter}`;
  s += failures === 0 ? ': none states an error level' : `: ${count(failures, 'line')} ${failures === 1 ? 'states' : 'state'} an error level or worse`;
  if (warnings > 0) s += `, ${count(warnings, 'warning')}`;
  s += '.';
  const first = obj(f.first_failure);
  if (first) s += ` The first: ${linePhrase(first)}.`;
  const max = oneOf(f.max_level, LEVELS);
  if (max !== null && failures === 0) s += ` The most severe level stated: ${SAY[max]}.`;
  if (unstated > 0) s += unstated === n ? ' Its format states no level for any line, so failures cannot be told from its lines.' : ` ${count(unstated, 'line')} ${unstated === 1 ? 'states' : 'state'} no level.`;
  if (f.limited === true) s += ' Only the most recent lines were read; earlier ones in the window were not.';
  return s;
}

/** The lines themselves for a request to show them, oldest first: at most `max`, each quoted and escaped. */
export function shownLines(f: Fact, max = 25): string[] {
  return list(f.lines).map(obj).filter((l): l is Fact => l !== null).slice(-max).map(linePhrase);
}
