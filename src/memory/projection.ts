/**
 * The typed projection of a fact: its scalar leaves as (key, num, txt) rows,
 * and the text that full-text search indexes.
 *
 * Every fact already passed its schema, so its values are typed before memory
 * sees them; projecting the scalars into columns makes "when was disk free
 * below 15 %" one indexed SQL query with no model. Keys are dotted paths;
 * items of an array share their array's key (so "any error code 503" is one
 * `key = ... AND num = 503`). Nulls are abstentions and are not projected.
 * Strings are never coerced to numbers: "15" stays text. It does not look
 * inside strings that hold JSON.
 */

export interface FieldRow {
  key: string;
  num: number | null;
  txt: string | null;
}

/** Bounds that keep one pathological fact from dominating an ingest. */
const MAX_FIELDS = 256;
const MAX_DEPTH = 8;
const MAX_TEXT = 2000;

/** Scalar leaves of a payload, with dotted keys; a scalar payload gets the key "value". */
export function projectFields(payload: unknown): FieldRow[] {
  const rows: FieldRow[] = [];
  const walk = (v: unknown, key: string, depth: number): void => {
    if (rows.length >= MAX_FIELDS || v === null || v === undefined) return;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) rows.push({ key, num: v, txt: null });
    } else if (typeof v === 'boolean') rows.push({ key, num: v ? 1 : 0, txt: v ? 'true' : 'false' });
    else if (typeof v === 'string') rows.push({ key, num: null, txt: v.length > MAX_TEXT ? v.slice(0, MAX_TEXT) : v });
    else if (depth >= MAX_DEPTH) return;
    else if (Array.isArray(v)) for (const item of v) walk(item, key, depth + 1);
    else if (typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) walk(child, key ? `${key}.${k}` : k, depth + 1);
    }
  };
  walk(payload, '', 0);
  for (const r of rows) if (r.key === '') r.key = 'value';
  return rows;
}

/** The text BM25 indexes for a fact: its keys and text values, then subject and schema. */
export function searchText(fields: FieldRow[], extra: (string | null | undefined)[]): string {
  const parts: string[] = [];
  for (const f of fields) {
    parts.push(f.key);
    if (f.txt !== null) parts.push(f.txt);
    else if (f.num !== null) parts.push(String(f.num));
  }
  for (const e of extra) if (e) parts.push(e);
  return parts.join(' ');
}
