/**
 * A schema's `x-sentence`: how one of its facts reads in an answer, written by whoever wrote the
 * schema (T2), e.g. `["{path} takes {kilobytes:kib}.", "I could not read {unreadable}."]`.
 *
 * This module owns the grammar, so the manifest loader (which refuses a template naming a field
 * the schema does not have) and the answer renderer (which fills it with a fact's values) read a
 * template alike. A template is literal text and placeholders: `{field}` or `{field:format}`,
 * where `field` is one of the schema's top-level properties and `format` one of FORMATS. A
 * placeholder names a field and nothing more — no expressions, no nesting, no second pass — and
 * the renderer shows every value as quoted data. It does not format values itself.
 */
import { hasUnsafeChar } from './controls.js';
import { nearest } from './near.js';

export const SENTENCE_KEY = 'x-sentence';
/** how a number or a list is said: bytes, KiB (du -k), seconds, a percentage, a list's length */
export const FORMATS = ['bytes', 'kib', 'seconds', 'percent', 'count'] as const;
export type SentenceFormat = (typeof FORMATS)[number];
export type SentencePart = { text: string } | { field: string; format: SentenceFormat | null };

/** Longest template, in characters, and most sentences in one x-sentence. */
export const MAX_TEMPLATE = 300;
export const MAX_SENTENCES = 4;

const PLACEHOLDER = /\{([a-z_][a-z0-9_]{0,63})(?::([a-z]+))?\}/y;

/** Parse one template into literal text and placeholders; throws saying what is wrong and where. */
export function parseSentence(template: string): SentencePart[] {
  if (template.length === 0 || template.length > MAX_TEMPLATE) throw new Error(`a sentence is 1 to ${MAX_TEMPLATE} characters (this one has ${template.length})`);
  if (hasUnsafeChar(template)) throw new Error('a sentence is one line of text: it may not hold control characters, line breaks or bidirectional controls');
  const parts: SentencePart[] = [];
  let text = '';
  for (let i = 0; i < template.length;) {
    const c = template[i]!;
    if (c === '}') throw new Error(`a "}" at character ${i + 1} closes no placeholder`);
    if (c !== '{') { text += c; i++; continue; }
    PLACEHOLDER.lastIndex = i;
    const m = PLACEHOLDER.exec(template);
    if (!m) throw new Error(`the "{" at character ${i + 1} does not start a placeholder: write {field} or {field:format} with a field name in lower case (${FORMATS.join(', ')})`);
    const format = m[2] ?? null;
    if (format !== null && !(FORMATS as readonly string[]).includes(format)) {
      const near = nearest(format, FORMATS);
      throw new Error(`{${m[1]}:${format}} names an unknown format${near ? ` (did you mean "${near}"?)` : ''}; formats: ${FORMATS.join(', ')}`);
    }
    if (text) parts.push({ text });
    text = '';
    parts.push({ field: m[1]!, format: format as SentenceFormat | null });
    i += m[0].length;
  }
  if (text) parts.push({ text });
  if (!parts.some((p) => 'field' in p)) throw new Error('a sentence names at least one field, as {field}');
  return parts;
}

/** The templates an `x-sentence` value holds: a string is one, a list up to MAX_SENTENCES; throws when it is neither. */
export function sentenceTemplates(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length >= 1 && value.length <= MAX_SENTENCES && value.every((v) => typeof v === 'string')) return value as string[];
  throw new Error(`"${SENTENCE_KEY}" is a string or a list of 1 to ${MAX_SENTENCES} strings`);
}

export interface SentenceProblem {
  path: string;
  message: string;
  fix: string;
}

/** The JSON types a property may hold, from its `type` (none declared: any). */
function typesOf(prop: Record<string, unknown>): string[] | null {
  const t = prop.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : null;
}

/** What a schema's `x-sentence` gets wrong against the schema itself; [] when it has none or it fits. */
export function checkSentence(schema: Record<string, unknown>): SentenceProblem[] {
  if (!(SENTENCE_KEY in schema)) return [];
  let templates: string[];
  try {
    templates = sentenceTemplates(schema[SENTENCE_KEY]);
  } catch (err) {
    return [{ path: SENTENCE_KEY, message: (err as Error).message, fix: `write it as "${SENTENCE_KEY}": "{field} …" or a list of such sentences` }];
  }
  const props = (typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}) as Record<string, Record<string, unknown>>;
  const names = Object.keys(props);
  const problems: SentenceProblem[] = [];
  templates.forEach((template, i) => {
    const path = Array.isArray(schema[SENTENCE_KEY]) ? `${SENTENCE_KEY}.${i}` : SENTENCE_KEY;
    let parts: SentencePart[];
    try {
      parts = parseSentence(template);
    } catch (err) {
      problems.push({ path, message: (err as Error).message, fix: 'write literal text with placeholders such as {path} or {kilobytes:kib}' });
      return;
    }
    for (const p of parts) {
      if (!('field' in p)) continue;
      const prop = Object.hasOwn(props, p.field) ? props[p.field] : undefined;
      if (!prop) {
        const near = nearest(p.field, names);
        problems.push({
          path, message: `{${p.field}} names a field the schema does not have${near ? ` (did you mean {${near}}?)` : ''}`,
          fix: names.length ? `name one of its properties: ${names.map((n) => `{${n}}`).join(', ')} — or add "${p.field}" to "properties"` : `add "${p.field}" to the schema's "properties"`,
        });
        continue;
      }
      const types = typesOf(prop);
      if (types === null) continue;
      const numeric = types.includes('number') || types.includes('integer');
      if (p.format === 'count' ? !types.includes('array') : p.format !== null && !numeric) {
        problems.push({ path, message: `{${p.field}:${p.format}} formats a ${types.join('/')} field; "${p.format}" is for ${p.format === 'count' ? 'a list' : 'a number'}`, fix: `write {${p.field}}, or use the format on a ${p.format === 'count' ? 'list' : 'numeric'} field` });
      } else if (p.format === null && types.every((t) => t === 'object' || t === 'null')) {
        problems.push({ path, message: `{${p.field}} is an object; a sentence says only strings, numbers, booleans and lists`, fix: 'name a field that holds a value, or split the object into such fields' });
      }
    }
  });
  return problems;
}
