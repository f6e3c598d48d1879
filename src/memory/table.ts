/**
 * Plain-text tables for the memory commands — what a person reads in a terminal.
 *
 * Columns are padded to their widest cell (capped, with an ellipsis), numbers
 * align right, null prints as "-". It does not wrap or colour; `--json` is
 * the form for scripts.
 */

const MAX_CELL = 60;

/** One cell as text: null as "-", fractions to three decimals, long text cut. */
function cell(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '-';
  else if (typeof v === 'number') s = Number.isInteger(v) ? String(v) : v.toFixed(3);
  else if (typeof v === 'string') s = v;
  else s = JSON.stringify(v);
  s = s.replace(/\s+/g, ' ');
  return s.length > MAX_CELL ? `${s.slice(0, MAX_CELL - 1)}…` : s;
}

/** Render rows as an aligned table with a header; an empty list says so. */
export function formatTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(no rows)';
  const text = rows.map((r) => columns.map((c) => cell(r[c])));
  const numeric = columns.map((c) => rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === 'number'));
  const width = columns.map((c, i) => Math.max(c.length, ...text.map((t) => t[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((s, i) => (numeric[i] ? s.padStart(width[i]!) : s.padEnd(width[i]!))).join('  ').trimEnd();
  return [line([...columns]), line(width.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}
