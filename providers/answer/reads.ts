/**
 * Sentences for the tools' own reads: log_lines@1 (a journal window, the
 * kernel's messages or a log file, each line with the level its source
 * states), process_list@1 (the processes of one name) and
 * listening_sockets@1 (what listens).
 *
 * A log read says how many lines were read, how many state a failure level,
 * the first of them, and — said, not hidden — how many state no level at
 * all. An empty window is said to be empty; an absent or unreadable source
 * never reaches here (the tool's failure carries its cause). `shownLines`
 * prints the lines themselves for a request to show them: every line quoted
 * (one line each, escaped), never followed. Process and socket reads name
 * the program asked about, say when none runs or listens, say when
 * picoharness's own processes were left out, and count what this user could
 * not see instead of guessing it.
 */
import { count, duration, humanBytes, int, list, num, obj, oneOf, quote, str } from './words.js';

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

/** process_list@1: whether processes of that name run, how many, and the busiest. */
export function processListSentence(f: Fact): string {
  const name = str(f.name) !== null ? quote(f.name) : 'that name';
  const k = int(f.count);
  const own = int(f.own_left_out);
  const ownNote = own !== null && own > 0 ? ` (picoharness's own ${own === 1 ? 'process' : 'processes'} of that name left out)` : '';
  if (k === null) return `The process list could not be read, so whether ${name} runs is unknown.`;
  if (k === 0) return `No process named ${name} is running${ownNote}.`;
  const ps = list(f.processes).map(obj).filter((p): p is Fact => p !== null);
  const first = ps[0];
  let s = `${count(k, 'process', 'processes')} named ${name} ${k === 1 ? 'is' : 'are'} running${ownNote}`;
  if (first) {
    const bits = [
      int(first.pid) !== null ? `pid ${int(first.pid)}` : null,
      str(first.user) !== null ? `user ${quote(first.user)}` : null,
      num(first.elapsed_seconds) !== null ? `up ${duration(num(first.elapsed_seconds)!)}` : null,
      int(first.rss_bytes) !== null ? `${humanBytes(int(first.rss_bytes)!)} resident` : null,
    ].filter(Boolean);
    s += k === 1 ? ` (${bits.join(', ')})` : `; the first: ${bits.join(', ')}`;
  }
  return `${s}.`;
}

/** listening_sockets@1: what listens on the port or for the program asked, or everything that listens. */
export function listeningSentence(f: Fact): string {
  const port = int(f.port);
  const name = str(f.name);
  const n = int(f.count);
  const unseen = int(f.unattributed) ?? 0;
  if (n === null) return 'The listening sockets could not be read.';
  const socks = list(f.sockets).map(obj).filter((x): x is Fact => x !== null);
  const where = (x: Fact) => `${str(x.protocol) ?? '?'} ${quote(`${str(x.address) ?? '?'}:${int(x.port) ?? '?'}`)}${str(x.process) !== null ? ` (${quote(x.process)})` : ''}`;
  const asked = port !== null && name !== null ? `port ${port} for ${quote(name)}` : port !== null ? `port ${port}` : name !== null ? quote(name) : null;
  const hidden = unseen > 0 ? ` ${unseen === 1 ? 'One listening socket\'s program' : `${unseen} listening sockets' programs`} could not be seen by this user${name !== null ? `, so ${unseen === 1 ? 'it' : 'one of them'} may still be ${quote(name)}'s` : ''}.` : '';
  if (asked === null) {
    if (n === 0) return 'Nothing listens on this machine.';
    return `${count(n, 'socket')} ${n === 1 ? 'listens' : 'listen'}: ${socks.slice(0, 6).map(where).join(', ')}${socks.length > 6 ? ` and ${socks.length - 6} more` : ''}.${hidden}`;
  }
  const m = int(f.matching) ?? 0;
  if (m === 0) return name !== null && unseen > 0 ? `No listening socket could be tied to ${asked}.${hidden}` : `Nothing listens on ${asked}.`;
  return `${count(m, 'socket')} ${m === 1 ? 'listens' : 'listen'} on ${asked}: ${socks.slice(0, 6).map(where).join(', ')}.`;
}
