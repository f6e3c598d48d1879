/**
 * The level a message states where its format puts one: a level column at
 * the head of the message, or a level key of a structured line.
 *
 * Why only there: "Setting up libgpg-error-dev", "error.log rotated" and
 * "segfault at 0 … error 4" hold the word "error" without stating a level;
 * "[error] 123#0: …" (nginx), "ERROR:  relation … does not exist"
 * (PostgreSQL), "error: kex_exchange_identification" (OpenSSH's error()),
 * "E: Unable to locate package" (apt) and `level=error` (logfmt) state one.
 * A level word counts only as the first token of the message (after an
 * optional `[pid]` and an optional `program: ` prefix) and only in the shapes
 * level columns take — followed by a colon, inside brackets, or an
 * upper-case column word — or as the value of a level key. Everything else
 * is text. known-forms.ts covers the fixed messages whose level their program
 * sets but does not print.
 */
import { LETTERS, levelOfNumber, levelOfWord, type Level } from './levels.js';

const WORD = '[A-Za-z]+[1-5]?';
// "[1234] " (PostgreSQL's %p), "[pid 1234] " (Apache), "1234#0: " (nginx's pid#tid) before the level
const PID_PREFIX = /^(?:\[(?:pid )?\d+(?::tid \d+)?\]:?\s+)+/;
// "dpkg: ", "update-alternatives: " — a program naming itself before its own level word
const PROGRAM_PREFIX = /^[A-Za-z][\w.+-]{0,40}: (?=\S)/;

const BRACKETED = new RegExp(`^[[<(](?:[\\w.-]+:)?(${WORD})\\s*[\\]>)]`); // [error] [core:error] <warn> (ERROR)
const COLON = new RegExp(`^(${WORD}):(?:\\s|$)`); // error: ERROR: Error: debug1:
const UPPER_COLUMN = /^([A-Z]{3,9}[1-5]?)(?=\s+(?:[[\-|(]|\S))/; // ERROR [main] …, WARN  com.example …
const LETTER = /^([EWNIDF]): /; // apt: E: W: N:
const PRI = /^<(\d{1,3})>/;
const KEYED = /(?:^|[\s{,])"?(?:level|lvl|severity|loglevel|log\.level|levelname)"?\s*[=:]\s*"?([A-Za-z]+|\d{1,2})"?(?=[\s,}]|$)/i;

/** Pino/bunyan numeric levels (10 trace … 60 fatal). */
function numericKeyed(n: number): Level | null {
  const table: Record<number, Level> = { 10: 'debug', 20: 'debug', 30: 'info', 40: 'warning', 50: 'err', 60: 'crit' };
  return table[n] ?? null;
}

/** The level stated at the head of one message, or null when it states none there. */
export function headLevel(message: string): Level | null {
  const pri = PRI.exec(message);
  if (pri) return Number(pri[1]) <= 191 ? levelOfNumber(Number(pri[1])) : null;
  let m = message.replace(PID_PREFIX, '');
  const direct = columnLevel(m);
  if (direct !== null) return direct;
  const prog = PROGRAM_PREFIX.exec(m);
  if (prog) {
    m = m.slice(prog[0].length);
    const after = columnLevel(m);
    if (after !== null) return after;
  }
  return null;
}

/** A level column at the very start of `m`. */
function columnLevel(m: string): Level | null {
  for (const re of [BRACKETED, COLON]) {
    const hit = re.exec(m);
    if (hit) {
      const level = levelOfWord(hit[1]!);
      if (level !== null) return level;
    }
  }
  const upper = UPPER_COLUMN.exec(m);
  if (upper && upper[1] === upper[1]!.toUpperCase()) {
    const level = levelOfWord(upper[1]!);
    if (level !== null) return level;
  }
  const letter = LETTER.exec(m);
  if (letter) return LETTERS[letter[1]!] ?? null;
  return null;
}

/** The level a structured line (logfmt, JSON) names under a level key, or null. */
export function keyedLevel(line: string): Level | null {
  const k = KEYED.exec(line);
  if (!k) return null;
  const v = k[1]!;
  return /^\d+$/.test(v) ? numericKeyed(Number(v)) : levelOfWord(v);
}
