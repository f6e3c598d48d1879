/**
 * One log line taken apart: its time stamp, host, program tag and message,
 * each a verbatim slice of the line (the span rule needs them verbatim).
 *
 * Formats recognised: RFC 3164 (with or without a `<PRI>`), RFC 5424,
 * journalctl short / short-iso / short-precise / short-full / short-unix,
 * kernel ring-buffer offsets (`dmesg`, `dmesg -T`, `dmesg -r`), application
 * logs that open with a date and time, logfmt and JSON lines with a time key,
 * and message-only lines (`journalctl -o cat`, stack-trace continuations).
 * It does not decide whether a line is a failure; `rules.ts` does.
 */

export interface ParsedLine {
  timestamp: string | null;
  host: string | null;
  /** the program tag or unit without its `[pid]` */
  tag: string | null;
  /** the text after the tag and its colon, or after the time stamp, leading spaces trimmed */
  message: string;
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MON = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const ISO_DATE_T = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d+)?(?:Z|[+-]\\d{2}(?::?\\d{2})?)?';
const DATE_TIME = '\\d{4}[-/]\\d{2}[-/]\\d{2}[ T]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d+)?(?:Z| ?[+-]\\d{2}:?\\d{2}| [A-Z]{3,4}(?=\\s))?';

// Time stamps after which a syslog-shaped "HOST TAG: message" may follow.
const SYSLOG_STAMPS: RegExp[] = [
  new RegExp(`^${MON} {1,2}\\d{1,2}(?: \\d{4})? \\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?`), // RFC 3164, journalctl short(-precise)
  new RegExp(`^${ISO_DATE_T}`), // journalctl short-iso(-precise), rsyslog high precision
  new RegExp(`^${DAY} \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)? [A-Za-z0-9+-]{2,6}`), // short-full
  /^\d{9,11}\.\d{3,9}(?= )/, // short-unix
];
// Time stamps of formats that have no host column: kernel ring buffer, application logs.
const PLAIN_STAMPS: RegExp[] = [
  /^\[\s*\d+\.\d+\]/, // dmesg offset, brackets and inner spaces kept
  new RegExp(`^\\[${DAY} ${MON} {1,2}\\d{1,2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)? \\d{4}\\]`), // dmesg -T, Apache error log
  new RegExp(`^\\[${DATE_TIME}\\]`),
  new RegExp(`^${DATE_TIME}`),
  new RegExp(`^\\d{2}:\\d{2}:\\d{2}[.,]\\d{3,6}`), // time-only application stamps (logback default)
];
// A time stamp held under a key in logfmt or JSON: ts=…, "time":"…"
const KEYED_STAMP = new RegExp(`(?:^|[\\s{,])"?(?:ts|time|timestamp|@timestamp|datetime)"?\\s*[=:]\\s*"?(${ISO_DATE_T}|${DATE_TIME})`);

// After a syslog stamp: HOST then TAG[pid]: message
const HOST_TAG = /^ +([^\s[\]]*[^\s[\]:]) +([^\s[\]:]+)(\[[^\]\s]*\])?:(?= |$)/;
const HOST_ONLY = /^ +([^\s[\]]*[^\s[\]:])(?= |$)/;
const NOT_A_HOST = /^(?:emerg|emergency|alert|crit|critical|panic|fatal|err|error|warn|warning|notice|info|debug|trace)$/i;

// RFC 5424: <PRI>VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD [MSG]
const RFC5424 = /^<\d{1,3}>\d{1,2} (\S+) (\S+) (\S+) (\S+) (\S+) /;

/** Take one line apart; every returned string is a slice of `raw`. */
export function parseLine(raw: string): ParsedLine {
  const m5424 = RFC5424.exec(raw);
  if (m5424) return parse5424(raw, m5424);
  const pri = /^<\d{1,3}>/.exec(raw);
  const line = pri ? raw.slice(pri[0].length) : raw;
  if (line.trimStart().startsWith('{')) return keyedOrWhole(line);
  for (const re of SYSLOG_STAMPS) {
    const m = re.exec(line);
    if (m) return afterSyslogStamp(m[0], line.slice(m[0].length), re === SYSLOG_STAMPS[0]);
  }
  for (const re of PLAIN_STAMPS) {
    const m = re.exec(line);
    if (m) return kernelOrPlain(m[0], line.slice(m[0].length).trimStart(), re === PLAIN_STAMPS[0]);
  }
  return keyedOrWhole(line);
}

/** A syslog-shaped rest: "HOST TAG[pid]: msg"; a BSD stamp always has a host, others may be an app log. */
function afterSyslogStamp(timestamp: string, rest: string, bsd: boolean): ParsedLine {
  const ht = HOST_TAG.exec(rest);
  if (ht && !NOT_A_HOST.test(ht[1]!) && !NOT_A_HOST.test(ht[2]!)) {
    return { timestamp, host: ht[1]!, tag: ht[2]!, message: rest.slice(ht[0].length).trimStart() };
  }
  const h = HOST_ONLY.exec(rest);
  if (bsd && h && !NOT_A_HOST.test(h[1]!)) {
    return { timestamp, host: h[1]!, tag: null, message: rest.slice(h[0].length).trimStart() };
  }
  return { timestamp, host: null, tag: null, message: rest.trimStart() };
}

// A program writing to the kernel ring buffer tags itself "name[pid]:" (systemd[1]: Started …).
const KMSG_TAG = /^([^\s[\]:]+)\[\d+\]:(?= |$)/;

/** A stamp with no host column; a ring-buffer line may still carry a program tag with a pid. */
function kernelOrPlain(timestamp: string, message: string, ringBuffer: boolean): ParsedLine {
  const t = ringBuffer ? KMSG_TAG.exec(message) : null;
  if (t) return { timestamp, host: null, tag: t[1]!, message: message.slice(t[0].length).trimStart() };
  return { timestamp, host: null, tag: null, message };
}

/** A line without a leading stamp: a keyed stamp if it has one, the whole line as the message. */
function keyedOrWhole(line: string): ParsedLine {
  const k = KEYED_STAMP.exec(line);
  return { timestamp: k ? k[1]! : null, host: null, tag: null, message: line.trimStart() };
}

/** RFC 5424: nil values ("-") become null; the message follows the structured data. */
function parse5424(raw: string, m: RegExpExecArray): ParsedLine {
  const nil = (v: string): string | null => (v === '-' ? null : v);
  const rest = raw.slice(m[0].length);
  const sdEnd = structuredDataEnd(rest);
  const message = rest.slice(sdEnd).replace(/^ /, '').replace(/^\uFEFF/, '').trimStart();
  return { timestamp: nil(m[1]!), host: nil(m[2]!), tag: nil(m[3]!), message };
}

/** Index just past the STRUCTURED-DATA field: "-" or [id k="v" …]… with \] escapes inside quotes. */
function structuredDataEnd(s: string): number {
  if (s.startsWith('-')) return 1;
  let i = 0;
  while (s[i] === '[') {
    let inQuote = false;
    for (i += 1; i < s.length; i += 1) {
      const c = s[i];
      if (inQuote && c === '\\') i += 1;
      else if (c === '"') inQuote = !inQuote;
      else if (c === ']' && !inQuote) break;
    }
    i += 1;
  }
  return Math.min(i, s.length);
}
