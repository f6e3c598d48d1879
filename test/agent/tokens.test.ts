// Token counting for budgets: an estimator that needs no model and over-counts, and an exact adapter.
// The model tests use the tiny real GGUF files in ../shared/models and skip with a message when absent.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, estimator, modelCounter } from '../../src/agent/tokens.js';

const SHARED = path.resolve(import.meta.dirname, '../../../shared');
const LLAMA2 = path.join(SHARED, 'models/llama-2-tiny-random.gguf');
const STORIES = path.join(SHARED, 'models/stories260K.gguf');
const CORPORA = ['ladder-dev.json', 'toolcalls-dev.json'].map((f) => path.join(SHARED, 'corpora', f));
const HAVE = existsSync(LLAMA2) && existsSync(STORIES) && CORPORA.every((p) => existsSync(p));
if (!HAVE) console.warn(`[test/agent/tokens] skipping tokenizer comparisons: ${SHARED} lacks models/llama-2-tiny-random.gguf, models/stories260K.gguf or the corpora`);

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples/data');

/** Every input text and schema of the two dev corpora. */
function corpusTexts(): string[] {
  const out: string[] = [];
  for (const p of CORPORA) {
    for (const c of JSON.parse(readFileSync(p, 'utf8')) as { input: string; schema: unknown }[]) out.push(c.input, JSON.stringify(c.schema));
  }
  return out.filter((t) => t.length > 0);
}

describe('estimator', () => {
  it('follows its documented rule: prose words by fours, identifier pieces by threes, jargon by twos, digits one each', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('disk')).toBe(1 + 1); // start marker + ceil(4/4)
    expect(estimateTokens('disk full')).toBe(1 + 1 + 1); // the space before a letter is folded
    expect(estimateTokens('sshd')).toBe(1 + 2); // jargon: no vowel
    expect(estimateTokens('NetworkManager')).toBe(1 + 3 + 3); // two camelCase parts, identifier pieces
    expect(estimateTokens('error_count')).toBe(1 + 2 + 1 + 2);
    expect(estimateTokens('12.5%')).toBe(1 + 5);
    expect(estimateTokens('port 22')).toBe(1 + 1 + 1 + 2); // a space before a digit counts
    expect(estimateTokens('{"a":1}')).toBe(1 + 2 + 1 + 2 + 1 + 1); // sign runs cost two thirds of their length
    expect(estimateTokens('a\n\n  b')).toBe(1 + 1 + 3 + 1);
    expect(estimateTokens('磁盘')).toBe(1 + 6); // UTF-8 bytes
    expect(estimator.exact).toBe(false);
  });

  it('is deterministic and grows with the text', () => {
    const t = 'Mar  3 10:15:07 web01 nginx[812]: error: upstream timed out';
    expect(estimateTokens(t)).toBe(estimateTokens(t));
    expect(estimateTokens(t + t)).toBeGreaterThan(estimateTokens(t));
  });
});

describe.skipIf(!HAVE)('estimator against real tokenizers', () => {
  // node-llama-cpp is loaded only when the files exist
  let llama: Awaited<ReturnType<typeof import('node-llama-cpp')['getLlama']>>;
  let llama2: Awaited<ReturnType<typeof llama.loadModel>>;
  let stories: Awaited<ReturnType<typeof llama.loadModel>>;
  beforeAll(async () => {
    const { getLlama } = await import('node-llama-cpp');
    llama = await getLlama({ gpu: false, build: 'never' });
    llama2 = await llama.loadModel({ modelPath: LLAMA2 });
    stories = await llama.loadModel({ modelPath: STORIES });
  });
  afterAll(async () => {
    await llama2?.dispose();
    await stories?.dispose();
  });

  // llama-2-tiny-random has random weights but llama-2's own 32,000-token vocabulary, the smallest
  // vocabulary among the small instruction models the project targets (larger vocabularies cut fewer tokens).
  it("the estimator never counts fewer tokens than the model's tokenizer on the ladder corpus texts (llama-2 vocabulary)", () => {
    const texts = corpusTexts();
    expect(texts.length).toBeGreaterThan(600);
    const under: string[] = [];
    let est = 0;
    let real = 0;
    for (const t of texts) {
      const e = estimateTokens(t);
      const r = llama2.tokenize(t).length;
      est += e;
      real += r;
      if (e < r) under.push(`${e} < ${r}: ${JSON.stringify(t.slice(0, 80))}`);
    }
    console.log(`estimator / llama-2 tokenizer over ${texts.length} corpus texts: ${(est / real).toFixed(3)} (${est} / ${real} tokens)`);
    expect(under, under.join('\n')).toEqual([]);
  });

  it('the estimator never counts fewer tokens than the llama-2 tokenizer on 300-character pieces of the example log and df capture', () => {
    const under: string[] = [];
    for (const f of ['syslog.txt', 'df.txt']) {
      const text = readFileSync(path.join(EXAMPLES, f), 'utf8');
      for (let i = 0; i < text.length; i += 300) {
        const piece = text.slice(i, i + 300);
        const e = estimateTokens(piece);
        const r = llama2.tokenize(piece).length;
        if (e < r) under.push(`${f}@${i}: ${e} < ${r}`);
      }
    }
    expect(under, under.join('\n')).toEqual([]);
  });

  it("the model counter counts exactly the model's tokens, which for a 512-token vocabulary exceed the estimate", () => {
    const counter = modelCounter(stories);
    expect(counter.exact).toBe(true);
    const texts = corpusTexts();
    let est = 0;
    let real = 0;
    for (const t of texts) {
      const n = counter.count(t);
      expect(n).toBe(stories.tokenize(t).length);
      est += estimateTokens(t);
      real += n;
    }
    console.log(`estimator / stories260K tokenizer (512-token vocabulary) over ${texts.length} corpus texts: ${(est / real).toFixed(3)}`);
    // the documented limit of the estimator: a tiny vocabulary cuts words into letters, so use the model's counter
    expect(est).toBeLessThan(real);
  });
});
