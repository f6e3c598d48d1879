/**
 * The text-side rungs in order: the ways a provider's text can be read as a
 * JSON value, cheapest and most faithful first. The ladder (index.ts) takes
 * these one by one and stops at the first that settles into a valid value.
 *
 *   1. strict parse of the whole text
 *   2. when the text holds prose or fences: each located candidate, strict;
 *      then each candidate through the syntax rung; then the whole text
 *   3. otherwise (bare JSON with comments, separators or damage): the whole
 *      text through the syntax rung, then each candidate on its own
 *
 * It is a generator so the common case does no locating and no repair.
 */
import type { Fix } from './fixes.js';
import { locate } from './rungs/extract.js';
import { parseStrict } from './rungs/strict.js';
import { repairSyntax } from './rungs/syntax.js';

export interface Attempt {
  value: unknown;
  fixes: Fix[];
  /** only prose read as a string: a refusal of it is a grammar failure, not a schema one */
  weak: boolean;
}

/** Every reading of `text`, in ladder order. */
export function* readings(text: string): Generator<Attempt> {
  const strict = parseStrict(text);
  if (strict) yield { value: strict.value, fixes: [], weak: false };
  const located = locate(text);
  const extractFirst = located.prose || located.candidates.some((c) => c.fenced);
  const whole = text.trim();
  const parsedOk = new Set<string>();
  const fromCandidates = function* (): Generator<Attempt> {
    for (const c of located.candidates) {
      if (c.text === whole) continue;
      const parsed = parseStrict(c.text);
      if (parsed) { parsedOk.add(c.text); yield { value: parsed.value, fixes: [extractFix(c.fenced)], weak: false }; }
    }
    for (const c of located.candidates) {
      if (c.text === whole || parsedOk.has(c.text)) continue;
      const repaired = repairSyntax(c.text);
      if (repaired) yield { value: repaired.value, fixes: [extractFix(c.fenced), ...repaired.fixes], weak: repaired.weak };
    }
  };
  if (extractFirst) yield* fromCandidates();
  if (!strict) {
    const repaired = repairSyntax(text);
    if (repaired) yield { value: repaired.value, fixes: repaired.fixes, weak: repaired.weak };
  }
  if (!extractFirst) yield* fromCandidates();
}

function extractFix(fenced: boolean): Fix {
  return { rung: 'extract', text: fenced ? 'extracted JSON from a markdown fence' : 'extracted JSON from surrounding text' };
}
