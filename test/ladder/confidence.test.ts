/** Issue 4 §4: confidence is a multi-signal score on every accepted fact. */
import { describe, expect, it } from 'vitest';
import { compileSchema, runLadder } from '../../src/ladder/index.js';

const schema = compileSchema({ type: 'object', required: ['a', 'b'], properties: { a: { type: ['integer', 'null'] }, b: { type: ['string', 'null'] } } });

function score(text: string, opts = {}): number {
  const r = runLadder({ text }, schema, opts);
  if (!r.ok) throw new Error(r.error);
  return r.confidence!;
}

describe('confidence', () => {
  it('every accepted value carries a confidence in [0, 1]', () => {
    const s = score('{"a": 1, "b": "x"}');
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThanOrEqual(1);
  });

  it('a strict valid value scores higher than the same value after repairs', () => {
    expect(score('{"a": 1, "b": "x"}')).toBeGreaterThan(score('Sure: ```json\n{"A": "1", "b": "x",}\n```'));
  });

  it('null required fields lower the score (completeness)', () => {
    expect(score('{"a": 1, "b": "x"}')).toBeGreaterThan(score('{"a": null, "b": "x"}'));
    expect(score('{"a": null, "b": "x"}')).toBeGreaterThan(score('{"a": null, "b": null}'));
  });

  it('a poor history or a low provider confidence lowers the score; an unknown one is not a low one', () => {
    const base = score('{"a": 1, "b": "x"}');
    expect(score('{"a": 1, "b": "x"}', { history: 0.2 })).toBeLessThan(base);
    expect(score('{"a": 1, "b": "x"}', { providerConfidence: 0.1 })).toBeLessThan(base);
    expect(score('{"a": 1, "b": "x"}', { history: null })).toBe(base);
  });
});
