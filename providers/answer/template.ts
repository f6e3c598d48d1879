/**
 * A fact said through its schema's `x-sentence` (src/base/sentence.ts owns the grammar): each
 * template is filled with the fact's values and said when every field it names holds one, so an
 * operator's schema reads as words ("\"/var/log\" takes 1.2 GiB.") instead of "Step X produced a
 * Y fact". The template is the schema writer's text (T2); the values are the fact's (often T1)
 * and are never read as template: a string is quoted as data (words.ts), a number is a number,
 * and a value of the wrong type counts as absent. Nothing is evaluated or followed.
 */
import { parseSentence, sentenceTemplates, type SentenceFormat } from '../../src/base/sentence.js';
import { count, duration, humanBytes, n, num, quote, quotedList } from './words.js';

/** Longest sentence a template may make, in characters, before it is cut with "…". */
export const TEMPLATE_MAX = 400;

/** One value as words, or null when the fact does not hold it in a sayable form. */
function say(v: unknown, format: SentenceFormat | null): string | null {
  if (format === 'count') return Array.isArray(v) ? String(v.length) : null;
  if (format !== null) {
    const x = num(v);
    if (x === null) return null;
    return format === 'bytes' ? humanBytes(x) : format === 'kib' ? humanBytes(x * 1024) : format === 'seconds' ? duration(x) : `${n(x)}%`;
  }
  if (typeof v === 'string') return v.trim() === '' ? null : quote(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (num(v) !== null) return n(v as number, 2);
  if (Array.isArray(v)) {
    if (v.length === 0) return null;
    return v.every((x) => x === null || typeof x !== 'object') ? quotedList(v) : count(v.length, 'item');
  }
  return null;
}

/** The fact in its schema's sentences, or null when none can be said (the renderer falls back to its neutral line). */
export function templateSentence(sentence: unknown, fact: Record<string, unknown>): string | null {
  let templates: string[];
  try {
    templates = sentenceTemplates(sentence);
  } catch {
    return null;
  }
  const said: string[] = [];
  for (const t of templates) {
    let parts;
    try {
      parts = parseSentence(t);
    } catch {
      return null;
    }
    let out = '';
    for (const p of parts) {
      const w = 'field' in p ? (Object.hasOwn(fact, p.field) ? say(fact[p.field], p.format) : null) : p.text;
      if (w === null) { out = ''; break; }
      out += w;
    }
    if (out) said.push(out.trim());
  }
  if (said.length === 0) return null;
  const text = said.join(' ');
  const chars = [...text];
  return chars.length > TEMPLATE_MAX ? `${chars.slice(0, TEMPLATE_MAX - 1).join('')}…` : text;
}
