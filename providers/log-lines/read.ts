/**
 * A log window read as log_lines@1: the lines themselves (bounded, newest
 * last), each with the level its source states, and the counts by level.
 *
 * What was read is told by the tool's own header — `== journal` (journalctl
 * JSON, with `== filter …` lines naming its filters and `== limit N`), `==
 * kernel journal` or `== kernel ring` (`dmesg -r`) — and a text without a
 * header is a file (read_file's built-in read prints the file alone). A
 * failure line is one whose stated level is err or more severe; a line whose
 * format states no level is counted as unstated, never as a failure.
 *
 * Pure: the text in, the fact out; no clock, no files.
 */
import { fileEntries } from './files.js';
import { journalEntry, ringEntry, type Entry } from './journal.js';
import { isFailure, LEVELS, worse, type Level } from './levels.js';

export const MAX_LINES = 25;
export const MAX_FAILURES = 10;
export const MAX_TEXT = 300;

export interface ShownLine {
  at: string | null;
  source: string | null;
  level: Level | null;
  text: string;
}

export interface LogLines {
  source: 'journal' | 'kernel' | 'file';
  format: 'journal' | 'kernel_ring' | 'dpkg' | 'apt_history' | 'apt_term' | 'alternatives' | 'lines';
  unit: string | null;
  priority: Level | null;
  host: string | null;
  lines_read: number;
  failure_count: number;
  warning_count: number;
  unstated_count: number;
  max_level: Level | null;
  first_at: string | null;
  last_at: string | null;
  limited: boolean;
  first_failure: ShownLine | null;
  failures: ShownLine[];
  lines: ShownLine[];
}

interface Header {
  kind: 'journal' | 'kernel journal' | 'kernel ring' | null;
  filters: Map<string, string>;
  limit: number | null;
  body: string[];
}

/** The tool's header lines ("== …") and the body after them. */
function header(text: string): Header {
  const all = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const h: Header = { kind: null, filters: new Map(), limit: null, body: all };
  let i = 0;
  for (; i < all.length; i += 1) {
    const m = /^== (journal|kernel journal|kernel ring|filter|limit)(?: (.*))?$/.exec(all[i]!);
    if (!m) break;
    if (m[1] === 'filter') {
      const f = /^--([a-z]+)=(.*)$/.exec(m[2] ?? '');
      if (f) h.filters.set(f[1]!, f[2]!);
    } else if (m[1] === 'limit') {
      h.limit = /^\d+$/.test(m[2] ?? '') ? Number(m[2]) : null;
    } else {
      h.kind = m[1] as Header['kind'];
    }
  }
  if (h.kind === null) return { ...h, filters: new Map(), limit: null, body: all };
  return { ...h, body: all.slice(i) };
}

function shown(e: Entry): ShownLine {
  const chars = [...e.text];
  const text = chars.length > MAX_TEXT ? `${chars.slice(0, MAX_TEXT - 1).join('')}…` : e.text;
  return { at: e.at, source: e.source, level: e.level, text };
}

/** Ring-buffer lines; a line without a `<N>[…]` prefix continues the record before it. */
function ringEntries(lines: readonly string[]): Entry[] {
  const out: Entry[] = [];
  for (const l of lines) {
    if (l.trim() === '') continue;
    const e = ringEntry(l);
    if (e) out.push(e);
    else if (out.length > 0) out[out.length - 1] = { ...out[out.length - 1]!, text: `${out[out.length - 1]!.text} ${l.trim()}` };
  }
  return out;
}

/** Every entry of a window, in order, with what was read and how (the fact keeps a bounded part). */
export function logEntries(text: string): { source: LogLines['source']; format: LogLines['format']; entries: Entry[]; filters: Map<string, string>; limit: number | null } {
  const h = header(text);
  const nonBlank = h.body.filter((l) => l.trim() !== '' && l.trim() !== '-- No entries --');
  let source: LogLines['source'];
  let format: LogLines['format'];
  let entries: Entry[];
  if (h.kind === 'journal' || h.kind === 'kernel journal') {
    source = h.kind === 'journal' ? 'journal' : 'kernel';
    format = 'journal';
    entries = nonBlank.map(journalEntry).filter((e): e is Entry => e !== null);
  } else if (h.kind === 'kernel ring') {
    source = 'kernel';
    format = 'kernel_ring';
    entries = ringEntries(nonBlank);
  } else {
    source = 'file';
    const read = fileEntries(nonBlank);
    format = read.format;
    entries = read.entries;
  }
  return { source, format, entries, filters: h.filters, limit: h.limit };
}

/** Read one window of log text as log_lines@1. */
export function readLogLines(text: string): LogLines {
  const { source, format, entries, filters, limit } = logEntries(text);
  const failures = entries.filter((e) => isFailure(e.level));
  const priority = filters.get('priority') ?? null;
  return {
    source,
    format,
    unit: filters.get('unit') ?? null,
    priority: (LEVELS as readonly string[]).includes(priority ?? '') ? (priority as Level) : null,
    host: entries.find((e) => e.host !== null)?.host ?? null,
    lines_read: entries.length,
    failure_count: failures.length,
    warning_count: entries.filter((e) => e.level === 'warning').length,
    unstated_count: entries.filter((e) => e.level === null).length,
    max_level: entries.reduce<Level | null>((w, e) => worse(w, e.level), null),
    first_at: entries.find((e) => e.at !== null)?.at ?? null,
    last_at: [...entries].reverse().find((e) => e.at !== null)?.at ?? null,
    limited: limit !== null && entries.length >= limit,
    first_failure: failures[0] ? shown(failures[0]) : null,
    failures: failures.slice(-MAX_FAILURES).map(shown),
    lines: entries.slice(-MAX_LINES).map(shown),
  };
}
