/** Issue 4: the repair rungs, each claim run through the whole ladder. */
import { describe, expect, it } from 'vitest';
import { compileSchema, runLadder } from '../../src/ladder/index.js';

const search = compileSchema({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: { type: 'string' },
    max_results: { type: 'integer', minimum: 1 },
    level: { type: 'string', enum: ['critical', 'error', 'warning', 'info'] },
    verbose: { type: 'boolean' },
    volume: { type: ['number', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
});

function ok(text: string, schema = search) {
  const r = runLadder({ text }, schema);
  if (!r.ok) throw new Error(`expected ok, got ${r.kind}: ${r.error}`);
  return r;
}

describe('repair rungs', () => {
  it('a valid object passes strictly with no fixes and full confidence', () => {
    const r = ok('{"query": "disk", "max_results": 3}');
    expect(r.value).toEqual({ query: 'disk', max_results: 3 });
    expect(r.fixes).toEqual([]);
    expect(r.confidence).toBe(1);
  });

  it('a trailing comma inside a fence is repaired and the fix is recorded', () => {
    const r = ok('Here you go:\n```json\n{"query": "disk", "max_results": 3,}\n```\nAnything else?');
    expect(r.value).toEqual({ query: 'disk', max_results: 3 });
    expect(r.fixes).toEqual(['extracted JSON from a markdown fence', 'removed trailing comma']);
  });

  it('an integer field given "1.5" is refused, not rounded', () => {
    const r = runLadder({ text: '{"query": "q", "max_results": "1.5"}' }, search);
    expect(r).toMatchObject({ ok: false, kind: 'schema', level: 2 });
    expect(r.ok ? '' : r.error).toContain('/max_results: must be integer, got string "1.5"');
  });

  it('an integer field given 1.5 is refused, not rounded', () => {
    expect(runLadder({ text: '{"query": "q", "max_results": 1.5}' }, search).ok).toBe(false);
  });

  it('a value out of range is refused at level 3 after coercion, naming the field', () => {
    const r = runLadder({ text: '{"query": "q", "max_results": "0"}' }, search);
    expect(r).toMatchObject({ ok: false, kind: 'range', level: 3, error: '/max_results: must be >= 1, got 0' });
    expect(r.fixes).toEqual(['coerced max_results from string to integer']);
  });

  it('camelCase, spaced and cased keys are renamed to the schema key and each rename is named', () => {
    const r = ok('{"Query": "q", "maxResults": 2, "VERBOSE": true}');
    expect(r.value).toEqual({ query: 'q', max_results: 2, verbose: true });
    expect(r.fixes).toEqual(['renamed Query -> query', 'renamed maxResults -> max_results', 'renamed VERBOSE -> verbose']);
  });

  it('an unambiguous near-miss key of a closed object is renamed, an unknown one dropped', () => {
    const r = ok('{"querry": "q", "colour": "red"}');
    expect(r.value).toEqual({ query: 'q' });
    expect(r.fixes).toEqual(['renamed querry -> query', 'dropped unknown key colour (closed object)']);
  });

  it('an unknown key of an open object is kept, never fuzzily renamed', () => {
    const open = compileSchema({ type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } } });
    const r = ok('{"query": "q", "limits": "4"}', open);
    expect(r.value).toEqual({ query: 'q', limits: '4' });
  });

  it('the harness boolean vocabulary yes/no/on/off/1/0 coerces to booleans', () => {
    for (const [word, value] of [['yes', true], ['no', false], ['on', true], ['off', false], ['1', true], ['0', false], ['TRUE', true]] as const) {
      expect(ok(`{"query": "q", "verbose": "${word}"}`).value).toEqual({ query: 'q', verbose: value });
    }
    expect(runLadder({ text: '{"query": "q", "verbose": "maybe"}' }, search).ok).toBe(false);
  });

  it('null is abstention: it is never coerced to 0, false or ""', () => {
    expect(ok('{"query": "q", "volume": null}').value).toEqual({ query: 'q', volume: null });
    expect(runLadder({ text: '{"query": null}' }, search).ok).toBe(false);
    expect(runLadder({ text: '{"query": "q", "verbose": null}' }, search).ok).toBe(false);
  });

  it('enum values match by case and whitespace, or an unambiguous near miss, and the match is named', () => {
    expect(ok('{"query": "q", "level": " Warning "}').value).toEqual({ query: 'q', level: 'warning' });
    const r = ok('{"query": "q", "level": "eror"}');
    expect(r.value).toEqual({ query: 'q', level: 'error' });
    expect(r.fixes).toEqual(['matched level "eror" -> "error"']);
    expect(runLadder({ text: '{"query": "q", "level": "severe"}' }, search).ok).toBe(false);
  });

  it('a scalar becomes a one-element array and JSON text inside a string is parsed', () => {
    expect(ok('{"query": "q", "tags": "disk"}').value).toEqual({ query: 'q', tags: ['disk'] });
    const r = ok('{"query": "q", "tags": "[\\"a\\", \\"b\\"]"}');
    expect(r.value).toEqual({ query: 'q', tags: ['a', 'b'] });
    expect(r.fixes).toEqual(['parsed JSON text inside tags']);
  });

  it('Python literals and a literal cut off at the end are repaired', () => {
    const s = compileSchema({ type: 'object', properties: { ok: { type: 'boolean' }, done: { type: 'boolean' }, n: { type: 'null' } } });
    expect(ok("{'ok': True, 'n': None, 'done': fals", s).value).toEqual({ ok: true, n: null, done: false });
  });

  it('the first candidate that validates wins', () => {
    const r = ok('I looked at [1, 2] first; the answer is {"query": "disk"} and that is all.');
    expect(r.value).toEqual({ query: 'disk' });
    expect(r.fixes).toEqual(['extracted JSON from surrounding text']);
  });

  it('an inner fragment of a broken outer object is never taken', () => {
    const inner = compileSchema({ type: 'object', required: ['b'], properties: { b: { type: 'integer' } } });
    const r = runLadder({ text: 'Result: {"a": {"b": 1}, "c": ' }, inner);
    expect(r.ok).toBe(false);
  });

  it('repair never invents a value: a missing required field without a default is refused', () => {
    const r = runLadder({ text: '{"max_results": 3}' }, search);
    expect(r).toMatchObject({ ok: false, kind: 'schema', error: '/: missing required field "query"' });
  });

  it('defaults fill missing properties, are named, and never overwrite a present value', () => {
    const s = compileSchema({ type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer', default: 10 }, fmt: { type: 'string', default: 'json' } } });
    const r = ok('{"q": "x", "fmt": "text"}', s);
    expect(r.value).toEqual({ q: 'x', fmt: 'text', limit: 10 });
    expect(r.fixes).toEqual(['filled limit with default 10']);
  });

  it('a schema of type string takes the raw text exactly: white space and surrounding quotes are kept', () => {
    const s = compileSchema({ type: 'string' });
    expect(ok('  The disk is full: 42.50 GB used.\n', s).value).toBe('  The disk is full: 42.50 GB used.\n');
    expect(ok('42.50', s).value).toBe('42.50');
    expect(ok('"quoted"', s)).toMatchObject({ value: '"quoted"', fixes: ['took the raw text as the string value'] });
    expect(ok('null', compileSchema({ type: ['string', 'null'] })).value).toBeNull();
    expect(ok('null', s).value).toBe('null');
  });

  it('empty output and prose without JSON are grammar failures at level 1', () => {
    expect(runLadder({ text: '  \n' }, search)).toMatchObject({ ok: false, kind: 'grammar', level: 1 });
    const r = runLadder({ text: 'I could not find anything useful.' }, search);
    expect(r).toMatchObject({ ok: false, kind: 'grammar', level: 1 });
    expect(r.ok ? '' : r.error).toContain('no JSON value found');
  });

  it('fixes are kept on failure', () => {
    const r = runLadder({ text: '```json\n{"maxResults": 3,}\n```' }, search);
    expect(r.ok).toBe(false);
    expect(r.fixes).toContain('renamed maxResults -> max_results');
  });

  it('a value from a code provider skips the repair rungs: "5" for an integer is refused', () => {
    expect(runLadder({ value: { query: 'q', max_results: '5' } }, search)).toMatchObject({ ok: false, kind: 'schema' });
    expect(runLadder({ value: { query: 'q', max_results: 5 } }, search)).toMatchObject({ ok: true, fixes: [] });
  });

  it('a "__proto__" key in model output stays an ordinary key when keys are repaired', () => {
    const open = compileSchema({ type: 'object', required: ['query'], properties: { query: { type: 'string' } } });
    const r = ok('{"__proto__": {"polluted": 1}, "Query": "a"}', open);
    expect(Object.keys(r.value as object)).toEqual(['__proto__', 'query']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
