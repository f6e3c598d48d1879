/**
 * Sentences for the second look — the reads a follow-up adds after the first
 * look found a symptom (src/agent/followups.ts): folder_sizes@1,
 * journal_disk@1, log_files@1, unit_log@1, pressure@1, memory_holders@1 and
 * throttling@1. Each says the cause it found with its numbers and where it
 * came from ("/var/log/journal" 3.1 GiB, 11 % of "/"), or — when it found
 * none — what it looked at, so "no cause found" is never silent. An unknown
 * (no systemd, no journal, no PSI, not a Pi) is said as unknown, with why,
 * never as "nothing wrong". Strings from a capture (paths, unit and program
 * names, log lines) appear only quoted; state words only when they are the
 * schema's own.
 */
import { count, humanBytes, int, list, n, num, obj, oneOf, quote, quotedList, str } from './words.js';

type Fact = Record<string, unknown>;

/** How many of a list a sentence names before "and N more". */
const SHOWN = 3;

/** "12.4 GiB, 45 % of "/"" — a size, and its share of the filesystem (`of`, when named) when known. */
function sizeShare(bytes: number, share: number | null, of: string | null): string {
  if (share === null) return humanBytes(bytes);
  return `${humanBytes(bytes)}, ${share < 0.1 ? 'under 0.1' : n(share)} %${of ? ` of ${of}` : ''}`;
}

/** The folders or files a read could not open, said once with how many. */
function unreadableNote(k: number | null, named: unknown[], what: string): string {
  if (!k) return '';
  const shown = named.filter((p) => typeof p === 'string');
  return ` ${count(k, what)} could not be read and ${k === 1 ? 'is' : 'are'} not counted${shown.length ? ` (${quotedList(shown, SHOWN)})` : ''}.`;
}

/** folder_sizes@1 (du_top): the biggest folders the space can be pinned to, with sizes and shares. */
export function folderSizesSentence(f: Fact): string {
  const under = str(f.path) !== null ? quote(f.path) : 'the folder';
  const mount = str(f.mount) !== null ? quote(f.mount) : null;
  const largest = list(f.largest).map(obj).filter((x): x is Fact => x !== null && str(x.path) !== null && int(x.bytes) !== null);
  const total = int(f.total_bytes);
  const stopped = f.complete === false;
  const phrase = (x: Fact, of: string | null) => `${quote(x.path)} (${sizeShare(x.bytes as number, num(x.share_percent), of)})`;
  const [first, ...rest] = largest.slice(0, SHOWN);
  let s: string;
  if (stopped) {
    // a du the time limit stopped finished only some folders: what it finished is not "most of the space"
    s = `du stopped after ${int(f.seconds) ?? '?'} s before it measured all of ${under}`;
    s += first ? `: of the folders it finished, the biggest are ${[phrase(first, null), ...rest.map((x) => phrase(x, null))].join(', ')}.` : ', and finished no folder.';
  } else if (!first) {
    s = total !== null ? `${under} holds ${humanBytes(total)} and no folder: the space is in its own files.` : `No folder under ${under} could be measured.`;
  } else {
    // "most" only where it is true: the biggest folder holds more than half of what was measured
    const most = total !== null && (first.bytes as number) * 2 > total;
    s = `${most ? 'Most of the space under' : 'The biggest folder under'} ${under} is ${most ? 'in ' : ''}${phrase(first, mount ?? 'the filesystem')}`;
    if (rest.length) s += `, then ${rest.map((x) => phrase(x, null)).join(' and ')}`;
    s += total !== null ? `; ${under} holds ${humanBytes(total)} in all.` : '.';
  }
  return s + unreadableNote(int(f.unreadable_count), list(f.unreadable), 'folder');
}

/** journal_disk@1: the journal's size, where it lives, and the limit journald was given. */
export function journalDiskSentence(f: Fact): string {
  const state = oneOf(f.journal, ['present', 'none', 'unreadable', 'not_installed'] as const);
  if (state === 'none') return 'There is no journal on this machine (journalctl found no journal files), so it takes no space.';
  if (state === 'not_installed') return 'journalctl is not installed, so the journal\'s size is unknown.';
  if (state === 'unreadable') return 'The journal could not be read by this user (join the group systemd-journal or adm), so its size is unknown.';
  const bytes = int(f.bytes);
  if (state !== 'present' || bytes === null) return 'The journal\'s size is unknown.';
  const folders = list(f.folders).map(obj).filter((x): x is Fact => x !== null && str(x.path) !== null && int(x.bytes) !== null && (x.bytes as number) > 64 * 1024);
  let s = `The system journal takes ${humanBytes(bytes)}${folders.length ? ` (${folders.map((x) => `${quote(x.path)} ${humanBytes(x.bytes as number)}`).join(', ')})` : ''}`;
  if (f.partial_view === true) s += ', counting only the part this user may read';
  const limit = str(f.system_max_use);
  s += limit !== null
    ? `; journald.conf limits it to ${quote(limit)} (SystemMaxUse).`
    : '; journald.conf sets no limit, so journald keeps up to 10 % of the filesystem (at most 4 GiB).';
  return s;
}

/** log_files@1: the largest files under /var/log, the folder's total, and how much is rotated old logs. */
export function logFilesSentence(f: Fact): string {
  const folder = str(f.folder) !== null ? quote(f.folder) : 'the log folder';
  const files = list(f.files).map(obj).filter((x): x is Fact => x !== null && str(x.path) !== null && int(x.bytes) !== null && (x.bytes as number) > 0);
  const total = int(f.total_bytes);
  const k = int(f.file_count);
  let s = files.length === 0
    ? `No file in ${folder} holds any data${k !== null ? ` (${count(k, 'file')} found)` : ''}.`
    : `The largest files in ${folder}: ${files.slice(0, SHOWN).map((x) => `${quote(x.path)} ${humanBytes(x.bytes as number)}`).join(', ')}.`;
  if (files.length && total !== null && k !== null) {
    const rotated = int(f.rotated_bytes);
    s += ` ${count(k, 'file')} take ${humanBytes(total)} in all${rotated ? `, ${humanBytes(rotated)} of it old rotated logs` : ''}.`;
  }
  return s + unreadableNote(int(f.unreadable_count), list(f.unreadable), 'folder');
}

const SIGNALS: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 6: 'SIGABRT', 9: 'SIGKILL', 11: 'SIGSEGV', 15: 'SIGTERM' };

/** How a unit's main process last ended, in words ("exited with status 1", "was killed by signal 9 (SIGKILL)"). */
function ending(f: Fact): string | null {
  const status = int(f.exit_status);
  const kind = oneOf(f.exit_kind, ['exited', 'killed', 'dumped'] as const);
  if (status === null || kind === null) return null;
  if (kind === 'exited') return status === 0 ? null : `its main process exited with status ${status}`;
  return `its main process was ${kind === 'killed' ? 'killed' : 'killed, dumping core,'} by signal ${status}${SIGNALS[status] ? ` (${SIGNALS[status]})` : ''}`;
}

/** unit_log@1: how the unit last ended and how often it restarted, then its last log lines. */
export function unitLogSentence(f: Fact): string {
  const name = str(f.unit) !== null ? quote(f.unit) : 'the unit';
  let s: string;
  if (f.systemd === false) s = `This machine does not run systemd, so the state of ${name} cannot be read.`;
  else if (f.found === false) s = `There is no unit ${name} on this machine.`;
  else {
    const active = str(f.active_state);
    const result = str(f.result);
    const bits = [result !== null && result !== 'success' ? `its last run ended with ${quote(result)}` : null, ending(f)].filter(Boolean);
    const restarts = int(f.restarts);
    s = `${name.replace(/^the/, 'The')} is ${active !== null ? quote(active) : 'in an unknown state'}${bits.length ? ` (${bits.join('; ')})` : ''}`;
    s += restarts ? `; systemd restarted it ${count(restarts, 'time')}.` : '.';
  }
  const journal = oneOf(f.journal, ['read', 'empty', 'none', 'unreadable', 'not_installed'] as const);
  const lines = list(f.lines).map(obj).filter((x): x is Fact => x !== null && str(x.text) !== null);
  if (journal === 'read' && lines.length) s += ` Its last log line${lines.length > 1 ? 's' : ''}: ${lines.slice(-SHOWN).map((x) => quote(x.text)).join('; ')}.`;
  else if (journal === 'empty') s += ' Its log has no lines.';
  else if (journal === 'none') s += ' There is no journal on this machine, so its log lines cannot be read.';
  else if (journal === 'unreadable') s += ' Its log could not be read by this user (join the group systemd-journal or adm).';
  else if (journal === 'not_installed') s += ' journalctl is not installed, so its log lines cannot be read.';
  return s;
}

const RESOURCE_WORDS = { cpu: 'the CPU', memory: 'memory', io: 'disk I/O' } as const;

/** pressure@1: how long tasks waited for the CPU, memory and disk I/O, and which holds the machine back. */
export function pressureSentence(f: Fact): string {
  if (f.available !== true) return 'This kernel gives no pressure stall information (/proc/pressure), so waiting for the CPU, memory and disk cannot be measured.';
  const waits: string[] = [];
  for (const key of ['cpu', 'memory', 'io'] as const) {
    const some = obj(obj(f[key])?.some);
    const m = some ? num(some.avg60) : null;
    const t = some ? num(some.avg10) : null;
    if (m !== null) waits.push(`${RESOURCE_WORDS[key]} ${n(m)} %${t !== null && Math.abs(t - m) >= 5 ? ` (${n(t)} % in the last 10 s)` : ''}`);
  }
  let s = waits.length ? `Over the last minute, tasks waited for ${waits.join(', ')} of the time.` : 'No stall figure could be read.';
  const stalled = list(f.stalled).map((x) => oneOf(x, ['cpu', 'memory', 'io'] as const)).filter((x): x is 'cpu' | 'memory' | 'io' => x !== null);
  s += stalled.length
    ? ` What holds the machine back most: ${RESOURCE_WORDS[stalled[0]!]}${stalled.length > 1 ? `, then ${stalled.slice(1).map((x) => RESOURCE_WORDS[x]).join(' and ')}` : ''}.`
    : ' None of them waits long enough to slow the machine down (under 10 %).';
  return s;
}

/** memory_holders@1: the programs holding the most resident memory, with sizes and shares of RAM. */
export function memoryHoldersSentence(f: Fact): string {
  const programs = list(f.programs).map(obj).filter((x): x is Fact => x !== null && str(x.name) !== null && int(x.rss_bytes) !== null);
  const phrase = (x: Fact) => {
    const k = int(x.processes) ?? 1;
    const share = num(x.share_percent);
    return `${quote(x.name)} (${k > 1 ? `${k} processes, ` : ''}${humanBytes(x.rss_bytes as number)}${share !== null ? `, ${n(share)} % of the RAM` : ''})`;
  };
  let s = programs.length === 0
    ? 'No process list was read, so what holds the memory is unknown.'
    : `The program holding the most memory is ${phrase(programs[0]!)}${programs.length > 1 ? `, then ${programs.slice(1, SHOWN).map(phrase).join(' and ')}` : ''}.`;
  const left = int(f.left_out);
  if (left) s += ` picoharness's own ${count(left, 'process', 'processes')} (this check and what started it) are left out.`;
  return s;
}

/** throttling@1: the firmware's limits now and since boot in words, and the CPU clock against its maximum. */
export function throttlingSentence(f: Fact): string {
  const source = oneOf(f.source, ['sysfs', 'vcgencmd'] as const);
  const now = list(f.now).filter((x): x is string => typeof x === 'string');
  const since = list(f.since_boot).filter((x): x is string => typeof x === 'string');
  let s: string;
  if (source === null) s = 'Throttling is unknown: this machine has no Raspberry Pi firmware interface (get_throttled, vcgencmd) to ask.';
  else if (now.length) s = `The Pi is limited right now: ${now.join(', ')}.${since.length ? ` Since boot: ${since.join(', ')}.` : ''}`;
  else if (since.length) s = `The Pi is not limited right now, but since boot it was: ${since.join(', ')}.`;
  else s = 'The firmware reports no throttling and no under-voltage, now or since boot.';
  const cur = num(f.cpu_mhz);
  const max = num(f.max_mhz);
  const pct = num(f.clock_percent);
  if (cur !== null) s += ` The CPU runs at ${n(cur, 0)} MHz${max !== null ? ` of ${n(max, 0)} MHz${pct !== null ? ` (${n(pct, 0)} %)` : ''}` : ''}.`;
  return s;
}
