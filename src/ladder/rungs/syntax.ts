/**
 * Rung 0c, syntactic repair: jsonrepair, plus the few things it leaves that
 * small models produce (a literal cut off at the end — `{"ok": tru` — and a
 * unary plus on a number), and a diagnosis that names what was repaired.
 *
 * jsonrepair does not report its edits, so `diagnose` reads the broken text
 * and names the faults it can see (trailing comma, comments, single or curly
 * quotes, Python literals, bare words, truncation); when it sees none it
 * says "repaired JSON syntax". A result that is only prose turned into a
 * string is marked `weak`, so a refusal can say "no JSON found" (grammar)
 * instead of blaming the schema. This rung knows nothing of schemas.
 */
import { jsonrepair } from 'jsonrepair';
import type { Fix } from '../../reader/fixes.js';
import { quietly } from '../../reader/strict.js';

export interface Repaired {
  value: unknown;
  fixes: Fix[];
  /** the text had no JSON structure; jsonrepair only quoted it */
  weak: boolean;
}

const TRUNCATED_LITERAL = /([:[,]\s*)(tr?u?|fa?l?s?|nu?l?)$/;
const LITERALS: Record<string, string> = { t: 'true', f: 'false', n: 'null' };

/** Repair `text` into a JSON value, or undefined when even jsonrepair gives up. */
export function repairSyntax(text: string): Repaired | undefined {
  const own: string[] = [];
  let input = text.trimEnd();
  const cut = TRUNCATED_LITERAL.exec(input);
  if (cut && !insideString(input, cut.index + cut[1]!.length)) {
    const word = cut[2]!;
    const full = LITERALS[word[0]!]!;
    if (full.startsWith(word) && full !== word) {
      input = input.slice(0, input.length - word.length) + full;
      own.push(`completed truncated literal ${word} -> ${full}`);
    }
  }
  const plus = dropUnaryPlus(input);
  if (plus !== input) { input = plus; own.push('removed unary + before a number'); }
  const parsed = quietly(() => ({ value: JSON.parse(jsonrepair(input)) as unknown }));
  if (!parsed) return undefined;
  const value = parsed.value;
  const trimmed = text.trim();
  const weak = typeof value === 'string' && !/^["'\u201c\u2018`\\]/.test(trimmed);
  const names = [...diagnose(input), ...own];
  const fix = names.length ? `repaired syntax: ${names.join(', ')}` : 'repaired JSON syntax';
  return { value, fixes: [{ rung: 'syntax', text: weak ? 'read unquoted text as a JSON string' : fix }], weak };
}

/** True when position `at` of `text` falls inside a double-quoted string. */
function insideString(text: string, at: number): boolean {
  let inside = false;
  for (let i = 0; i < at; i++) {
    if (text[i] === '\\' && inside) { i++; continue; }
    if (text[i] === '"') inside = !inside;
  }
  return inside;
}

/** Drop a `+` that starts a number after `:`, `[` or `,` (outside strings). */
function dropUnaryPlus(text: string): string {
  if (!text.includes('+')) return text;
  let out = '';
  let inside = false;
  let prev = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inside) {
      out += ch;
      if (ch === '\\') { out += text[i + 1] ?? ''; i++; } else if (ch === '"') inside = false;
      continue;
    }
    if (ch === '"') inside = true;
    if (ch === '+' && /[:[,]/.test(prev) && /[0-9.]/.test(text[i + 1] ?? '')) continue;
    out += ch;
    if (!/\s/.test(ch)) prev = ch;
  }
  return out;
}

/** Name the syntax faults visible in `text` (outside double-quoted strings). */
export function diagnose(text: string): string[] {
  const found = new Set<string>();
  let depth = 0;
  let inside = false;
  let lastSignificant = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inside) {
      if (ch === '\\') i++;
      else if (ch === '"') inside = false;
      else if (ch === '\n') found.add('escaped a control character in a string');
      continue;
    }
    if (ch === '"') { inside = true; lastSignificant = ch; continue; }
    if (ch === '/' && (text[i + 1] === '/' || text[i + 1] === '*') && text[i - 1] !== ':') { found.add('removed comments'); const end = text[i + 1] === '/' ? text.indexOf('\n', i) : text.indexOf('*/', i + 2) + 1; i = end <= 0 ? text.length : end; continue; }
    if (ch === "'") found.add('replaced single quotes');
    else if (ch === '\u201c' || ch === '\u201d' || ch === '\u2018' || ch === '\u2019') found.add('replaced curly quotes');
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') { if (lastSignificant === ',') found.add('removed trailing comma'); depth--; }
    else if (/[A-Za-z_]/.test(ch) && !/[A-Za-z0-9_]/.test(text[i - 1] ?? '')) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0];
      if (word === 'True' || word === 'False' || word === 'None') found.add('replaced Python literals');
      else if (word !== 'true' && word !== 'false' && word !== 'null') found.add('quoted bare words');
      i += word.length - 1;
    }
    if (!/\s/.test(ch)) lastSignificant = ch;
  }
  if (text.trimEnd().endsWith(',')) found.add('removed trailing comma');
  if (inside) found.add('closed an unterminated string');
  if (depth > 0) found.add('closed truncated JSON');
  if (depth < 0) found.add('removed a stray closing bracket');
  return [...found];
}
