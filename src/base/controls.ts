/**
 * The characters a screen acts on instead of showing: the one list every
 * quoting of outside text reads, so the terminal's quoting (log-pretty.ts
 * `visible`), the answer's (providers/answer/words.ts `quote`) and a
 * template's check (sentence.ts) cannot disagree about what is dangerous.
 *
 * Two kinds. Line and device controls — C0, DEL, C1 (0x9b is a one-byte CSI)
 * and the Unicode line and paragraph separators — move the cursor, colour or
 * retitle a terminal, or forge a line. Bidirectional formatting characters —
 * the marks (U+200E, U+200F, U+061C), the embeddings and overrides
 * (U+202A–U+202E) and the isolates (U+2066–U+2069) — are invisible and
 * reorder the text around them on screen, so a value can make a sentence read
 * backwards or hide what follows it. Letters of right-to-left scripts are
 * data, not controls, and are not listed. This module only names them.
 */

/** Line and device controls: C0, DEL, C1, and U+2028/U+2029. */
export const LINE_CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029';

/** Invisible characters that reorder text on screen. */
export const BIDI_CONTROLS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** One character of either kind (global: for replace). */
export const UNSAFE_CHAR = new RegExp(`[${LINE_CONTROLS}${BIDI_CONTROLS}]`, 'g');

/** One character of either kind that JSON.stringify leaves raw (it escapes C0 itself; a raw C0 in its output is layout). */
export const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}]`, 'g');

/** True when `text` holds a character of either kind. */
export function hasUnsafeChar(text: string): boolean {
  return new RegExp(`[${LINE_CONTROLS}${BIDI_CONTROLS}]`).test(text);
}
