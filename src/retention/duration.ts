/**
 * Retention ages as an operator writes them: `30d`, `12h`, `90m`, `2w`, `45s`
 * (one whole or decimal number and one unit, no spaces). This module turns
 * the text into milliseconds and says exactly what it expected when it
 * cannot; it knows nothing about sessions.
 */

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export class DurationError extends Error {
  override name = 'DurationError';
}

/** Milliseconds of a duration such as `30d`; throws DurationError naming the text and the accepted forms. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!m || !(n > 0)) {
    throw new DurationError(`"${text}" is not an age; write a positive number and a unit: 90m, 12h, 30d, 2w (s, m, h, d, w)`);
  }
  return n * UNIT_MS[m[2]!]!;
}
