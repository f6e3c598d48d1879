/**
 * `systemctl list-units --failed` → failed_units@1.
 *
 * Reads the table with or without its header and legend, with `--plain` or
 * with the "●" marker systemctl puts before a failed unit on a terminal. A row
 * is UNIT LOAD ACTIVE SUB DESCRIPTION; the description is the rest of the
 * line. The footer "N loaded units listed." is systemd's own count: kept as
 * `listed_count`, null when the capture has no footer (--no-legend), so a
 * table that was cut can be told from a whole one. Text that is no table at
 * all (no header, row or footer) gives failed_count null, not 0.
 */

export interface FailedUnit {
  unit: string;
  load: string;
  active: string;
  sub: string;
  description: string | null;
}

export interface FailedUnits {
  failed_count: number | null;
  listed_count: number | null;
  units: FailedUnit[];
}

const LOAD_STATES = 'loaded|not-found|bad-setting|error|masked|merged|stub';
const ROW = new RegExp(`^\\s*(?:[●*×]\\s+)?(\\S+)\\s+(${LOAD_STATES})\\s+(\\S+)\\s+(\\S+)(?:\\s+(\\S.*?))?\\s*$`);
const FOOTER = /^(\d+) loaded units? listed\b/;

/** Parse one `systemctl --failed` capture. */
export function parseFailedUnits(text: string): FailedUnits {
  const units: FailedUnit[] = [];
  let listed: number | null = null;
  let header = false;
  for (const line of text.split('\n')) {
    const f = FOOTER.exec(line.trim());
    if (f) { listed = Number(f[1]); continue; }
    if (/^\s*UNIT\s+LOAD\s+ACTIVE\s+SUB\b/.test(line)) { header = true; continue; }
    const m = ROW.exec(line);
    if (!m || m[1] === 'UNIT' || /^[A-Z]+$/.test(m[1]!)) continue; // header and legend ("LOAD   = ...") lines
    units.push({ unit: m[1]!, load: m[2]!, active: m[3]!, sub: m[4]!, description: m[5] ?? null });
  }
  // Not a systemctl table at all (no header, no footer, no row): the count is unknown, not zero.
  const table = header || listed !== null || units.length > 0;
  return { failed_count: table ? units.length : null, listed_count: listed, units };
}
