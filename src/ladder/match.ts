/**
 * Name matching for repairs: keys, enum values and tool names written a
 * little differently from the schema ("maxResults" for "max_results",
 * "Warning " for "warning", "serch_web" for "search_web").
 *
 * Two strengths: `sameName` (only case, separators and whitespace differ —
 * always safe) and `nearName` (a small edit distance — used only when exactly
 * one candidate is that near). Nothing here guesses between two candidates:
 * an ambiguous match is no match.
 */

/** Fold case, accents, separators and whitespace: "Max Results", "maxResults", "max_results" all give "maxresults"; "Résumé" gives "resume". */
export function foldName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = /^[\x00-\x7f]*$/.test(name) ? name : name.normalize('NFD').replace(/\p{M}+/gu, '');
  return plain.toLowerCase().replace(/[\s_\-.]+/g, '');
}

/** Optimal-string-alignment distance (edits incl. adjacent swaps), stopping early above `limit`. */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    rows.push(row);
  }
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
      if (d < best) best = d;
    }
    if (best > limit) return limit + 1;
  }
  return rows[a.length]![b.length]!;
}

/** How many edits a name of this length may carry and still count as a near miss. */
export function nearLimit(length: number): number {
  return length <= 3 ? 0 : length <= 8 ? 1 : 2;
}

/** The one candidate equal to `name` after folding, or null (none or several). */
export function sameName(name: string, candidates: readonly string[]): string | null {
  const folded = foldName(name);
  const hits = candidates.filter((c) => foldName(c) === folded);
  return hits.length === 1 ? hits[0]! : null;
}

/** The one candidate within a small edit distance of `name` (after folding), or null. */
export function nearName(name: string, candidates: readonly string[]): string | null {
  const folded = foldName(name);
  let best: string | null = null;
  let bestDistance = Infinity;
  let tie = false;
  for (const c of candidates) {
    const fc = foldName(c);
    const limit = nearLimit(Math.min(fc.length, folded.length));
    if (limit === 0) continue;
    const d = editDistance(folded, fc, limit);
    if (d > limit) continue;
    if (d < bestDistance) { best = c; bestDistance = d; tie = false; }
    else if (d === bestDistance) tie = true;
  }
  return tie ? null : best;
}
