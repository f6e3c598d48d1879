/**
 * Entries of `journalctl -o json` and of the kernel ring buffer (`dmesg -r`),
 * each with the level its source records: the journal's PRIORITY field, the
 * ring buffer's `<N>` prefix. Nothing here looks at the words of a message.
 *
 * journalctl's JSON is one object per line; a field is a string, an array of
 * byte values when it is not valid UTF-8, null when it was too large to
 * print, or an array of those when the entry holds the field more than once
 * (the first is kept). Time stamps are __REALTIME_TIMESTAMP (µs since the
 * epoch) written as ISO 8601 in UTC, to the second.
 */
import { levelOfNumber, type Level } from './levels.js';

export interface Entry {
  at: string | null;
  host: string | null;
  source: string | null;
  level: Level | null;
  text: string;
}

type FieldValue = string | number[] | null | (string | number[] | null)[];

/** One journal field as text: bytes decoded as UTF-8, the first of repeated values, null when absent. */
function field(obj: Record<string, unknown>, key: string): string | null {
  let v = obj[key] as FieldValue | undefined;
  if (v === undefined || v === null) return null;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number')) return Buffer.from(v as number[]).toString('utf8');
  if (Array.isArray(v)) v = (v as (string | number[] | null)[])[0] ?? null;
  if (Array.isArray(v)) return Buffer.from(v).toString('utf8');
  return typeof v === 'string' ? v : null;
}

/** µs since the epoch as "2024-03-03T14:00:05Z"; null when the field is not a number. */
function isoFromMicros(us: string | null): string | null {
  if (us === null || !/^\d{1,17}$/.test(us)) return null;
  const d = new Date(Math.floor(Number(us) / 1000));
  return Number.isNaN(d.getTime()) ? null : `${d.toISOString().slice(0, 19)}Z`;
}

/** One line of journalctl's JSON output, or null when the line is not a journal entry. */
export function journalEntry(line: string): Entry | null {
  if (!line.startsWith('{')) return null;
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null;
  const o = obj as Record<string, unknown>;
  if (!('__REALTIME_TIMESTAMP' in o) && !('PRIORITY' in o) && !('MESSAGE' in o)) return null;
  const pri = field(o, 'PRIORITY');
  const message = field(o, 'MESSAGE');
  return {
    at: isoFromMicros(field(o, '__REALTIME_TIMESTAMP')),
    host: field(o, '_HOSTNAME'),
    source: field(o, 'SYSLOG_IDENTIFIER') ?? field(o, '_COMM') ?? field(o, '_SYSTEMD_UNIT'),
    level: pri !== null && /^\d$/.test(pri) ? levelOfNumber(Number(pri)) : null,
    text: message ?? (o.MESSAGE === null ? '(a message too large for the journal to print)' : ''),
  };
}

// dmesg -r: "<6>[   12.443112] eth0: link up"; the number may carry a facility (<30> = daemon.info)
const RING = /^<(\d{1,3})>(\[\s*\d+\.\d+\])\s?(.*)$/;

/** One line of `dmesg -r`; null for a line that is not a ring-buffer record (a continuation). */
export function ringEntry(line: string): Entry | null {
  const m = RING.exec(line);
  if (!m) return null;
  const n = Number(m[1]);
  const level = n <= 191 ? levelOfNumber(n) : null;
  // a program writing to the ring (facility above kern) names itself: "systemd[1]: Started …"
  const tag = n >= 8 ? /^([^\s[\]:]+)\[\d+\]:\s?/.exec(m[3]!) : null;
  if (tag) return { at: m[2]!, host: null, source: tag[1]!, level, text: m[3]!.slice(tag[0].length) };
  return { at: m[2]!, host: null, source: n < 8 ? 'kernel' : null, level, text: m[3]! };
}
