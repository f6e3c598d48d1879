/** Ladder levels 2–3 (issue 2 §6): schemas compiled once, failures classified and located. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from '../../src/ladder/canonical.js';
import { checkValue, compileSchema, compiledOf, loadSchemaFile } from '../../src/ladder/schemas.js';
import { tempDir } from '../helpers/temp.js';

const counter = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['error_count', 'host'],
  properties: { error_count: { type: 'integer', minimum: 0 }, host: { type: 'string', 'x-extractive': true } },
};

describe('schemas', () => {
  it('canonical JSON sorts keys at every depth and emits no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,{"y":null,"z":0}]},"b":1}');
    expect(canonicalDigest({ a: 1, b: 2 })).toBe(canonicalDigest({ b: 2, a: 1 }));
  });

  it('a draft-07 and a 2020-12 document both compile and validate', () => {
    const d7 = compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }], additionalItems: false });
    const d2020 = compileSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }], items: false });
    expect(checkValue(d7, ['a'])).toBeNull();
    expect(checkValue(d7, ['a', 'b'])).not.toBeNull();
    expect(checkValue(d2020, ['a'])).toBeNull();
    expect(checkValue(d2020, ['a', 'b'])).not.toBeNull();
  });

  it('an equal document is compiled once, whatever its key order', () => {
    const a = compileSchema({ type: 'object', properties: { x: { type: 'number' } } });
    const b = compileSchema({ properties: { x: { type: 'number' } }, type: 'object' });
    expect(a.digest).toBe(b.digest);
    expect(compiledOf(a)).toBe(compiledOf(b));
  });

  it('a range violation is level 3 and says where and what: /error_count: must be >= 0, got -3', () => {
    const h = compileSchema(counter);
    expect(checkValue(h, { error_count: -3, host: 'a' })).toEqual({ kind: 'range', error: '/error_count: must be >= 0, got -3' });
  });

  it('a wrong type is level 2 even when a range error is present too', () => {
    const h = compileSchema(counter);
    const failure = checkValue(h, { error_count: -3, host: 7 });
    expect(failure?.kind).toBe('schema');
    expect(failure?.error).toContain('/host: must be string, got number 7');
  });

  it('a missing required field and an unknown field of a closed object are named', () => {
    const h = compileSchema({ type: 'object', required: ['a'], properties: { a: { type: 'string' } }, additionalProperties: false });
    expect(checkValue(h, {})?.error).toBe('/: missing required field "a"');
    expect(checkValue(h, { a: 'x', b: 1 })?.error).toBe('/: unknown field "b" (the object is closed)');
  });

  it('loadSchemaFile names the file when it is not JSON, and takes its id from the file name', () => {
    const dir = tempDir('pico-ladder-');
    writeFileSync(join(dir, 'broken.json'), '{ "type": ');
    expect(() => loadSchemaFile(join(dir, 'broken.json'))).toThrow(/schema file .*broken\.json: is not JSON/);
    writeFileSync(join(dir, 'note@1.json'), JSON.stringify({ type: 'string' }));
    expect(loadSchemaFile(join(dir, 'note@1.json')).id).toBe('note@1');
  });

  it('x-extractive is an allowed keyword in both drafts', () => {
    expect(() => compileSchema(counter)).not.toThrow();
    expect(() => compileSchema({ ...counter, $schema: 'http://json-schema.org/draft-07/schema#' })).not.toThrow();
  });
});
