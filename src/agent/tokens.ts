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
 *   - a run of ASCII letters of length L costs ceil(L / 3);
 *   - every digit costs 1 (llama and gemma split numbers into digits);
 *   - every ASCII punctuation or symbol character costs 1;
 *   - one space before a word is free (vocabularies fold it into the word),
 *     every other whitespace character (extra spaces, tabs, newlines) costs 1;
 *   - every other character costs its UTF-8 byte count (byte fallback is the
 *     worst case for CJK, emoji and accented letters);
 *   - a non-empty text costs 1 more (the word-start marker a sentencepiece
 *     tokenizer puts first, its own token before a digit or a sign).
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
      n += Math.ceil((j - i) / 3);
      i = j;
    } else if (k === SPACE) {
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (d >= 128 || CLASS[d] !== SPACE) break;
        j++;
      }
      // one space folded into the word after it is free; everything else counts
      n += j - i - (j < len && text.charCodeAt(j - 1) === 32 ? 1 : 0);
      i = j;
    } else {
      n += 1; // a digit or a sign
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
