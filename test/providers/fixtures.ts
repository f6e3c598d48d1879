/**
 * Golden fixture loading for the provider suites: `<name>.input` beside
 * `<name>.expected.json`, read raw (never trimmed) so tests see exactly what a
 * tool returned.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures');
export const ROOT = resolve(import.meta.dirname, '../..');

export interface Fixture {
  name: string;
  input: string;
  expected: Record<string, unknown>;
}

/** Every fixture pair in one folder (not recursive), sorted by name. */
export function loadFixtures(dir: string): Fixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.input'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.input'.length);
      return {
        name,
        input: readFileSync(join(dir, f), 'utf8'),
        expected: JSON.parse(readFileSync(join(dir, `${name}.expected.json`), 'utf8')) as Record<string, unknown>,
      };
    });
}

/** A field-by-field diff: one line per field whose value differs, empty when equal. */
export function fieldDiff(got: unknown, expected: Record<string, unknown>): string[] {
  const g = (got ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(expected), ...Object.keys(g)]);
  return [...keys]
    .filter((k) => JSON.stringify(g[k]) !== JSON.stringify(expected[k]))
    .map((k) => `${k}: got ${JSON.stringify(g[k])}, expected ${JSON.stringify(expected[k])}`);
}

/** Compile a schema shipped under manifests/schemas with Ajv 2020 (strict off for x-extractive). */
export async function compileSchema(id: string) {
  const mod = await import('ajv/dist/2020.js');
  const Ajv2020 = mod.Ajv2020;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const json = JSON.parse(readFileSync(join(ROOT, 'manifests/schemas', `${id}.json`), 'utf8')) as object;
  return ajv.compile(json);
}
