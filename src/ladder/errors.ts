/**
 * Failure messages for ladder levels 2 and 3, written for a person and for a
 * retry prompt: where (a JSON pointer), what was expected, what was there.
 *
 * Range keywords (bounds, lengths, counts, multipleOf) are level 3 `range`;
 * everything else is level 2 `schema`. When both kinds occur the schema error
 * wins, because level 2 is checked first. For `anyOf` / `oneOf` the message
 * names the closest alternative instead of listing every branch's complaints.
 * This module only formats Ajv's findings; it does not decide validity.
 */
import type { ErrorObject } from 'ajv';

export interface CheckFailure {
  kind: 'schema' | 'range';
  error: string;
}

const RANGE_KEYWORDS = new Set([
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties',
  'minContains', 'maxContains',
]);
const COMBINATORS = new Set(['anyOf', 'oneOf']);
const MAX_SHOWN = 3;

/** True when an Ajv keyword is a level-3 range check. */
export function isRangeKeyword(keyword: string): boolean {
  return RANGE_KEYWORDS.has(keyword);
}

/** A short rendering of a value for an error message. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = preview(value, 60);
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const clipped = text.length > 60 ? text.slice(0, 57) + '...' : text;
  return kind === 'object' || kind === 'array' ? `${kind} ${clipped}` : kind === 'null' ? 'null' : `${kind} ${clipped}`;
}

/** JSON text of `value`, cut after about `max` characters, safe for any depth (a hostile value cannot overflow the stack). */
export function preview(value: unknown, max: number): string {
  let out = '';
  const walk = (v: unknown, depth: number): void => {
    if (out.length > max) return;
    if (v === null || typeof v !== 'object') { out += JSON.stringify(v) ?? 'null'; return; }
    if (depth > 16) { out += '…'; return; }
    if (Array.isArray(v)) {
      out += '[';
      v.forEach((x, i) => { if (out.length <= max) { if (i) out += ','; walk(x, depth + 1); } });
      out += ']';
      return;
    }
    out += '{';
    Object.keys(v).forEach((k, i) => { if (out.length <= max) { out += `${i ? ',' : ''}${JSON.stringify(k)}:`; walk((v as Record<string, unknown>)[k], depth + 1); } });
    out += '}';
  };
  walk(value, 0);
  return out.length > max ? out.slice(0, max) + '...' : out;
}

/** One Ajv error as "/path: what was wrong, got what". */
export function formatError(e: ErrorObject): string {
  const where = e.instancePath === '' ? '/' : e.instancePath;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${where}: missing required field "${String(p.missingProperty)}"`;
    case 'additionalProperties':
      return `${where}: unknown field "${String(p.additionalProperty)}" (the object is closed)`;
    case 'type':
      return `${where}: must be ${String(p.type).split(',').join(' or ')}, got ${show(e.data)}`;
    case 'enum':
      return `${where}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${show(e.data)}`;
    case 'const':
      return `${where}: must be ${JSON.stringify(p.allowedValue)}, got ${show(e.data)}`;
    default:
      if (RANGE_KEYWORDS.has(e.keyword) && (typeof e.data === 'number' || typeof e.data === 'string')) {
        return `${where}: ${e.message ?? e.keyword}, got ${JSON.stringify(e.data)}`;
      }
      return `${where}: ${e.message ?? e.keyword}${e.data !== undefined && typeof e.data !== 'object' ? `, got ${JSON.stringify(e.data)}` : ''}`;
  }
}

/** Keep the errors of the closest alternative of each failed anyOf/oneOf. */
function narrowCombinators(errors: ErrorObject[]): { errors: ErrorObject[]; notes: string[] } {
  const combo = errors.find((e) => COMBINATORS.has(e.keyword));
  if (!combo) return { errors, notes: [] };
  const prefix = combo.schemaPath + '/';
  const byBranch = new Map<string, ErrorObject[]>();
  const rest: ErrorObject[] = [];
  for (const e of errors) {
    if (e === combo) continue;
    if (e.schemaPath.startsWith(prefix)) {
      const branch = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
    } else rest.push(e);
  }
  if (byBranch.size === 0) return { errors: rest.length ? rest : [combo], notes: [] };
  let best: [string, ErrorObject[]] | null = null;
  for (const entry of byBranch) if (!best || score(entry[1]) < score(best[1])) best = entry;
  const [branch, branchErrors] = best!;
  const where = combo.instancePath === '' ? '/' : combo.instancePath;
  const note = `${where}: matches none of the ${combo.keyword} alternatives; closest is alternative ${Number(branch) + 1}`;
  const inner = narrowCombinators(branchErrors);
  return { errors: [...inner.errors, ...rest], notes: [note, ...inner.notes] };
}

/** Fewer errors is closer; a mismatched discriminator (const/not/type at the top) counts extra. */
function score(errors: ErrorObject[]): number {
  return errors.reduce((n, e) => n + (['const', 'not', 'type'].includes(e.keyword) ? 3 : 1), 0);
}

/** Classify and describe a failed validation (Ajv run with allErrors + verbose). */
export function describeErrors(errors: ErrorObject[], _value: unknown): CheckFailure {
  if (errors.length === 0) return { kind: 'schema', error: '/: does not match the schema' };
  const { errors: narrowed, notes } = narrowCombinators(errors);
  const structural = narrowed.filter((e) => !RANGE_KEYWORDS.has(e.keyword) && !COMBINATORS.has(e.keyword));
  const kind = structural.length > 0 ? 'schema' : 'range';
  const chosen = kind === 'schema' ? structural : narrowed.filter((e) => RANGE_KEYWORDS.has(e.keyword));
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const e of chosen) {
    const line = formatError(e);
    if (!seen.has(line)) { seen.add(line); lines.push(line); }
  }
  const shown = lines.slice(0, MAX_SHOWN).join('; ') + (lines.length > MAX_SHOWN ? `; and ${lines.length - MAX_SHOWN} more` : '');
  return { kind, error: notes.length ? `${notes.join('; ')}: ${shown}` : shown };
}
