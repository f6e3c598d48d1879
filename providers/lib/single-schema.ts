/**
 * The one guard every single-schema parser shares: a `code` provider that
 * produces exactly one schema refuses any other with a message naming the
 * fix, then hands the raw text to its pure parse function. It owns nothing
 * else; each parser keeps its own rules in its own folder.
 */
import type { CodeProvider } from '../types.js';

/** A code provider for `schemaId` that parses the text it is shown with `parse`. */
export function singleSchema(name: string, schemaId: string, parse: (text: string) => unknown): CodeProvider {
  return ({ text, schemaId: asked }) => {
    if (asked !== schemaId) {
      throw new Error(`${name} provider: asked for schema "${asked}" but it only produces ${schemaId}; fix the manifest's "schemas" or the job step`);
    }
    return parse(text);
  };
}

/** A decimal number rounded to `digits` places (facts compare as JSON, so no float noise). */
export function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** An integer cell, or null when the cell is not one. */
export function int(cell: string | undefined): number | null {
  return cell !== undefined && /^-?\d+$/.test(cell) ? Number(cell) : null;
}

/** A decimal cell ("1.5", "0,7" is not one), or null. */
export function decimal(cell: string | undefined): number | null {
  return cell !== undefined && /^-?\d+(?:\.\d+)?$/.test(cell) ? Number(cell) : null;
}
