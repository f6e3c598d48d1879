/**
 * Log lines for a person at a terminal: pino-pretty, made safe for hostile text.
 *
 * A log record can quote what a model or a tool wrote, and that text may hold
 * newlines (to forge a log line of its own) or escape sequences (to colour,
 * move the cursor or retitle the terminal). Before a record is prettified,
 * every control character in every string it holds is replaced by a visible
 * escape (`\n`, `\u001b`), and so is every bidirectional control (`\u202e`,
 * which would reorder the line on screen; controls.ts lists them), so the only line breaks and colours on screen are
 * pino-pretty's own. `pico show`, `pico watch` and `pico run` put ledger
 * text on a terminal through the same `visible` (and `visibleText`, which
 * keeps an answer's own line breaks). pino-pretty is loaded only when a terminal is there
 * (log.ts), so the daemon under systemd never pays for it. This module does
 * not decide where lines go.
 */
import { createRequire } from 'node:module';

type Prettify = (record: Record<string, unknown>) => string;

import { UNSAFE_CHAR, UNSAFE_IN_JSON } from './controls.js';

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with each control and bidirectional character (controls.ts) shown as an escape instead of acted on. */
export function visible(text: string): string {
  return text.replace(UNSAFE_CHAR, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Multi-line text (an answer) for a terminal: like `visible`, but its own line breaks stay line breaks. */
export function visibleText(text: string): string {
  return text.split('\n').map(visible).join('\n');
}

/**
 * JSON text of `value` in which no character a screen acts on stands raw: JSON.stringify escapes
 * C0 controls itself; C1 controls, U+2028/U+2029 and bidirectional controls become `\uXXXX`
 * escapes too, which a JSON reader reads back as the same string (they occur only inside strings).
 */
export function visibleJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A copy of a parsed record with every string (keys too) made visible. */
export function defang(value: unknown): unknown {
  if (typeof value === 'string') return visible(value);
  if (Array.isArray(value)) return value.map(defang);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[visible(k)] = defang(v);
    return out;
  }
  return value;
}

/** A function from one pino JSON line to the text a person reads (ending in a newline). */
export function terminalFormatter(opts: { colour: boolean }): (line: string) => string {
  const require = createRequire(import.meta.url);
  const { prettyFactory } = require('pino-pretty') as { prettyFactory: (o: Record<string, unknown>) => Prettify };
  const pretty = prettyFactory({
    colorize: opts.colour,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
  });
  return (line) => {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      return `${visible(line.replace(/\n$/, ''))}\n`; // not pino's: shown as it is, defanged
    }
    return pretty(defang(record) as Record<string, unknown>);
  };
}
