/**
 * Named fixes. Every repair the ladder makes is recorded as one sentence
 * ("renamed maxResults -> max_results") tagged with the rung that made it, so
 * the ledger can list what happened and confidence can price it. This module
 * owns the rung vocabulary and the cost of each rung; it applies no repairs.
 */

export const RUNGS = ['extract', 'syntax', 'raw', 'keys', 'drop', 'coerce', 'enum', 'defaults'] as const;
export type Rung = (typeof RUNGS)[number];

export interface Fix {
  rung: Rung;
  text: string;
}

/** Confidence cost of one fix of each rung (see confidence.ts): cheap, mechanical fixes cost little. */
export const FIX_COST: Record<Rung, number> = {
  extract: 0.05,
  syntax: 0.12,
  raw: 0.1,
  keys: 0.06,
  drop: 0.05,
  coerce: 0.05,
  enum: 0.08,
  defaults: 0.02,
};

/** A data path for fix sentences: "arguments.max_results", "tags[0]", or "value" for the root. */
export function pathLabel(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'value';
  let out = typeof path[0] === 'number' ? 'value' : '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** The texts of a fix list, in order. */
export function fixTexts(fixes: readonly Fix[]): string[] {
  return fixes.map((f) => f.text);
}
