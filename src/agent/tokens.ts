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

const PIECE = /[A-Za-z]+|[0-9]|[\t\n\r\f\v ]+|[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]|[^\x00-\x7f]|[\x00-\x08\x0e-\x1f\x7f]/gu;

/** The estimated token count of a text (see the module header for the rule). */
export function estimateTokens(text: string): number {
  let n = 0;
  PIECE.lastIndex = 0;
  for (let m = PIECE.exec(text); m !== null; m = PIECE.exec(text)) {
    const p = m[0];
    const c = p.charCodeAt(0);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) n += Math.ceil(p.length / 3);
    else if (c === 32 || (c >= 9 && c <= 13)) {
      // one space folded into the following word is free; everything else counts
      const next = text.charCodeAt(m.index + p.length);
      const foldable = p.endsWith(' ') && !Number.isNaN(next);
      n += p.length - (foldable ? 1 : 0);
    } else if (c < 128) n += 1;
    else n += Buffer.byteLength(p, 'utf8');
  }
  // sentencepiece vocabularies open every text with a word-start marker, a token of its own before a digit or a sign
  return text.length === 0 ? 0 : n + 1;
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
