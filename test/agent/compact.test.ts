// Compaction cuts a tool's output to a token budget before a model reads it, and says what it cut (design §9).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactOutput } from '../../src/agent/compact.js';
import { cutMarker, isFailureLine } from '../../src/agent/compact-lines.js';
import { estimator, modelCounter, type TokenCounter } from '../../src/agent/tokens.js';
import { journal } from './fixtures/logs.js';

const MARKER = /^\[… [\d,]+ lines? cut: (\d+)\.\.(\d+) …\]$/;

/** Walk the compacted text against the input: each line is the next input line or a marker for exactly the missing run. */
function replay(input: string, out: string): { from_line: number; to_line: number }[] {
  const src = input.replace(/\n$/, '').split('\n');
  const cuts: { from_line: number; to_line: number }[] = [];
  let at = 0;
  for (const line of out.replace(/\n$/, '').split('\n')) {
    const m = MARKER.exec(line);
    if (m && Number(m[1]) === at + 1) {
      cuts.push({ from_line: Number(m[1]), to_line: Number(m[2]) });
      expect(line).toBe(cutMarker(Number(m[1]), Number(m[2])));
      at = Number(m[2]);
    } else {
      expect(line, `output line should be input line ${at + 1}`).toBe(src[at]);
      at++;
    }
  }
  expect(at).toBe(src.length);
  return cuts;
}

function bigJson(): string {
  return JSON.stringify({
    host: 'pi5',
    units: Array.from({ length: 400 }, (_, i) => ({ name: `svc-${i}.service`, state: i % 37 === 0 ? 'failed' : 'active', description: `Service number ${i} `.repeat(8), pids: [i, i + 1, i + 2] })),
    note: 'x'.repeat(5000),
    summary: { total: 400, failed: 11 },
  }, null, 2);
}

describe('compactOutput on logs', () => {
  const { text, failures } = journal(3000);

  it('compaction keeps every error line and says what it cut', () => {
    const { text: out, record } = compactOutput(text, 3000, estimator);
    expect(record).toMatchObject({ kind: 'log', compacted: true, budget_tokens: 3000, exact: false, failure_lines: { total: failures.length, kept: failures.length } });
    expect(record.kept_tokens).toBeLessThanOrEqual(3000);
    expect(record.kept_tokens).toBe(estimator.count(out));
    expect(record.original_bytes).toBe(Buffer.byteLength(text));
    expect(record.kept_bytes).toBe(Buffer.byteLength(out));
    const src = text.split('\n');
    for (const i of failures) expect(out).toContain(src[i]);
    expect(replay(text, out)).toEqual(record.cut);
    const cutLines = record.cut.reduce((n, c) => n + c.to_line - c.from_line + 1, 0);
    expect(out.split('\n').length - 1 - record.cut.length + cutLines).toBe(3000);
    // the head and the tail are there too
    expect(out.startsWith(src[0]! + '\n')).toBe(true);
    expect(out.endsWith(src[2999]! + '\n')).toBe(true);
  });

  it('markers group digits and count the lines they stand for', () => {
    expect(cutMarker(5, 1238)).toBe('[… 1,234 lines cut: 5..1238 …]');
    expect(cutMarker(7, 7)).toBe('[… 1 line cut: 7..7 …]');
  });

  it('output within the budget passes through unchanged, and says so', () => {
    const small = journal(20).text;
    const r = compactOutput(small, 10_000, estimator);
    expect(r.text).toBe(small);
    expect(r.record).toMatchObject({ compacted: false, cut: [], kept_bytes: r.record.original_bytes });
  });

  it('compacting compacted text under the same budget changes nothing', () => {
    for (const budget of [64, 300, 2500]) {
      const once = compactOutput(text, budget, estimator);
      const twice = compactOutput(once.text, budget, estimator);
      expect(twice.text).toBe(once.text);
      expect(twice.record.compacted).toBe(false);
    }
  });

  it('is deterministic', () => {
    expect(compactOutput(text, 700, estimator)).toEqual(compactOutput(text, 700, estimator));
  });

  it('when the failure lines alone overflow the budget, the record says how many were kept', () => {
    const loud = journal(3000, 2, 0);
    const r = compactOutput(loud.text, 400, estimator);
    expect(r.record.kept_tokens).toBeLessThanOrEqual(400);
    expect(r.record.failure_lines.total).toBe(1500);
    expect(r.record.failure_lines.kept).toBeGreaterThan(0);
    expect(r.record.failure_lines.kept).toBeLessThan(1500);
    expect(r.text.split('\n').filter(isFailureLine)).toHaveLength(r.record.failure_lines.kept);
    replay(loud.text, r.text);
  });

  it('a counter that charges the whole more than its lines still gets a result within the budget', () => {
    // a stand-in for a tokenizer that is not additive: long texts cost up to half as much again
    const superAdditive: TokenCounter = { count: (t) => Math.ceil(estimator.count(t) * (1 + Math.min(t.length, 20_000) / 40_000)), exact: true };
    const r = compactOutput(text, 3000, superAdditive);
    expect(superAdditive.count(r.text)).toBeLessThanOrEqual(3000);
    expect(r.record.kept_tokens).toBeGreaterThan(2000); // gave back only what the excess needed
    replay(text, r.text);
  });

  it('a single line too long for the budget becomes one marker', () => {
    const r = compactOutput('word '.repeat(2000), 40, estimator);
    expect(r.text).toBe(cutMarker(1, 1));
    expect(r.record.cut).toEqual([{ from_line: 1, to_line: 1 }]);
  });

  it('a budget below the minimum is refused, naming the setting', () => {
    expect(() => compactOutput(text, 10, estimator)).toThrow(/tool_output_tokens must be a whole number of at least 32/);
    expect(() => compactOutput(text, 100.5, estimator)).toThrow(/tool_output_tokens/);
  });
});

describe('compactOutput on JSON', () => {
  const json = bigJson();

  it('compacted JSON still parses', () => {
    for (const budget of [32, 200, 1000, 4000]) {
      const { text: out, record } = compactOutput(json, budget, estimator);
      expect(record).toMatchObject({ kind: 'json', compacted: true, cut: [] });
      expect(record.kept_tokens).toBeLessThanOrEqual(budget);
      const value = JSON.parse(out) as Record<string, unknown>;
      if (budget >= 200) expect(Object.keys(value)[0]).toBe('host');
      expect(record.json_cuts_total).toBeGreaterThan(0);
      expect(record.json_cuts.length).toBeLessThanOrEqual(32);
    }
  });

  it('keeps keys and nesting, and marks each cut with its count', () => {
    const { text: out, record } = compactOutput(json, 2000, estimator);
    const value = JSON.parse(out) as { host: string; units: unknown[]; note: string; summary: { total: number } };
    expect(value.host).toBe('pi5');
    expect(value.summary).toEqual({ total: 400, failed: 11 });
    const marker = value.units[value.units.length - 1] as string;
    const cut = record.json_cuts.find((c) => c.path === '$.units' && c.kind === 'array')!;
    expect(marker).toBe(`[… ${cut.cut} items cut]`);
    expect(cut.kept + cut.cut).toBe(400);
    expect(value.note).toMatch(/^x+… \[[\d,]+ chars cut\]$/);
  });

  it('whitespace alone is dropped first when that is enough', () => {
    const pretty = JSON.stringify({ a: [1, 2, 3], b: 'short' }, null, 8);
    const r = compactOutput(pretty, 32, estimator);
    expect(r.text).toBe('{"a":[1,2,3],"b":"short"}');
    expect(r.record.json_cuts_total).toBe(0);
  });

  it('compacting compacted JSON under the same budget changes nothing', () => {
    const once = compactOutput(json, 600, estimator);
    expect(compactOutput(once.text, 600, estimator).text).toBe(once.text);
  });

  it('a "__proto__" key is kept as a key', () => {
    const r = compactOutput(`{"__proto__": {"x": 1}, "big": "${'y'.repeat(4000)}"}`, 64, estimator);
    expect(Object.keys(JSON.parse(r.text) as object)).toEqual(['__proto__', 'big']);
  });
});

const LLAMA2 = path.resolve(import.meta.dirname, '../../../shared/models/llama-2-tiny-random.gguf');
if (!existsSync(LLAMA2)) console.warn(`[test/agent/compact] skipping the exact-counter case: ${LLAMA2} is absent`);

describe.skipIf(!existsSync(LLAMA2))('compactOutput with a model\'s own tokenizer', () => {
  let dispose: () => Promise<void> = async () => {};
  let counter: TokenCounter;
  beforeAll(async () => {
    const { getLlama } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false, build: 'never' });
    const model = await llama.loadModel({ modelPath: LLAMA2 });
    counter = modelCounter(model);
    dispose = () => model.dispose();
  });
  afterAll(() => dispose());

  it('the result fits the budget by the exact count, and keeps every failure line', () => {
    const { text, failures } = journal(2000);
    const r = compactOutput(text, 2000, counter);
    expect(r.record.exact).toBe(true);
    expect(counter.count(r.text)).toBeLessThanOrEqual(2000);
    expect(r.record.failure_lines).toEqual({ total: failures.length, kept: failures.length });
    replay(text, r.text);
  });
});
