/**
 * The span rule skips the values whose schema has no x-extractive mark reachable below it
 * (src/ladder/spans.ts extractiveBelow): what it skips could never fail, and what a mark reaches
 * only through a `$ref`, an `anyOf` branch or array items is still checked.
 */
import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../src/ladder/index.js';
import { checkSpans } from '../../src/ladder/spans.js';

const SOURCE = 'host pi5 mounted /dev/root at / with 94%';

const schema = compileSchema({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    // nothing marked below: values made up here are not the rule's business
    counts: { type: 'object', properties: { lines: { type: 'integer' }, words: { type: 'array', items: { type: 'string' } } } },
    // marked only through a reference inside an anyOf branch, inside array items
    rows: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/row' }, { type: 'null' }] } },
    extra: { type: 'object', additionalProperties: { $ref: '#/$defs/row' } },
  },
  $defs: { row: { type: 'object', properties: { device: { type: 'string', 'x-extractive': true }, used: { type: 'integer' } } } },
}, 'spans-skip-test@1');

describe('span rule, subtrees without a mark', () => {
  it('does not refuse values under a schema with no mark reachable below it', () => {
    expect(checkSpans({ counts: { lines: 123456, words: ['not', 'in', 'the', 'source'] }, rows: [] }, schema, SOURCE)).toBeNull();
  });

  it('still checks a mark reached through $ref, anyOf and items', () => {
    expect(checkSpans({ rows: [{ device: '/dev/root', used: 999 }] }, schema, SOURCE)).toBeNull();
    expect(checkSpans({ rows: [null, { device: '/dev/sda1', used: 1 }] }, schema, SOURCE)).toMatch(/^\/rows\/1\/device: "\/dev\/sda1" does not occur in the source/);
    expect(checkSpans({ extra: { a: { device: '/dev/mmcblk0' } } }, schema, SOURCE)).toMatch(/^\/extra\/a\/device: /);
  });

  it('answers the same on the second look (the marks are kept per schema node)', () => {
    const value = { counts: { lines: 1 }, rows: [{ device: '/dev/nvme0' }] };
    expect(checkSpans(value, schema, SOURCE)).toBe(checkSpans(value, schema, SOURCE));
    expect(checkSpans(value, schema, SOURCE)).toMatch(/^\/rows\/0\/device: /);
  });
});
