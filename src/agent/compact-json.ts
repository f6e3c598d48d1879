/**
 * Compacting JSON output to a token budget so that it still parses.
 *
 * A tool that answers in JSON is read by a parser or a model that expects
 * JSON, so cutting it by lines would break it. Instead the value is
 * re-serialised without whitespace and, if that is still too long, shrunk by
 * a fixed schedule of limits, loosest first: arrays keep their first items
 * and end with a marker string `"[… 1,234 items cut]"`, objects keep their
 * first keys and get a `"…"` key saying how many were cut, strings keep their
 * first characters and end with `… [1,234 chars cut]`. The first step of the
 * schedule that fits is used, and every cut is recorded with its JSON path.
 * Keys, nesting and the kinds of values are never changed. When even the
 * tightest step (an outline with every container emptied) does not fit, it
 * returns null and the caller refuses the budget. Numbers are re-serialised
 * by JavaScript: an integer beyond 2^53 loses digits, `1.0` becomes `1`.
 */
import { groupDigits } from './compact-lines.js';
import type { TokenCounter } from './tokens.js';

export interface JsonCut {
  path: string;
  kind: 'array' | 'object' | 'string';
  kept: number;
  cut: number;
}

export interface JsonCompacted {
  text: string;
  cuts: JsonCut[];
}

interface Limits {
  items: number;
  keys: number;
  chars: number;
}

/** Loosest first; `Infinity` is the whitespace-only step. */
const SCHEDULE: readonly Limits[] = [
  { items: Infinity, keys: Infinity, chars: Infinity },
  ...[64, 32, 16, 8, 4, 2, 1].map((k) => ({ items: k, keys: k * 4, chars: k * 8 })),
  { items: 0, keys: 0, chars: 0 },
];

// A string is only cut when the cut saves more than the marker costs.
const STRING_SLACK = 24;

const keyPath = (path: string, key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

function shrink(value: unknown, lim: Limits, path: string, cuts: JsonCut[]): unknown {
  if (typeof value === 'string') {
    const chars = [...value];
    if (chars.length <= lim.chars + STRING_SLACK) return value;
    cuts.push({ path, kind: 'string', kept: lim.chars, cut: chars.length - lim.chars });
    return `${chars.slice(0, lim.chars).join('')}… [${groupDigits(chars.length - lim.chars)} chars cut]`;
  }
  if (Array.isArray(value)) {
    const keep = Math.min(value.length, lim.items);
    const out = value.slice(0, keep).map((v, i) => shrink(v, lim, `${path}[${i}]`, cuts));
    if (keep < value.length) {
      cuts.push({ path, kind: 'array', kept: keep, cut: value.length - keep });
      out.push(`[… ${groupDigits(value.length - keep)} items cut]`);
    }
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const keep = Math.min(entries.length, lim.keys);
    const out = Object.create(null) as Record<string, unknown>; // a "__proto__" key stays a key
    for (const [k, v] of entries.slice(0, keep)) out[k] = shrink(v, lim, keyPath(path, k), cuts);
    if (keep < entries.length) {
      cuts.push({ path, kind: 'object', kept: keep, cut: entries.length - keep });
      out['…'] = `${groupDigits(entries.length - keep)} keys cut`;
    }
    return out;
  }
  return value;
}

/** The first step of the schedule whose compact serialisation fits `budget`, or null. */
export function compactJson(value: unknown, budget: number, counter: TokenCounter): JsonCompacted | null {
  for (const lim of SCHEDULE) {
    const cuts: JsonCut[] = [];
    const text = JSON.stringify(shrink(value, lim, '$', cuts));
    if (counter.count(text) <= budget) return { text, cuts };
  }
  return null;
}
