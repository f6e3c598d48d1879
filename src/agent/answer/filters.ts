/**
 * The owner's words that narrow a list before it is counted, listed or
 * shown: "security updates" (a yes/no field of the items), "interfaces that
 * are down" (a word that is one of a field's few values), "above 80% full",
 * "less than 1 GB free", "more than 10% cpu" (a comparison on the numeric
 * field whose unit and name the words give), "the top 5" (a limit).
 *
 * Why a mechanism and not a table of questions: the items' own fields say
 * what can narrow them — a boolean key, an enum-like value, a number with a
 * unit suffix (`_percent`, `_bytes`, `celsius`) — so a schema added later is
 * narrowed by the same words without a line here. A word that matches no
 * field narrows nothing, and a comparison whose field the words do not pick
 * out (two percent fields, no word naming one) is left out rather than
 * guessed. The items are T1 data: they are compared, never followed.
 */

export interface Narrowed {
  items: Record<string, unknown>[];
  /** each narrowing, in words of the schema's keys and the owner's own (never a fact's): "security", "state down", "used percent above 80%", "top 5" */
  words: string[];
  /** a limit was asked for and the list held at least that many */
  limited: boolean;
}

const COMPARE = /\b(above|over|more than|greater than|higher than|bigger than|larger than|at least|exceeding|beyond|below|under|less than|fewer than|lower than|smaller than|at most)\s+(\d+(?:\.\d+)?)\s*(%|percent|per ?cent|[kmgt]i?b\b|[kmgt]\b|gigs?|megs?|degrees?|°c)?/i;
const LIMIT = /\b(?:top|first|last|biggest|largest|busiest|heaviest|highest|newest|latest|oldest)\s+(\d{1,3})\b|\b(\d{1,3})\s+(?:biggest|largest|busiest|heaviest|highest|newest|latest|most)\b/i;
const SCALE: Record<string, number> = { k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
const AT_LEAST = /^(?:above|over|more than|greater than|higher than|bigger than|larger than|exceeding|beyond)$/i;
const AT_MOST = /^(?:below|under|less than|fewer than|lower than|smaller than)$/i;
// the owner's words for the parts of a field's name
const MEANS: Record<string, string[]> = {
  ram: ['mem'], memory: ['mem'], mem: ['mem'], full: ['used'], used: ['used'], use: ['used'], using: ['used', 'cpu'], free: ['free', 'available'], left: ['free', 'available'],
  available: ['available', 'free'], space: ['available', 'free'], cpu: ['cpu'], processor: ['cpu'], big: ['size'], size: ['size'], large: ['size'], hot: ['celsius'],
};
// when the words name no field, the field a comparison usually means
const USUAL = ['used', 'cpu', 'mem'];
// words that never narrow: they ask, point or count
const NEVER = new Set(['a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'of', 'on', 'in', 'to', 'by', 'at', 'it', 'its', 'as', 'my', 'me', 'i', 'and', 'or', 'that', 'which', 'what', 'who', 'how', 'many', 'much', 'any', 'all', 'every', 'show', 'list', 'count', 'tell', 'give', 'there', 'have', 'has', 'do', 'does', 'with', 'for', 'from', 'than', 'more', 'less', 'name', 'names', 'right', 'now', 'please', 'pls', 'number', 'one', 'ones', 'some']);

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The items the owner's words keep, and the words that kept them; `limit` whether "the top N" may
 * cut the list; `oldestFirst` that the list runs oldest first (log lines), so "the last N" keeps its
 * end and "the first N" its start.
 */
export function narrow(items: Record<string, unknown>[], text: string, skip: readonly string[], limit: boolean, oldestFirst = false): Narrowed {
  let kept = items;
  const words: string[] = [];
  let rest = text.toLowerCase();
  const cmp = COMPARE.exec(rest);
  if (cmp) {
    rest = rest.replace(cmp[0], ' ');
    const f = compared(kept, cmp, text);
    if (f) { kept = kept.filter(f.test); words.push(f.words); }
  }
  let limited = false;
  const lim = limit ? LIMIT.exec(rest) : null;
  if (lim) rest = rest.replace(lim[0], ' ');
  for (const w of rest.match(/[a-z][a-z0-9-]*/g) ?? []) {
    if (w.length < 2 || NEVER.has(w)) continue;
    const f = byWord(kept, w, skip);
    if (f && f.kept.length < kept.length) { kept = f.kept; words.push(f.words); }
  }
  if (lim) {
    const n = Number(lim[1] ?? lim[2]);
    const fromEnd = oldestFirst && !/^(?:first|oldest)\b/i.test(lim[0]);
    if (n > 0 && n < kept.length) { kept = fromEnd ? kept.slice(-n) : kept.slice(0, n); limited = true; words.push(oldestFirst ? `${fromEnd ? 'last' : 'first'} ${n}` : `top ${n}`); }
    else if (n > 0) limited = true;
  }
  return { items: kept, words, limited };
}

/** A comparison on the numeric field the words name, or null when they name none clearly. */
function compared(items: Record<string, unknown>[], m: RegExpExecArray, text: string): { test: (i: Record<string, unknown>) => boolean; words: string } | null {
  const unit = (m[3] ?? '').toLowerCase();
  const suffix = unit === '' ? null : /^(?:%|percent|per ?cent)$/.test(unit) ? /_percent$/ : /^(?:degrees?|°c)$/.test(unit) ? /celsius/ : /_bytes$/;
  if (!suffix) return null;
  const keys = [...new Set(items.flatMap((i) => Object.keys(i).filter((k) => suffix.test(k) && num(i[k]) !== null)))];
  if (keys.length === 0) return null;
  const meant = (text.toLowerCase().match(/[a-z]+/g) ?? []).flatMap((w) => MEANS[w] ?? []);
  const part = (k: string, w: string) => k.split('_').includes(w);
  const key = keys.find((k) => meant.some((w) => part(k, w))) ?? (keys.length === 1 ? keys[0] : USUAL.map((w) => keys.find((k) => part(k, w))).find((k) => k !== undefined));
  if (!key) return null;
  const letter = unit[0] ?? '';
  const n = Number(m[2]) * (suffix.source === '_bytes$' ? SCALE[letter] ?? 1 : 1);
  const op = AT_LEAST.test(m[1]!) ? '>' : AT_MOST.test(m[1]!) ? '<' : /at least/i.test(m[1]!) ? '>=' : '<=';
  const test = (i: Record<string, unknown>) => { const v = num(i[key]); return v !== null && (op === '>' ? v > n : op === '<' ? v < n : op === '>=' ? v >= n : v <= n); };
  const said = { '>': 'above', '<': 'below', '>=': 'at least', '<=': 'at most' }[op];
  return { test, words: `${key.replace(/_/g, ' ')} ${said} ${m[2]}${unit === '%' ? '%' : unit ? ` ${unit}` : ''}` };
}

/** A word that is a yes/no field of the items, or one of a field's few short values; null when it is neither. */
function byWord(items: Record<string, unknown>[], w: string, skip: readonly string[]): { kept: Record<string, unknown>[]; words: string } | null {
  const sing = w.replace(/s$/, '');
  for (const key of [...new Set(items.flatMap((i) => Object.keys(i)))]) {
    if (skip.includes(key)) continue;
    const values = items.map((i) => i[key]);
    if ((key === w || key === sing) && values.some((v) => typeof v === 'boolean')) return { kept: items.filter((i) => i[key] === true), words: key };
    const strings = values.filter((v): v is string => typeof v === 'string');
    const distinct = new Set(strings.map((v) => v.toLowerCase()));
    if (strings.length === 0 || distinct.size > 12 || strings.some((v) => v.length > 16 || /\s/.test(v))) continue;
    if (distinct.has(w) || distinct.has(sing)) return { kept: items.filter((i) => typeof i[key] === 'string' && [w, sing].includes((i[key] as string).toLowerCase())), words: `${key.replace(/_/g, ' ')} ${w}` };
  }
  return null;
}
