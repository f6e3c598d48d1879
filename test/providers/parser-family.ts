/**
 * The claim every parser family makes of its captures, registered once for the suites that hold
 * one (admin-tools, second-look): the parser reproduces each capture's expected value field by
 * field, and every extractive value it gives has a span in the capture. The caller's describe
 * holds it; what a family claims besides (abstention, sentences) stays in the caller.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { codeProviders } from '../../providers/index.js';
import { compileSchema } from '../../src/ladder/schemas.js';
import { checkSpans } from '../../src/ladder/spans.js';
import type { SchemaHandle } from '../../src/ladder/types.js';
import { fieldDiff, FIXTURES, loadFixtures, ROOT, type Fixture } from './fixtures.js';

/** A shipped schema (manifests/schemas/ID.json), compiled as the ladder compiles it. */
export const schemaHandle = (id: string): SchemaHandle => compileSchema(JSON.parse(readFileSync(join(ROOT, 'manifests/schemas', `${id}.json`), 'utf8')) as object, id);

/** Register "the parser matches NAME …" for each capture of `schema`'s folder; returns what the caller's own claims need. */
export function parserFamily(schema: string, entry: string): { fixtures: Fixture[]; handle: SchemaHandle; parse: (text: string) => unknown } {
  const fixtures = loadFixtures(join(FIXTURES, schema.replace(/@\d+$/, '')));
  const handle = schemaHandle(schema);
  const parse = (text: string) => codeProviders[entry]!({ text, capability: 'extract@1', schemaId: schema });
  for (const fx of fixtures) {
    it(`the parser matches ${fx.name} and every extractive value occurs in the capture`, () => {
      const got = parse(fx.input);
      expect(fieldDiff(got, fx.expected)).toEqual([]);
      expect(checkSpans(got, handle, fx.input)).toBeNull();
    });
  }
  return { fixtures, handle, parse };
}
