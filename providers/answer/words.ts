/**
 * The answer renderer's vocabulary for fact values: how a fact string is
 * quoted (short, one line, its own quotes neutralised, so text from a log or
 * a file can never read as a sentence of the answer), how bytes, seconds and
 * percentages are said, and how a value is taken from a fact only when it has
 * the type the schema promises (anything else counts as absent). Shared by
 * render.ts and the per-schema sentences; it renders no sentence itself.
 */
import { BIDI_CONTROLS, LINE_CONTROLS } from '../../src/base/controls.js';

const LINE_RUN = new RegExp(`[${LINE_CONTROLS}]+`, 'g');
const BIDI_ANY = new RegExp(`[${BIDI_CONTROLS}]`, 'g');

/** Longest quoted value, in characters, before it is cut with "…". */
export const QUOTE_MAX = 80;

/** A fact value as quoted data: one line, no double quotes inside, at most `max` (QUOTE_MAX) characters. */
export function quote(value: unknown, max = QUOTE_MAX): string {
  // line controls become a space; bidirectional ones (which only reorder text on screen) go
  const flat = String(value).replace(LINE_RUN, ' ').replace(BIDI_ANY, '').replace(/"/g, "'").trim();
  const chars = [...flat];
  const short = chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
  return `"${short}"`;
}

/** A byte count for a person: GiB, MiB or KiB with one decimal. */
export function humanBytes(n: number): string {
  const units: [string, number][] = [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]];
  for (const [name, size] of units) if (n >= size) return `${(n / size).toFixed(1)} ${name}`;
  return `${n} bytes`;
}

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const oneOf = <T extends string>(v: unknown, words: readonly T[]): T | null => (words.includes(v as T) ? (v as T) : null);
export const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
export const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
export const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The three state words the machine-state schemas share. */
export const STATES = ['ok', 'warning', 'critical'] as const;
export type State = (typeof STATES)[number];

/** A number for a sentence, with at most `digits` decimals and no trailing zeros. */
export function n(v: number, digits = 1): string {
  return String(Number(v.toFixed(digits)));
}

/** Seconds for a person: "4.5 s", "3 min 20 s", "2 h 5 min". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${n(seconds, seconds < 10 ? 2 : 1)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
}

/** "1 unit" / "2 units". */
export const count = (k: number, one: string, many = `${one}s`): string => `${k} ${k === 1 ? one : many}`;

/** The first `max` quoted values, then "and N more". */
export function quotedList(values: unknown[], max = 4): string {
  const shown = values.slice(0, max).map((v) => quote(v)).join(', ');
  return values.length > max ? `${shown} and ${values.length - max} more` : shown;
}
