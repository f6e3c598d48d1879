/**
 * Scanning a ledger's bytes: the intact prefix, and what ends it.
 *
 * A ledger is whole when every line is a UTF-8 JSON event, `seq` is dense
 * from 0 and every event names this session. Reading stops at the first line
 * that breaks this, and says which kind of end it is:
 *  - a torn tail: the last line has no newline, or is the last line and does
 *    not parse (a crash mid-append; the writer sets it aside and goes on);
 *  - damage: anything else — a bad line with lines after it, a repeated or
 *    skipped seq, another session's event, bytes that are not UTF-8. That is
 *    not what a crash leaves, so the session cannot be trusted past it: the
 *    writer quarantines the rest and closes the session (ledger.ts), and
 *    `pico check` reports it.
 * This module only reads; it moves and truncates nothing.
 */
import { parseEvent, type LedgerEvent } from './events.js';

export interface LedgerDamage {
  /** 1-based line number of the first bad line */
  line: number;
  /** byte offset where the bad line starts (= the intact prefix's length) */
  offset: number;
  problem: string;
}

export interface LedgerScan {
  events: LedgerEvent[];
  /** bytes of the intact prefix (every complete, good line before the end) */
  intactBytes: number;
  /** a torn last line (set only when there is no damage) */
  torn: boolean;
  damage: LedgerDamage | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface ScanOptions {
  /**
   * false: a line is an event when it is a JSON object with a string `type` (seq and session
   * are still checked) — for readers of ledgers other implementations or versions wrote (memory)
   */
  strict?: boolean;
}

/** Scan ledger bytes; `sessionId`, when given, must be every event's session. */
export function scanLedger(buf: Uint8Array, sessionId?: string, o: ScanOptions = {}): LedgerScan {
  const parse = o.strict === false ? looseEvent : parseEvent;
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const events: LedgerEvent[] = [];
  let offset = 0;
  let line = 0;
  while (offset < bytes.length) {
    const nl = bytes.indexOf(0x0a, offset);
    line++;
    if (nl === -1) return { events, intactBytes: offset, torn: true, damage: null };
    const last = nl === bytes.length - 1;
    const problem = lineProblem(bytes.subarray(offset, nl), events.length, sessionId, parse, (e) => events.push(e));
    if (problem !== null) {
      if (last && problem.kind === 'unreadable') return { events, intactBytes: offset, torn: true, damage: null };
      return { events, intactBytes: offset, torn: false, damage: { line, offset, problem: problem.text } };
    }
    offset = nl + 1;
  }
  return { events, intactBytes: offset, torn: false, damage: null };
}

/** Why one line is not the next event (pushing it when it is). */
function lineProblem(raw: Buffer, expectedSeq: number, sessionId: string | undefined, parse: (v: unknown) => LedgerEvent, push: (e: LedgerEvent) => void): { kind: 'unreadable' | 'order'; text: string } | null {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { kind: 'unreadable', text: 'the line is not UTF-8 text' };
  }
  let event: LedgerEvent;
  try {
    event = parse(JSON.parse(text));
  } catch (err) {
    // the parser's message never quotes the line itself (it may be anything)
    const what = err instanceof SyntaxError ? 'the line is not JSON' : `not a ledger event (${(err as Error).message.slice(0, 300)})`;
    return { kind: 'unreadable', text: raw.length === 0 ? 'an empty line' : what };
  }
  if (event.seq !== expectedSeq) {
    const why = event.seq < expectedSeq ? 'a seq repeated (two writers, or lines copied)' : 'seqs are missing (lines were removed)';
    return { kind: 'order', text: `seq ${event.seq} where ${expectedSeq} was expected: ${why}` };
  }
  if (sessionId !== undefined && event.session_id !== sessionId) {
    return { kind: 'order', text: `event ${event.seq} belongs to session ${event.session_id}, not ${sessionId}` };
  }
  push(event);
  return null;
}

/** The loose reading: any JSON object with a string type and an integer seq. */
function looseEvent(v: unknown): LedgerEvent {
  const o = v as { type?: unknown; seq?: unknown } | null;
  if (typeof o !== 'object' || o === null || Array.isArray(o) || typeof o.type !== 'string' || !Number.isInteger(o.seq)) {
    throw new Error('not an object with a string type and an integer seq');
  }
  return o as LedgerEvent;
}
