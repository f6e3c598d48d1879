/**
 * Plain-text tables for the memory commands — what a person reads in a terminal.
 *
 * Columns are padded to their widest cell, numbers align right, null prints
 * as "-". A long cell is cut at 60 characters (with an ellipsis) unless its
 * column is named `whole` (advice a person must be able to follow is never
 * cut), and a table with a cut cell ends with a line saying so and that
 * `--json` prints every value whole. It does not wrap or colour; `--json`
 * is the form for scripts.
 */

const MAX_CELL = 60;

/** One cell as text: null as "-", fractions to three decimals, whitespace runs as one space. */
function cell(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '-';
  else if (typeof v === 'number') s = Number.isInteger(v) ? String(v) : v.toFixed(3);
  else if (typeof v === 'string') s = v;
  else s = JSON.stringify(v);
  return s.replace(/\s+/g, ' ');
}

/** Render rows as an aligned table with a header; an empty list says so. */
export function formatTable(columns: readonly string[], rows: readonly Record<string, unknown>[], opts: { whole?: readonly string[] } = {}): string {
  if (rows.length === 0) return '(no rows)';
  let cut = 0;
  const text = rows.map((r) => columns.map((c) => {
    const s = cell(r[c]);
    if (s.length <= MAX_CELL || opts.whole?.includes(c)) return s;
    cut++;
    return `${s.slice(0, MAX_CELL - 1)}…`;
  }));
  const numeric = columns.map((c) => rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === 'number'));
  const width = columns.map((c, i) => Math.max(c.length, ...text.map((t) => t[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((s, i) => (numeric[i] ? s.padStart(width[i]!) : i === cells.length - 1 ? s : s.padEnd(width[i]!))).join('  ').trimEnd();
  const out = [line([...columns]), line(width.map((w) => '-'.repeat(w))), ...text.map(line)];
  if (cut > 0) out.push(`(${cut} value${cut === 1 ? '' : 's'} cut at ${MAX_CELL} characters (…); --json prints every value whole)`);
  return out.join('\n');
}
