/**
 * The unit_log capture → unit_log@1: one unit's last log lines, with how it
 * last ended and how often systemd restarted it.
 *
 * Sections of the unit_log script: "== unit" (the name asked for), "== show"
 * (`systemctl show` of the unit's state, then "== show exit RC") and
 * "== journal" (`journalctl -o short-iso -n N -u UNIT`, each line cut at 400
 * characters). The state is read by the systemd-units parser, so both tools
 * say a unit's state alike; ExecMainCode is decoded here (1 exited, 2 killed
 * by a signal, 3 dumped core — then ExecMainStatus is the signal's number).
 * systemd not running (no systemd as PID 1, no bus) and no journal, an
 * unreadable journal or an empty one are told apart by the programs' own
 * words and said as such; they are never read as "nothing happened". A
 * journal that shows only the user's own messages (journalctl's hint) and no
 * line of the unit is unreadable, not empty: the unit's lines are in the
 * system journal.
 */
import { sections } from '../lib/sections.js';
import { int } from '../lib/single-schema.js';
import { parseUnitShow } from '../systemd-units/show.js';

export interface LogLine {
  at: string | null;
  text: string;
}

export interface UnitLog {
  unit: string | null;
  systemd: boolean | null;
  found: boolean | null;
  active_state: string | null;
  sub_state: string | null;
  result: string | null;
  failed: boolean | null;
  exit_kind: 'exited' | 'killed' | 'dumped' | null;
  exit_status: number | null;
  restarts: number | null;
  changed_at: string | null;
  journal: 'read' | 'empty' | 'none' | 'unreadable' | 'not_installed' | null;
  lines: LogLine[];
}

/** Most log lines kept in the fact. */
export const MAX_LINES = 50;
const EXIT_KINDS = { 1: 'exited', 2: 'killed', 3: 'dumped' } as const;
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:?\d\d|Z))\s+\S+\s+(.*)$/;

/** Parse one unit_log capture. */
export function parseUnitLog(text: string): UnitLog {
  const s = sections(text);
  const showLines = s.get('show') ?? [];
  const showText = showLines.join('\n');
  const showExit = [...s.keys()].find((k) => k.startsWith('show exit '));
  const noSystemd = /not been booted with systemd|Failed to connect to bus|systemctl: not installed/.test(showText);
  const st = parseUnitShow(showText);
  const code = int(/^ExecMainCode=(\d+)$/m.exec(showText)?.[1]);
  const journalLines = s.get('journal') ?? [];
  const all = journalLines.join('\n');
  const lines: LogLine[] = [];
  for (const raw of journalLines) {
    if (raw.trim() === '' || /^-- .* --$/.test(raw) || /^(Hint|No journal files|journalctl: not installed)|^ {6}/.test(raw)) continue;
    const m = ISO.exec(raw);
    lines.push(m ? { at: m[1]!, text: m[2]! } : { at: null, text: raw });
  }
  // journalctl's hint (or the script's, where journalctl runs as root in a user namespace and gives
  // none): the system journal, where a service's lines are, was not read; no line is not "empty"
  const ownOnly = /not seeing messages from other users and the system/.test(all);
  const journal: UnitLog['journal'] = /journalctl: not installed/.test(all) ? 'not_installed'
    : /No journal files were found/.test(all) ? 'none'
    : /insufficient permissions|No journal files were opened/.test(all) ? 'unreadable'
    : lines.length > 0 ? 'read'
    : ownOnly ? 'unreadable'
    : /-- No entries --/.test(all) ? 'empty' : null;
  return {
    unit: st.unit ?? (s.get('unit') ?? []).find((l) => l !== '') ?? null,
    systemd: noSystemd ? false : showExit === undefined ? null : st.load_state !== null,
    found: st.found,
    active_state: st.active_state,
    sub_state: st.sub_state,
    result: st.result,
    failed: st.failed,
    exit_kind: code !== null && code in EXIT_KINDS ? EXIT_KINDS[code as keyof typeof EXIT_KINDS] : null,
    exit_status: st.exit_status,
    restarts: st.restarts,
    changed_at: st.state_changed_at,
    journal,
    lines: lines.slice(-MAX_LINES),
  };
}
