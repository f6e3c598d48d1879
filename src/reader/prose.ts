/**
 * Scalars out of prose: when the schema wants one boolean, number, enum
 * member or literal (`1 | true | "THREE"`) and the text is a sentence ("The
 * answer is **True**", "- **SPAM**", "about 1/5 of it", "the task is in
 * progress"), the value the sentence names; for a list of booleans or
 * members, the ones it names. The ladder asks here last (index.ts), and a
 * field's sentence where a member is wanted is read here too (conform.ts).
 *
 * Every reading here is a guess, priced as the heavy `prose` rung, and every
 * one refuses rather than chooses: two different members named, both true
 * and false, several different numbers ("2 or 3"), or only members that the
 * sentence negates ("not TWO", "isn't ONE": a negation word shortly before
 * the member in its clause) come back as an error saying so. A member named
 * beside a negated one is read, and the passed-over negation is a second
 * prose fix (the reading costs twice). Matching is by whole words, case- and
 * accent-insensitive, with separators free (`IN_PROGRESS` ~ "in progress");
 * members equal up to case are told apart only by an exact-case mention; a
 * one-letter member counts only in its own case (the article "a" is not
 * "A"); a member named inside a longer member's name counts once, as the
 * longer one. Also exports the number forms (`12,111.123`, `1/5`, `1 cup
 * butter`) that coercion of a string field uses.
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

/** Read the one scalar `node` asks for out of prose (or, for a list of booleans or members, the ones named); null when the node wants no scalar or the text names none. */
export function proseScalar(text: string, node: Record<string, unknown>): ProseResult {
  const members = literalsOf(node);
  if (members) return memberIn(text, members);
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : [];
  if (types.includes('boolean')) {
    const r = booleanIn(text);
    if (r) return r;
  }
  if (types.includes('integer') || types.includes('number')) return numberIn(text, types.includes('number') ? 'number' : 'integer');
  const items = node.items;
  if (types.includes('array') && items !== null && typeof items === 'object' && !Array.isArray(items)) return listIn(text, items as Record<string, unknown>);
  return null;
}

/**
 * The literal values a node allows: its enum or const, or those of an anyOf /
 * oneOf whose every branch is a literal (`1 | true | "THREE"`); null otherwise.
 */
export function literalsOf(node: Record<string, unknown>): unknown[] | null {
  if (Array.isArray(node.enum)) return node.enum as unknown[];
  if ('const' in node) return [node.const];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const out: unknown[] = [];
    for (const b of branches) {
      const lits = b !== null && typeof b === 'object' ? literalsOf(b as Record<string, unknown>) : null;
      if (!lits) return null;
      out.push(...lits);
    }
    return out;
  }
  return null;
}

/** The members a list wants, named in prose: every one named (not negated), in text order; for booleans the one named. */
function listIn(text: string, items: Record<string, unknown>): ProseResult {
  const members = literalsOf(items);
  if (members) {
    const hits = memberHits(text, members);
    const named = hits.filter((h) => !h.negated);
    if (named.length === 0) return hits.length ? { error: '/: the text names allowed values only to say the answer is not them' } : null;
    const values = [...new Set(named.sort((a, b) => a.from - b.from).map((h) => h.member))];
    return { value: values, fixes: [{ rung: 'prose', text: `read the list ${JSON.stringify(values).slice(0, 60)} named in prose` }] };
  }
  const one = proseScalar(text, items);
  if (!one || 'error' in one) return one;
  return { value: [one.value], fixes: [...one.fixes, { rung: 'coerce', text: 'wrapped value in a one-element array' }] };
}

interface Hit { member: unknown; from: number; to: number; negated: boolean; exact: boolean }

/** Words that, shortly before a member in the same clause, say the text is not that member. */
const NEGATIONS = new Set(['not', 'no', 'never', 'neither', 'nor', 'without', 'except', 'instead', 'rather', 'nothing', 'none', 'cannot']);
/** "isn't" written without its apostrophe */
const CONTRACTIONS = /^(?:is|are|was|were|do|does|did|has|have|had|ca|wo|could|would|should|must)nt$/;
/** How many words back a negation reaches ("is not the ONE", "isn't really ONE"). */
const NEGATION_REACH = 3;

/** True when a negation stands in the clause just before offset `at` of the folded text. */
function negatedAt(folded: string, at: number): boolean {
  // a bounded look back: a few words are all a negation reaches, and a long hostile text stays linear
  const clause = folded.slice(Math.max(0, at - 80), at).split(/[.!?;:,\n()]|\bbut\b/).pop() ?? '';
  const words = clause.match(/[\p{L}\p{N}'\u2019]+/gu) ?? [];
  return words.slice(-NEGATION_REACH).some((w) => NEGATIONS.has(w) || /n['\u2019]t$/.test(w) || CONTRACTIONS.test(w));
}

/** A pattern for a member as whole words, separators free ("IN_PROGRESS" matches "in progress", "In-Progress"). */
function memberPattern(word: string): RegExp {
  // separators between words only: "-42" keeps its sign, a member that is all separators matches itself
  const split = word.split(/[\s_]+|(?<=[\p{L}\p{N}])-(?=[\p{L}\p{N}])/u).filter((p) => p !== '');
  const parts = (split.length ? split : [word]).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\p{L}\\p{N}_])${parts.join('[\\s_-]+')}(?![\\p{L}\\p{N}_])`, 'gu');
}

/** Every place the text names a member; a member inside a longer member's name counts once, as the longer one. */
function memberHits(text: string, members: readonly unknown[]): Hit[] {
  const folded = foldText(text);
  const hits: Hit[] = [];
  for (const m of members) {
    if (typeof m !== 'string' && typeof m !== 'number' && typeof m !== 'boolean') continue;
    const word = foldText(String(m)).trim();
    if (word === '') continue;
    for (const hit of folded.matchAll(memberPattern(word))) {
      const from = hit.index;
      const to = from + hit[0].length;
      const exact = text.slice(from, to) === String(m);
      // a one-letter member ("A") is an article or a pronoun unless written in its own case
      if (word.length === 1 && !exact) continue;
      hits.push({ member: m, from, to, negated: negatedAt(folded, from), exact });
    }
  }
  // a hit inside a longer hit of another member: only hits that start at most one hit-length before can hold it
  hits.sort((a, b) => a.from - b.from);
  const longest = hits.reduce((m, h) => Math.max(m, h.to - h.from), 0);
  return hits.filter((h, i) => {
    for (let k = i; k >= 0 && hits[k]!.from >= h.from - longest; k--) {
      const o = hits[k]!;
      if (o.member !== h.member && o.from <= h.from && o.to >= h.to && o.to - o.from > h.to - h.from) return false;
    }
    for (let k = i + 1; k < hits.length && hits[k]!.from === h.from; k++) {
      const o = hits[k]!;
      if (o.member !== h.member && o.to > h.to) return false;
    }
    return true;
  });
}

/**
 * The one member the text names. Refused as ambiguous when two different
 * members are named (or, for numeric and boolean members, when the text also
 * states another number or the other truth value); refused when the only
 * members named are negated ("not ONE"). Members equal up to case ("two",
 * "TWO") are told apart only by an exact-case mention.
 */
export function memberIn(text: string, members: readonly unknown[]): ProseResult {
  const all = memberHits(text, members);
  if (all.length === 0) return null;
  const named = all.filter((h) => !h.negated);
  if (named.length === 0) return { error: `/: the text names ${describe(all)} only to say it is not the answer; which value is meant is not said` };
  let distinct = [...new Set(named.map((h) => h.member))];
  if (distinct.length > 1) {
    // members that differ only by case: an exact-case mention decides
    const folds = new Set(distinct.map((d) => foldText(String(d))));
    if (folds.size === 1) {
      const exact = [...new Set(named.filter((h) => h.exact).map((h) => h.member))];
      if (exact.length === 1) distinct = exact;
    }
  }
  if (distinct.length > 1) return { error: `/: the text names ${distinct.length} different allowed values (${distinct.map((d) => JSON.stringify(d)).join(', ')}); it is ambiguous which one is meant` };
  const value = distinct[0];
  if (typeof value === 'number') {
    const numbers = new Set(numbersIn(text).filter((x) => !x.negated).map((x) => x.n));
    if (numbers.size > 1) return { error: `/: the text states ${numbers.size} different numbers (${[...numbers].slice(0, 4).join(', ')}); it is ambiguous which one is meant` };
  }
  if (typeof value === 'boolean' && new Set(memberHits(text, [true, false]).filter((h) => !h.negated).map((h) => h.member)).size > 1) {
    return { error: '/: the text says both true and false; it is ambiguous which one is meant' };
  }
  const fixes: Fix[] = [{ rung: 'prose', text: `read the value ${JSON.stringify(value)} named in prose` }];
  if (named.length < all.length) fixes.push({ rung: 'prose', text: `passed over the negated mention of ${describe(all.filter((h) => h.negated))}` });
  else if (typeof value === 'number' && numbersIn(text).some((x) => x.negated)) fixes.push({ rung: 'prose', text: 'passed over a negated number' });
  return { value, fixes };
}

function describe(hits: readonly Hit[]): string {
  return [...new Set(hits.map((h) => JSON.stringify(h.member)))].join(', ');
}

/** true or false named in the text, once and not negated. */
function booleanIn(text: string): ProseResult {
  const r = memberIn(text, [true, false]);
  if (r) return r;
  const words = foldText(text).match(/[\p{L}]+/gu) ?? [];
  const only = words.length === 1 ? words[0] : undefined;
  if (only === 'yes' || only === 'no') return { value: only === 'yes', fixes: [{ rung: 'prose', text: `read ${only} as a boolean` }] };
  return null;
}

/** The one number the text states (or the one it opens with, unless a second follows as an alternative: "2 or 3"). */
function numberIn(text: string, type: 'number' | 'integer'): ProseResult {
  const all = numbersIn(text);
  const found = all.filter((x) => !x.negated);
  if (found.length === 0) return all.length ? { error: '/: the text names numbers only to say the answer is not them' } : null;
  const distinct = [...new Set(found.map((f) => f.n))];
  const first = found[0]!;
  const alternative = /^\s*(?:or|to|and|-|\u2013|\/)\s*[-+]?\.?\d/i.test(text.slice(first.end));
  const opening = /^\W*$/.test(text.slice(0, first.at)) && !alternative ? first.n : undefined;
  const value = distinct.length === 1 ? distinct[0]! : opening;
  if (value === undefined) return { error: `/: the text states ${distinct.length} different numbers (${distinct.slice(0, 4).join(', ')}); it is ambiguous which one is meant` };
  if (type === 'integer' && !Number.isInteger(value)) return { error: `/: the number in the text, ${value}, is not an integer` };
  const fixes: Fix[] = [{ rung: 'prose', text: `read the number ${value} out of prose` }];
  if (found.length < all.length) fixes.push({ rung: 'prose', text: 'passed over a negated number' });
  return { value, fixes };
}

/** The numbers written in a text, each with its place and whether a negation stands before it in its clause. */
function numbersIn(text: string): { at: number; end: number; n: number; negated: boolean }[] {
  const folded = foldText(text);
  const same = folded.length === text.length;
  return [...text.matchAll(NUMBER_IN_TEXT)]
    .map((m) => ({ at: m.index, end: m.index + m[0].length, n: numberOf(m[0]) ?? Number(m[0]), negated: same && negatedAt(folded, m.index) }))
    .filter((x) => Number.isFinite(x.n));
}

/** True when the node has a prose reading (a literal, a member, a boolean or a number), so a scalar at the front of prose is for that reading to judge. */
export function readsProse(node: Record<string, unknown>): boolean {
  if (literalsOf(node)) return true;
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : [];
  return types.length > 0 && types.every((t) => t === 'boolean' || t === 'number' || t === 'integer' || t === 'null');
}
