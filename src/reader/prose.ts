/**
 * Scalars out of prose: when the schema wants one boolean, number or enum
 * member and the text is a sentence ("The answer is **True**", "about 1/5 of
 * it", "I'd pick résumé"), the value the sentence names.
 *
 * Every reading here is a guess, priced as the heavy `prose` rung, and every
 * one refuses rather than chooses: two different enum members named, both
 * true and false, or several different numbers are ambiguous and come back
 * as an error saying so. Matching is by whole word, case- and
 * accent-insensitive; a member named inside a longer member's name counts
 * once, as the longer one. Also exports the number forms (`12,111.123`,
 * `1/5`, `1 cup butter`) that coercion of a string field uses.
 */
import type { Fix } from './fixes.js';

export type ProseResult = { value: unknown; fixes: Fix[] } | { error: string } | null;

const NUMBER_IN_TEXT = /(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\/\d+(?:\.\d+)?)?(?![\w])/g;

/** Lower-case, accents off: "Résumé" -> "resume". */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The value a number written by a person stands for: "12,111.123", "1/5", "-3"; undefined when it is not one. */
export function numberOf(text: string): number | undefined {
  const t = text.trim().replace(/^([-+]?)[$€£¥]\s?/, '$1');
  const frac = /^([-+]?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(t);
  if (frac) {
    const d = Number(frac[2]);
    return d === 0 ? undefined : Number(frac[1]) / d;
  }
  if (/^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(t)) return Number(t.replace(/,/g, ''));
  if (t !== text.trim() && /^[-+]?(?:\d+\.?\d*|\.\d+)$/.test(t)) return Number(t);
  // a percentage written with its sign: "85%", "12.5 %"
  const pct = /^([-+]?(?:\d+\.?\d*|\.\d+))\s?%$/.exec(t);
  if (pct) return Number(pct[1]);
  return undefined;
}

/** A number that opens a phrase ("1 cup butter", "3 items"): the number, or undefined. */
export function leadingNumber(text: string): number | undefined {
  const m = /^\s*([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\/\d+)?)\s+\p{L}/u.exec(text);
  if (!m) return undefined;
  const n = numberOf(m[1]!) ?? Number(m[1]);
  return Number.isFinite(n) ? n : undefined;
}

/** Read the one scalar `node` asks for out of prose; null when the node wants no scalar or the text names none. */
export function proseScalar(text: string, node: Record<string, unknown>): ProseResult {
  const members = Array.isArray(node.enum) ? (node.enum as unknown[]) : 'const' in node ? [node.const] : null;
  if (members) return memberIn(text, members);
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : [];
  if (types.includes('boolean')) {
    const r = booleanIn(text);
    if (r) return r;
  }
  if (types.includes('integer') || types.includes('number')) return numberIn(text, types.includes('number') ? 'number' : 'integer');
  return null;
}

/** The one enum member the text names. */
function memberIn(text: string, members: readonly unknown[]): ProseResult {
  const folded = foldText(text);
  const hits: { member: unknown; from: number; to: number }[] = [];
  for (const m of members) {
    if (typeof m !== 'string' && typeof m !== 'number' && typeof m !== 'boolean') continue;
    const word = foldText(String(m)).trim();
    if (word === '') continue;
    let at = folded.indexOf(word);
    while (at >= 0) {
      const before = folded[at - 1];
      const after = folded[at + word.length];
      if (!isWordChar(before) && !isWordChar(after)) hits.push({ member: m, from: at, to: at + word.length });
      at = folded.indexOf(word, at + 1);
    }
  }
  const kept = hits.filter((h) => !hits.some((o) => o !== h && o.member !== h.member && o.from <= h.from && o.to >= h.to && o.to - o.from > h.to - h.from));
  const distinct = [...new Set(kept.map((h) => h.member))];
  if (distinct.length === 0) return null;
  if (distinct.length > 1) return { error: `/: the text names ${distinct.length} different allowed values (${distinct.map((d) => JSON.stringify(d)).join(', ')}); it is ambiguous which one is meant` };
  return { value: distinct[0], fixes: [{ rung: 'prose', text: `read the value ${JSON.stringify(distinct[0])} named in prose` }] };
}

/** true or false named in the text, once. */
function booleanIn(text: string): ProseResult {
  const words = foldText(text).match(/[\p{L}]+/gu) ?? [];
  const said = new Set(words.filter((w) => w === 'true' || w === 'false'));
  if (said.size === 0) {
    const only = words.length === 1 ? words[0] : undefined;
    if (only === 'yes' || only === 'no') return { value: only === 'yes', fixes: [{ rung: 'prose', text: `read ${only} as a boolean` }] };
    return null;
  }
  if (said.size > 1) return { error: '/: the text says both true and false; it is ambiguous which one is meant' };
  const value = said.has('true');
  return { value, fixes: [{ rung: 'prose', text: `read the boolean ${value} named in prose` }] };
}

/** The one number the text states (or the one it opens with). */
function numberIn(text: string, type: 'number' | 'integer'): ProseResult {
  const found = [...text.matchAll(NUMBER_IN_TEXT)].map((m) => ({ at: m.index, n: numberOf(m[0]) ?? Number(m[0]) })).filter((x) => Number.isFinite(x.n));
  if (found.length === 0) return null;
  const distinct = [...new Set(found.map((f) => f.n))];
  const opening = /^\W*$/.test(text.slice(0, found[0]!.at)) ? found[0]!.n : undefined;
  const value = distinct.length === 1 ? distinct[0]! : opening;
  if (value === undefined) return { error: `/: the text states ${distinct.length} different numbers (${distinct.slice(0, 4).join(', ')}); it is ambiguous which one is meant` };
  if (type === 'integer' && !Number.isInteger(value)) return { error: `/: the number in the text, ${value}, is not an integer` };
  return { value, fixes: [{ rung: 'prose', text: `read the number ${value} out of prose` }] };
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}_]/u.test(c);
}
