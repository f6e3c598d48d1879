/**
 * Reading a ledger from a byte offset, tolerating a torn last line.
 *
 * Memory reads ledgers itself (not through the ledger writer) because it must
 * also read ledgers written by other implementations and ledgers still being
 * written. A last line without a newline is consumed only when it parses as a
 * JSON object (a truncated object never does); otherwise it is left for the
 * next read, when the writer may have finished it. A bad line in the middle is
 * skipped and counted, never fatal. This module does not validate event
 * shapes; `ingest.ts` reads the fields it needs.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';

export interface LedgerLine {
  /** the parsed object; it has at least a `type` string and an integer `seq` */
  event: Record<string, unknown> & { type: string; seq: number };
}

export interface LedgerChunk {
  lines: LedgerLine[];
  /** byte offset just after the last consumed line; the next read starts here */
  end: number;
  /** complete lines that were not a ledger event (bad JSON, no type, no seq) */
  skipped: number;
  /** true when an unfinished last line was left for a later read */
  tornTail: boolean;
}

/** Size of a ledger in bytes, or null when it does not exist. */
export function ledgerSize(path: string): number | null {
  try {
    return statSync(path).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Read the bytes [from, to) of an open file (fewer when it is shorter now). */
function readRange(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(to - from);
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, from + off);
    if (n === 0) break;
    off += n;
  }
  return off === buf.length ? buf : buf.subarray(0, off);
}

/** Parse one line into an event, or null when it is not one. */
function parseLine(text: string): LedgerLine['event'] | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.type !== 'string' || !Number.isInteger(o.seq) || (o.seq as number) < 0) return null;
  return o as LedgerLine['event'];
}

/** A line without the white space around it (a line as written, `{...}`, has none to cut). */
const trimmed = (line: string): string =>
  line.charCodeAt(0) === 0x7b && line.charCodeAt(line.length - 1) === 0x7d ? line : line.trim();

/**
 * The events of a ledger's text from byte `from`: `complete` is its lines up to the last newline
 * (null when it has none), ending at byte `completeEnd`; `tail` is the rest, ending at `fullEnd`,
 * consumed only when it parses as an event.
 */
function parseChunk(complete: string | null, completeEnd: number, tail: string, fullEnd: number, from: number): LedgerChunk {
  const out: LedgerChunk = { lines: [], end: from, skipped: 0, tornTail: false };
  if (complete !== null) {
    for (let start = 0; start <= complete.length; ) {
      const nl = complete.indexOf('\n', start);
      const stop = nl === -1 ? complete.length : nl;
      const line = trimmed(complete.slice(start, stop));
      if (line.length > 0) {
        const event = parseLine(line);
        if (event) out.lines.push({ event });
        else out.skipped++;
      }
      start = stop + 1;
    }
    out.end = completeEnd;
  }
  const last = tail.trim();
  if (last.length > 0) {
    const event = parseLine(last);
    if (!event) {
      out.tornTail = true; // unfinished: leave it for the next read
      return out;
    }
    out.lines.push({ event });
  }
  out.end = fullEnd;
  return out;
}

/**
 * The events of `buf`, the bytes of a ledger from byte `from`. The complete lines are decoded in
 * one piece: a newline byte never occurs inside a UTF-8 sequence, so the lines are the same as
 * decoded one by one, and one decode is cheaper than one per line.
 */
function parseBytes(buf: Buffer, from: number): LedgerChunk {
  const lastNl = buf.lastIndexOf(0x0a);
  const complete = lastNl >= 0 ? buf.toString('utf8', 0, lastNl) : null;
  return parseChunk(complete, from + lastNl + 1, buf.toString('utf8', lastNl + 1), from + buf.length, from);
}

/** Read the events of a ledger from byte `from` up to byte `to` (its current size). */
export function readLedger(path: string, from: number, to: number): LedgerChunk {
  if (to <= from) return { lines: [], end: from, skipped: 0, tornTail: false };
  const fd = openSync(path, 'r');
  try {
    return parseBytes(readRange(fd, from, to), from);
  } finally {
    closeSync(fd);
  }
}

/** readFileSync's options as one object: a string is copied into a new one on every call. */
const UTF8 = { encoding: 'utf8' } as const;

/**
 * Read a whole ledger (null when it does not exist): for a ledger no earlier ingest read, so
 * there is no size to compare first. It is read as text in one call, which costs half of opening,
 * sizing, reading and decoding it step by step (a bulk load reads thousands); the byte offsets are
 * then the text's UTF-8 lengths, exact unless the decode replaced a byte it could not read (a
 * U+FFFD in the text, which a ledger holds rarely): then the bytes are read and counted instead.
 */
export function readWholeLedger(path: string): LedgerChunk | null {
  let text: string;
  try {
    text = readFileSync(path, UTF8);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (text.includes('\ufffd')) return parseBytes(readFileSync(path), 0);
  const lastNl = text.lastIndexOf('\n');
  const tail = text.slice(lastNl + 1);
  const size = Buffer.byteLength(text);
  return parseChunk(lastNl >= 0 ? text.slice(0, lastNl) : null, size - Buffer.byteLength(tail), tail, size, 0);
}
