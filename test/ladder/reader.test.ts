/**
 * Issue 11: "Make the ladder a real schema-aligned reader." One test per
 * reading and coercion the issue names, each a claim; the tool-call path's
 * shapes and refusals are in toolcall-path.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { compileSchema, runLadder } from '../../src/ladder/index.js';
import type { LadderResult } from '../../src/ladder/types.js';

const record = compileSchema({
  type: 'object',
  required: ['name', 'count'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, count: { type: 'integer' }, note: { type: 'string' } },
}, 'record@1');
const open = compileSchema({}, 'any@1');
const list = compileSchema({ type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } }, 'list@1');

function ok(text: string, schema = record): Extract<LadderResult, { ok: true }> {
  const r = runLadder({ text }, schema);
  if (!r.ok) throw new Error(`refused: ${r.error}`);
  return r;
}
function refused(text: string, schema = record): Extract<LadderResult, { ok: false }> {
  const r = runLadder({ text }, schema);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(r.value)}`);
  return r;
}

describe('the tolerant reader: where the JSON is', () => {
  it('JSON inside prose is extracted and the fix named', () => {
    const r = ok('Sure! The record is {"name": "pi5", "count": 3} as requested.');
    expect(r.value).toEqual({ name: 'pi5', count: 3 });
    expect(r.fixes).toContain('extracted JSON from surrounding text');
  });

  it('a fence that never closes is read to the end of the text', () => {
    expect(ok('Here:\n```json\n{"name": "pi5", "count": 3}\n').value).toEqual({ name: 'pi5', count: 3 });
  });

  it('of several fences, the first whose value settles wins', () => {
    const text = 'First try:\n```json\n{"name": "x"}\n```\nBetter:\n```json\n{"name": "pi5", "count": 7}\n```';
    expect(ok(text).value).toEqual({ name: 'pi5', count: 7 });
  });

  it('several top-level values are collected into an array when the schema wants one', () => {
    const r = ok('{"id": 1} {"id": 2}\n{"id": 3}', list);
    expect(r.value).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(r.fixes).toContain('collected 3 top-level values into an array');
  });

  it('of several values in prose, the first that settles is taken when the schema wants one object', () => {
    expect(ok('prefix {"name": "a"} text {"name": "b", "count": 2} more {"name": "c", "count": 3}').value).toEqual({ name: 'b', count: 2 });
  });
});

describe('the tolerant reader: what small models get wrong', () => {
  it('unquoted keys and unquoted multi-word string values running to the next key are read', () => {
    expect(ok('{name: Raspberry Pi 5, count: 2}').value).toEqual({ name: 'Raspberry Pi 5', count: 2 });
  });

  it('an unquoted value may run over several lines up to the next key', () => {
    expect(ok('{\n  note: the disk filled up\n    during the nightly backup,\n  name: pi5,\n  count: 1\n}').value)
      .toEqual({ note: 'the disk filled up\n    during the nightly backup', name: 'pi5', count: 1 });
  });

  it('single-quoted and backtick strings are read', () => {
    expect(ok("{'name': 'pi5', `note`: `a b`, 'count': 1}").value).toEqual({ name: 'pi5', note: 'a b', count: 1 });
  });

  it('a triple-quoted string keeps its inner quotes and line breaks', () => {
    expect(ok('{"name": """the "big" one\nsecond line""", "count": 1}').value).toEqual({ name: 'the "big" one\nsecond line', count: 1 });
  });

  it('a triple-backtick block as a value drops its language tag and common indent', () => {
    const text = '{"name": ```python\n    def f():\n        return 1\n    ```, "count": 1}';
    expect(ok(text).value).toEqual({ name: 'def f():\n    return 1', count: 1 });
  });

  it('a quote left unescaped inside a string is kept when the text after it shows the string goes on', () => {
    const r = ok('{"name": "the "primary" disk", "count": 2}');
    expect(r.value).toEqual({ name: 'the "primary" disk', count: 2 });
    expect(r.fixes).toContain('kept an unescaped quote inside a string');
  });

  it('comments, trailing commas and Python literals are removed or replaced, each named', () => {
    const r = ok('{\n  // the host\n  "name": "pi5", /* three */ "count": 3,\n  "note": None,\n}', compileSchema({ type: 'object', properties: { name: {}, count: {}, note: {} } }));
    expect(r.value).toEqual({ name: 'pi5', count: 3, note: null });
    expect(r.fixes).toEqual(expect.arrayContaining(['removed comments', 'removed trailing comma', 'replaced Python literals']));
  });

  it('output cut off mid-value is closed, and the truncation named', () => {
    const r = ok('{"name": "pi5", "count": 3, "note": "the log was cu', record);
    expect(r.value).toEqual({ name: 'pi5', count: 3, note: 'the log was cu' });
    expect(r.fixes).toContain('closed an unterminated string');
  });

  it('brackets closed in the wrong order are closed through to the outer one', () => {
    expect(ok("[{'name': 'pi5', 'count': {'a': 1]}", open).value).toEqual([{ name: 'pi5', count: { a: 1 } }]);
  });

  it('a value nested far deeper than any model writes is refused, not a stack overflow', () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    const r = runLadder({ text: `{"name": ${deep}}` }, record);
    expect(r.ok).toBe(false);
  });

  it('a Python call wrapping one value (ObjectId("…")) inside data stands for that value', () => {
    expect(ok('{"name": ObjectId("64f1"), "count": 1}').value).toEqual({ name: '64f1', count: 1 });
  });
});

describe('schema-directed coercion', () => {
  const bool = compileSchema({ type: 'boolean' });
  const num = compileSchema({ type: 'number' });
  const int = compileSchema({ type: 'integer' });

  it('a boolean named in prose is read ("The answer is **True**")', () => {
    const r = ok('The answer is **True**.', bool);
    expect(r.value).toBe(true);
    expect(r.fixes[0]).toMatch(/named in prose/);
  });

  it('prose that says both true and false is refused as ambiguous', () => {
    expect(refused('It could be true or false.', bool).error).toMatch(/ambiguous/);
  });

  it('numbers written by people are read: 12,111.123 and 1/5 and 1 cup butter', () => {
    expect(ok('12,111.123', num).value).toBe(12111.123);
    expect(ok('1/5', num).value).toBe(0.2);
    expect(ok('1 cup butter', int).value).toBe(1);
    expect(ok('{"name": "cake", "count": "2 cups of flour"}').value).toEqual({ name: 'cake', count: 2 });
  });

  it('prose stating several different numbers is refused as ambiguous', () => {
    expect(refused('Between 3 and 5 of them.', int).error).toMatch(/ambiguous/);
  });

  it('an enum member named in prose is matched case- and accent-insensitively', () => {
    const docs = compileSchema({ enum: ['résumé', 'cover letter'] });
    expect(ok('I would send the RESUME first.', docs).value).toBe('résumé');
  });

  it('an enum named twice in prose is refused as ambiguous', () => {
    const docs = compileSchema({ enum: ['résumé', 'cover letter'] });
    expect(refused('Both the resume and the cover letter.', docs).error).toMatch(/ambiguous/);
  });

  it('a member named inside a longer member counts once, as the longer one', () => {
    const kinds = compileSchema({ enum: ['error', 'error rate'] });
    expect(ok('Alert on the error rate.', kinds).value).toBe('error rate');
  });

  it('a single value where an array is wanted is wrapped, a one-element array where one value is wanted unwrapped', () => {
    const tags = compileSchema({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' } } });
    expect(ok('{"tags": "disk", "n": [4]}', tags).value).toEqual({ tags: ['disk'], n: 4 });
  });

  it('a bare scalar becomes the one required field of an object', () => {
    const city = compileSchema({ type: 'object', required: ['city'], properties: { city: { type: 'string' }, unit: { type: 'string' } } });
    const r = ok('"Paris"', city);
    expect(r.value).toEqual({ city: 'Paris' });
    expect(r.fixes[0]).toMatch(/one required field/);
  });

  it('prose is never wrapped into an object as its required field', () => {
    const city = compileSchema({ type: 'object', required: ['city'], properties: { city: { type: 'string' } } });
    expect(refused('I could not find it.', city).kind).toBe('grammar');
  });

  it('an optional field the text does not give stays absent (not invented as null)', () => {
    expect(ok('{"name": "pi5", "count": 1}').value).not.toHaveProperty('note');
  });
});

describe('confidence follows the fix cost', () => {
  it('a value read by heavy guesses scores lower than one that only needed a fence stripped', () => {
    const fenced = ok('```json\n{"name": "pi5", "count": 2}\n```').confidence!;
    const guessed = ok('{"name": "the "primary" disk", "count": "2 of them"}').confidence!;
    expect(guessed).toBeLessThan(fenced);
  });

  it('an enum read out of prose scores lower than the same member written as JSON', () => {
    const level = compileSchema({ enum: ['ok', 'warning', 'critical'] });
    expect(ok('The state is warning, I think.', level).confidence!).toBeLessThan(ok('"warning"', level).confidence!);
  });
});

describe('more of what small models write', () => {
  it('a percentage with its sign, a "Yes." and an "N/A" for a nullable field are read as meant', () => {
    const s = compileSchema({ type: 'object', properties: { pct: { type: 'number' }, ok: { type: 'boolean' }, temp: { type: ['number', 'null'] } } });
    expect(ok('{"pct": "85%", "ok": "Yes.", "temp": "N/A"}', s).value).toEqual({ pct: 85, ok: true, temp: null });
  });

  it('output cut off inside the last list element drops that element, not the list', () => {
    const s = compileSchema({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'integer' }, b: { type: 'string' } } } } } });
    const r = ok('{"items": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b', s);
    expect(r.value).toEqual({ items: [{ a: 1, b: 'x' }, { a: 2, b: 'y' }] });
    expect(r.fixes).toContain('dropped the last list element, cut off at the end');
  });

  it('a complete list whose last element is wrong is refused, not shortened', () => {
    const s = compileSchema({ type: 'array', items: { type: 'integer' } });
    expect(refused('[1, 2, "three"]', s).kind).toBe('schema');
  });
});
