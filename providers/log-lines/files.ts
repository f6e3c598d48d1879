/**
 * Entries of a plain log file, with the level each line states by its
 * format's own structure.
 *
 * Formats are told apart by the shape of their lines, never by the file's
 * name: dpkg's action log (`2024-03-03 14:00:05 status installed foo:arm64
 * 1.2-1`), apt's history (`Key: value` stanzas), apt's terminal log
 * (`Log started: …` around dpkg's own output), update-alternatives' log, and
 * everything else line by line — syslog, the kernel ring as text and
 * application logs — through the line anatomy log_summary@2's parser
 * already knows (providers/log-summary/line.ts) plus the level a line states:
 * a `<PRI>`, a level column or key (heads.ts), a known program's fixed
 * message (known-forms.ts), else none.
 *
 * dpkg.log states no level at all; its failures are in its status words: a
 * package whose last status in the window is half-installed or
 * half-configured was left broken by a failed unpack or configure (dpkg(1),
 * "Package states"), so that line is an error and every other line info.
 * apt's history.log marks a failed run with its `Error:` key.
 */
import { parseLine } from '../log-summary/line.js';
import { headLevel, keyedLevel } from './heads.js';
import { knownFormLevel } from './known-forms.js';
import type { Entry } from './journal.js';

export type FileFormat = 'dpkg' | 'apt_history' | 'apt_term' | 'alternatives' | 'lines';

const DPKG = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (startup|install|upgrade|remove|purge|configure|trigproc|status|conffile) (.*)$/;
const APT_KEY = /^(Start-Date|Commandline|Requested-By|Install|Reinstall|Upgrade|Downgrade|Remove|Purge|End-Date|Error): ?(.*)$/;
const TERM_FRAME = /^Log (started|ended): (\d{4}-\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2})$/;
const OWN_TAG = /^([A-Za-z][\w.-]{0,40})\[\d+\]: /;
const ALTERNATIVES = /^(update-alternatives) (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}): (.*)$/;

/** Which format a file's lines are in: the one most of its lines fit, else line by line. */
export function fileFormat(lines: readonly string[]): FileFormat {
  const n = lines.length;
  if (n === 0) return 'lines';
  const share = (re: RegExp) => lines.filter((l) => re.test(l)).length / n;
  if (share(DPKG) >= 0.6) return 'dpkg';
  if (lines.some((l) => TERM_FRAME.test(l))) return 'apt_term';
  if (share(APT_KEY) >= 0.6) return 'apt_history';
  if (share(ALTERNATIVES) >= 0.6) return 'alternatives';
  return 'lines';
}

/** The level one ordinary log line states, by its structure; null when it states none. */
export function lineEntry(raw: string): Entry {
  const p = parseLine(raw);
  let message = p.message;
  // "prog[pid]: message" where the host column was left out; a ring-buffer offset with no tag is the kernel
  const own = p.tag === null ? OWN_TAG.exec(message) : null;
  if (own) message = message.slice(own[0].length);
  const tag = p.tag ?? own?.[1] ?? (/^\[\s*\d+\.\d+\]$/.test(p.timestamp ?? '') ? 'kernel' : null);
  const level = headLevel(raw.replace(/^\s+/, '')) ?? headLevel(message) ?? keyedLevel(raw) ?? knownFormLevel(tag, message);
  return { at: p.timestamp, host: p.host, source: tag, level, text: message };
}

/** dpkg.log: every record is info, except the status that leaves a package broken at the window's end. */
function dpkgEntries(lines: readonly string[]): Entry[] {
  const lastStatus = new Map<string, number>();
  const rows = lines.map((raw, i) => {
    const m = DPKG.exec(raw);
    if (!m) return { raw, m: null as RegExpExecArray | null };
    if (m[2] === 'status') lastStatus.set(m[3]!.split(' ')[1] ?? '', i);
    return { raw, m };
  });
  return rows.map(({ raw, m }, i) => {
    if (!m) return lineEntry(raw);
    const [state, pkg] = m[3]!.split(' ');
    const broken = m[2] === 'status' && (state === 'half-installed' || state === 'half-configured') && lastStatus.get(pkg ?? '') === i;
    return { at: m[1]!, host: null, source: 'dpkg', level: broken ? 'err' : 'info', text: `${m[2]} ${m[3]}` };
  });
}

/** apt's history.log: stanzas of keys; a stanza's lines take its Start-Date; `Error:` is an error. */
function aptHistoryEntries(lines: readonly string[]): Entry[] {
  let at: string | null = null;
  return lines.map((raw) => {
    const m = APT_KEY.exec(raw);
    if (!m) return lineEntry(raw);
    if (m[1] === 'Start-Date') at = m[2]!.trim();
    return { at, host: null, source: 'apt', level: m[1] === 'Error' ? 'err' : 'info', text: raw };
  });
}

/** apt's term.log: dpkg's and apt's own lines state their level; maintainer scripts' output states none. */
function aptTermEntries(lines: readonly string[]): Entry[] {
  let at: string | null = null;
  return lines.map((raw) => {
    const frame = TERM_FRAME.exec(raw);
    if (frame) {
      at = frame[2]!;
      return { at, host: null, source: 'apt', level: 'info', text: raw };
    }
    const level = headLevel(raw) ?? knownFormLevel(null, raw);
    return { at, host: null, source: null, level, text: raw };
  });
}

/** update-alternatives' log: "update-alternatives DATE TIME: message". */
function alternativesEntries(lines: readonly string[]): Entry[] {
  return lines.map((raw) => {
    const m = ALTERNATIVES.exec(raw);
    if (!m) return lineEntry(raw);
    return { at: m[2]!, host: null, source: m[1]!, level: headLevel(m[3]!) ?? 'info', text: m[3]! };
  });
}

/** The entries of a plain log file, in file order. */
export function fileEntries(lines: readonly string[]): { format: FileFormat; entries: Entry[] } {
  const format = fileFormat(lines);
  const entries = format === 'dpkg' ? dpkgEntries(lines)
    : format === 'apt_history' ? aptHistoryEntries(lines)
    : format === 'apt_term' ? aptTermEntries(lines)
    : format === 'alternatives' ? alternativesEntries(lines)
    : lines.map(lineEntry);
  return { format, entries };
}
