/**
 * Token counting for budgets: how many tokens a text costs a model.
 *
 * A budget the runtime enforces needs a count before a model is loaded (the
 * planner prompt is fitted before the provider is chosen), so there are two
 * counters behind one interface. `modelCounter` asks a loaded model's own
 * tokenizer and is exact. `estimator` is a deterministic rule that needs no
 * model and is built to over-count rather than under-count for the
 * vocabularies small instruction models use (llama-2/TinyLlama 32k, SmolLM
 * 49k, llama-3 128k, Qwen 152k, gemma 262k): a budget that over-counts leaves
 * a little room unused, one that under-counts overflows the context.
 *
 * The estimator's rule, piece by piece (a piece is a maximal run of one class):
 *   - a run of ASCII letters is cut into its camelCase parts; a part of length
 *     L costs ceil(L / 2) when it looks like jargon (fewer than one vowel in
 *     four, y counting, or four consonants in a row: `mmcblk`, `sshd`,
 *     `brcmfmac`), else ceil(L / 4) when the run is a prose word (one part,
 *     lower-case after its first letter, after whitespace, a bracket or a
 *     quote or at the start, and before no letter, digit or `_`), else
 *     ceil(L / 3) (identifier pieces);
 *   - every digit costs 1 (llama and gemma split numbers into digits);
 *   - a run of m ASCII punctuation or symbol characters costs ceil(2m / 3);
 *   - one space before a letter is free (vocabularies fold it into the word)
 *     except at the very start; every other whitespace character (a space
 *     before a digit or a sign, extra spaces, tabs, newlines) costs 1;
 *   - every other character costs its UTF-8 byte count (byte fallback is the
 *     worst case for CJK, emoji and accented letters);
 *   - a non-empty text costs 1 more (the word-start marker a sentencepiece
 *     tokenizer puts first, its own token before a digit or a sign).
 * Measured against llama-2's tokenizer (test/agent/tokens.test.ts) it counts
 * about 1.3–1.5× the real tokens on English prose and code, 1.5–1.7× on JSON,
 * and never fewer on any text of the dev corpora. A single rare word can
 * still cost one token more than estimated (`rsyslogd`, `ttyAMA0`); the
 * surplus elsewhere in a text covers it.
 * It does not know a tokenizer with a tiny vocabulary (stories260K's 512
 * tokens cut words into letters): for such a model use `modelCounter`.
 */

export interface TokenCounter {
  count(text: string): number;
  /** true when the count is the model's own tokenizer's, false for an estimate */
  readonly exact: boolean;
}

// Character classes for the scan: letter, digit, whitespace, ASCII sign, other.
const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const SIGN = 4;
const CLASS = new Uint8Array(128).map((_, c) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? LETTER
    : c >= 48 && c <= 57 ? DIGIT
      : c === 32 || (c >= 9 && c <= 13) ? SPACE
        : SIGN);

// What may stand before a prose word: nothing, whitespace, an opening bracket or a quote.
const PROSE_BEFORE = new Set([32, 9, 10, 13, 40, 34, 39, 96]);
const isVowel = (c: number) => c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || c === 121;

/** The cost of one camelCase part text[s..e) of a letter run text[i..j). */
function partCost(text: string, s: number, e: number, i: number, j: number): number {
  const len = e - s;
  let vowels = 0;
  let run = 0;
  let maxRun = 0;
  let innerUpper = false;
  for (let x = s; x < e; x++) {
    const c = text.charCodeAt(x) | 32;
    if (isVowel(c)) {
      vowels++;
      run = 0;
    } else if (++run > maxRun) maxRun = run;
    if (x > s && text.charCodeAt(x) < 97) innerUpper = true;
  }
  if (len >= 2 && (vowels * 4 < len || maxRun >= 4)) return Math.ceil(len / 2);
  let prose = s === i && e === j && !innerUpper && (i === 0 || PROSE_BEFORE.has(text.charCodeAt(i - 1)));
  if (prose && j < text.length) {
    const d = text.charCodeAt(j);
    prose = d < 128 && CLASS[d] !== DIGIT && d !== 95;
  }
  return Math.ceil(len / (prose ? 4 : 3));
}

/** The cost of the letter run text[i..j): the sum of its camelCase parts. */
function letterCost(text: string, i: number, j: number): number {
  let n = 0;
  let s = i;
  for (let x = i + 1; x < j; x++) {
    const c = text.charCodeAt(x);
    if (c < 97 && text.charCodeAt(x - 1) >= 97) {
      n += partCost(text, s, x, i, j);
      s = x;
    }
  }
  return n + partCost(text, s, j, i, j);
}

/** The estimated token count of a text (see the module header for the rule); one pass over its UTF-16 code units. */
export function estimateTokens(text: string): number {
  const len = text.length;
  if (len === 0) return 0;
  let n = 1; // the word-start marker
  let i = 0;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c >= 128) {
      // UTF-8 bytes: 2 below U+0800, 4 for a surrogate pair (counted on its first half), else 3
      n += c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
      i++;
      continue;
    }
    const k = CLASS[c]!;
    if (k === LETTER) {
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (d >= 128 || CLASS[d] !== LETTER) break;
        j++;
      }
      n += letterCost(text, i, j);
      i = j;
    } else if (k === SPACE) {
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (d >= 128 || CLASS[d] !== SPACE) break;
        j++;
      }
      // one space folded into the letter after it is free (not at the start); everything else counts
      const fold = i > 0 && j < len && text.charCodeAt(j - 1) === 32 && text.charCodeAt(j) < 128 && CLASS[text.charCodeAt(j)] === LETTER;
      n += j - i - (fold ? 1 : 0);
      i = j;
    } else if (k === SIGN) {
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (d >= 128 || CLASS[d] !== SIGN) break;
        j++;
      }
      n += Math.ceil((2 * (j - i)) / 3);
      i = j;
    } else {
      n += 1; // a digit
      i++;
    }
  }
  return n;
}

/** The estimator as a counter: deterministic, needs no model, not exact. */
export const estimator: TokenCounter = { count: estimateTokens, exact: false };

/** What the adapter needs of a loaded model: node-llama-cpp's `LlamaModel` has it. */
export interface Tokenizes {
  tokenize(text: string): ArrayLike<unknown>;
}

/**
 * An exact counter over a loaded model's tokenizer. The count is of the text's
 * own tokens: the BOS token and the chat template's tokens are the caller's to
 * add (they are the same for every prompt of a model).
 */
export function modelCounter(model: Tokenizes): TokenCounter {
  return { count: (text) => model.tokenize(text).length, exact: true };
}
