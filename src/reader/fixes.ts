/**
 * Named fixes. Every repair the ladder makes is recorded as one sentence
 * ("renamed maxResults -> max_results") tagged with the rung that made it, so
 * the ledger can list what happened and confidence can price it. This module
 * owns the rung vocabulary and the cost of each rung; it applies no repairs.
 */

export const RUNGS = [
  'extract', 'syntax', 'bracket', 'truncate', 'bare', 'quote', 'call', 'shape', 'positional',
  'raw', 'keys', 'drop', 'coerce', 'wrap', 'pluck', 'collect', 'block', 'enum', 'prose', 'defaults',
] as const;
export type Rung = (typeof RUNGS)[number];

export interface Fix {
  rung: Rung;
  text: string;
}

/**
 * The cost of one fix of each rung: the one table that prices every reading.
 * When several readings of a text (or several alignments of one reading)
 * settle, the one with the lowest summed cost wins; confidence.ts turns the
 * sum into a score, so a value read by heavy guesses (an enum picked out of
 * prose, a quote taken for part of a string) can fall below a provider's
 * confidence floor and be sent back. Mechanical fixes cost little; guesses
 * about what the model meant cost much.
 *
 *   rung        cost  a fix of this rung…
 *   extract     0.05  took the value out of prose, a fence or a tag
 *   syntax      0.06  mended one kind of syntax: quotes, Python literals, a comma, a comment
 *   bracket     0.15  closed a bracket the text left open before closing an outer one
 *   truncate    0.20  closed output that was cut off (strings, brackets, a literal)
 *   bare        0.15  read unquoted words as a string value
 *   quote       0.30  decided that a quote was part of a string, from the text after it
 *   call        0.03  read Python call syntax
 *   shape       0.04  read a tool call from another envelope (function/parameters, OpenAI, tags)
 *   positional  0.12  mapped positional call arguments onto declared parameters
 *   raw         0.10  took the raw text as the string
 *   keys        0.06  renamed a key (case, separators, a near miss)
 *   drop        0.05  dropped an unknown key of a closed object
 *   coerce      0.05  changed a type the text plainly meant ("5" -> 5), unwrapped one element
 *   wrap        0.15  wrapped a bare value into an object's one required field
 *   pluck       0.20  took the one value of a one-key object where a scalar is wanted
 *   collect     0.10  gathered several values of the text into the array the schema wants
 *   block       0.04  read a code block or triple-quoted string as a value (dedented, trimmed)
 *   enum        0.08  matched an enum or const member written differently
 *   prose       0.35  read a scalar or an enum member out of prose; a reading that
 *                     passed over a negated mention pays it twice
 *   defaults    0.02  filled a schema default
 */
export const FIX_COST: Record<Rung, number> = {
  extract: 0.05,
  syntax: 0.06,
  bracket: 0.15,
  truncate: 0.2,
  bare: 0.15,
  quote: 0.3,
  call: 0.03,
  shape: 0.04,
  positional: 0.12,
  raw: 0.1,
  keys: 0.06,
  drop: 0.05,
  coerce: 0.05,
  wrap: 0.15,
  pluck: 0.2,
  collect: 0.1,
  block: 0.04,
  enum: 0.08,
  prose: 0.35,
  defaults: 0.02,
};

/** The summed cost of a list of fixes. */
export function costOf(fixes: readonly Fix[]): number {
  let sum = 0;
  for (const f of fixes) sum += FIX_COST[f.rung];
  return sum;
}

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
