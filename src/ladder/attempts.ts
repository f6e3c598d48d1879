/**
 * The text-side rungs in order: the ways a provider's text can be read as a
 * JSON value, cheapest and most faithful first, in groups. A group holds the
 * alternative readings of one place in the text; the ladder (index.ts) takes
 * the groups in order, settles every reading of a group against the schema,
 * keeps the cheapest that settles (reader/fixes.ts prices them) and stops at the
 * first group that has one — so when several values stand in a text, the
 * first that settles wins, and among readings of one value the cheapest.
 *
 *   1. strict parse of the whole text
 *   2. several values in one stretch of text, collected into an array (only
 *      when the schema wants an array; values of several fences too, as the
 *      `collect` rung) — and then no one of them is offered alone
 *   3. each value the tolerant reader finds (src/reader/candidates.ts), in
 *      text order, with "extracted" fixes when prose or fences stood around
 *      it — but not a scalar standing in prose that the prose reading refuses
 *      as ambiguous or negated ("2 or 3")
 *   4. jsonrepair over the whole text, then over each fence: the old repair
 *      rung, kept as the last resort for text the reader could not read
 *      whole (never a second opinion on a whole reading that failed), named
 *      as such, and never wrapped into an object's required field
 *
 * It is a generator so the common case (strict JSON) locates nothing.
 */
import type { Fix } from '../reader/fixes.js';
import { FENCE, MAX_VALUES, locate, type Found } from '../reader/candidates.js';
import { PyCall } from '../reader/scan.js';
import { parseStrict } from '../reader/strict.js';
import { repairSyntax } from './rungs/syntax.js';

export interface Attempt {
  value: unknown;
  fixes: Fix[];
  /** only prose read as a string: a refusal of it is a grammar failure, not a schema one */
  weak: boolean;
  /** read by the jsonrepair fallback: never wrapped into an object's required field */
  fallback?: boolean;
}

/** Every group of readings of `text`, in ladder order. */
export function* readingGroups(text: string, wantsArray: 'yes' | 'maybe' | 'no', proseObjects: (text: string) => boolean = () => false): Generator<Attempt[]> {
  const strict = parseStrict(text);
  if (strict) yield [{ value: strict.value, fixes: [], weak: false }];
  if (!strict && /^\s*[{[]?\s*\\"/.test(text)) {
    const unescaped = parseStrict(`"${text.trim()}"`);
    if (unescaped && typeof unescaped.value === 'string' && unescaped.value !== text) {
      const fix: Fix = { rung: 'syntax', text: 'unescaped JSON text written with escaped quotes' };
      for (const group of readingGroups(unescaped.value, wantsArray, proseObjects)) yield group.map((a) => ({ ...a, fixes: [fix, ...a.fixes] }));
    }
  }
  const located = locate(text);
  const values: Found[] = [];
  for (const v of located.values) {
    const fixes = [...v.fixes];
    const value = plain(v.value, fixes);
    if (value !== NOT_PLAIN) values.push({ ...v, value, fixes });
  }
  const around = located.prose || located.fenced;
  let several = false;
  if (wantsArray !== 'no') {
    const collected = wantsArray === 'yes' || !around ? collect(values, around, wantsArray === 'yes') : null;
    if (collected) yield [collected];
    // several values where a list is wanted: the list is them all, never one of them wrapped alone
    if (collected && wantsArray === 'yes') several = true;
  }
  const lead = text.search(/\S/);
  let whole = false;
  for (const v of values) {
    if (several && !Array.isArray(v.value)) continue;
    if (v.from === lead && v.to >= text.trimEnd().length) whole = true;
    if (strict && whole) continue;
    // a scalar at the front of prose is not taken when the prose reading objects to the text ("2 or 3", "true or false")
    if (located.prose && !v.fenced && (v.value === null || typeof v.value !== 'object') && proseObjects(text)) continue;
    yield [{ value: v.value, fixes: around ? [extractFix(v.fenced), ...v.fixes] : v.fixes, weak: false }];
  }
  // jsonrepair is the fallback for text the tolerant reader could not read whole, never a second opinion on one it did
  if (!strict && !whole) {
    const repaired = repairSyntax(text);
    if (repaired) yield [{ value: repaired.value, fixes: [fallbackFix(repaired.fixes)], weak: repaired.weak, fallback: true }];
  }
  if (located.fenced) {
    let tried = 0;
    for (const m of text.matchAll(FENCE)) {
      if (tried++ >= MAX_VALUES) break;
      const body = (m[1] ?? '').trim();
      if (body === '' || parseStrict(body)) continue;
      const repaired = repairSyntax(body);
      if (repaired && !repaired.weak) yield [{ value: repaired.value, fixes: [extractFix(true), fallbackFix(repaired.fixes)], weak: false, fallback: true }];
    }
  }
}

const NOT_PLAIN = Symbol('not plain JSON');

/**
 * A read value as plain JSON: a call wrapping one value (`ObjectId("123")`,
 * `ISODate("…")`) stands for that value; any other call is not data.
 */
function plain(value: unknown, fixes: Fix[], depth = 0): unknown {
  if (value instanceof PyCall) {
    if (value.positional.length !== 1 || value.keywords.length !== 0) return NOT_PLAIN;
    const inner = value.positional[0];
    if (depth === 0 && (inner === null || typeof inner !== 'object')) return NOT_PLAIN;
    const note = depth === 0 ? `stripped the JSONP wrapper ${value.name}(…)` : `read the value inside ${value.name}(…)`;
    if (!fixes.some((f) => f.text === note)) fixes.push({ rung: 'syntax', text: note });
    return plain(value.positional[0], fixes, depth + 1);
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const p = plain(item, fixes, depth + 1);
      if (p === NOT_PLAIN) return NOT_PLAIN;
      out.push(p);
    }
    return out;
  }
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(obj)) {
    const p = plain(obj[k], fixes, depth + 1);
    if (p === NOT_PLAIN) return NOT_PLAIN;
    if (p !== obj[k]) {
      out ??= { ...obj };
      Object.defineProperty(out, k, { value: p, writable: true, enumerable: true, configurable: true });
    }
  }
  return out ?? obj;
}

/** Two or more values of one stretch of text, as one array. */
function collect(values: Found[], around: boolean, anyRegion: boolean): Attempt | null {
  if (values.length < 2) return null;
  const region = values[0]!.region;
  let same = values.filter((v) => v.region === region);
  // several fences (or values in prose and in fences) each holding one: together they are the list
  if (same.length < 2 && anyRegion) same = values.filter((v) => v.value !== null && typeof v.value === 'object' && !Array.isArray(v.value));
  if (same.length < 2) return null;
  const fixes: Fix[] = [];
  if (around) fixes.push(extractFix(same[0]!.fenced));
  for (const v of same) for (const f of v.fixes) if (!fixes.some((g) => g.text === f.text)) fixes.push(f);
  fixes.push({ rung: same.some((v) => v.region !== region) ? 'collect' : 'extract', text: `collected ${same.length} top-level values into an array` });
  return { value: same.map((v) => v.value), fixes, weak: false };
}

function extractFix(fenced: boolean): Fix {
  return { rung: 'extract', text: fenced ? 'extracted JSON from a markdown fence' : 'extracted JSON from surrounding text' };
}

/** The jsonrepair rung's fix, priced as the syntax repair it is and named as the fallback. */
function fallbackFix(fixes: Fix[]): Fix {
  const text = fixes.map((f) => f.text).join('; ');
  return { rung: 'syntax', text: text.startsWith('read unquoted') ? text : `${text} (jsonrepair fallback)` };
}
