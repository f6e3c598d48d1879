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
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

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
 * The events of `buf`, the bytes of a ledger from byte `from`. The complete lines are decoded in
 * one piece (a newline byte never occurs inside a UTF-8 sequence, so the lines are the same as
 * decoded one by one, and one decode is cheaper than one per line); the rest after the last
 * newline is consumed only when it parses as an event.
 */
function parseChunk(buf: Buffer, from: number): LedgerChunk {
  const out: LedgerChunk = { lines: [], end: from, skipped: 0, tornTail: false };
  const lastNl = buf.lastIndexOf(0x0a);
  if (lastNl >= 0) {
    const text = buf.toString('utf8', 0, lastNl);
    for (let start = 0; start <= text.length; ) {
      const nl = text.indexOf('\n', start);
      const stop = nl === -1 ? text.length : nl;
      const line = trimmed(text.slice(start, stop));
      if (line.length > 0) {
        const event = parseLine(line);
        if (event) out.lines.push({ event });
        else out.skipped++;
      }
      start = stop + 1;
    }
    out.end = from + lastNl + 1;
  }
  if (lastNl + 1 < buf.length) {
    const tail = buf.toString('utf8', lastNl + 1).trim();
    if (tail.length > 0) {
      const event = parseLine(tail);
      if (!event) {
        out.tornTail = true; // unfinished: leave it for the next read
        return out;
      }
      out.lines.push({ event });
    }
    out.end = from + buf.length;
  }
  return out;
}

/** Read the events of a ledger from byte `from` up to byte `to` (its current size). */
export function readLedger(path: string, from: number, to: number): LedgerChunk {
  if (to <= from) return { lines: [], end: from, skipped: 0, tornTail: false };
  const fd = openSync(path, 'r');
  try {
    return parseChunk(readRange(fd, from, to), from);
  } finally {
    closeSync(fd);
  }
}

/**
 * Read a whole ledger, its size taken from the open file (null when it does not exist): for a
 * ledger no earlier ingest read, so there is no size to compare first, and one look-up of the
 * path instead of two (a bulk load opens thousands).
 */
export function readWholeLedger(path: string): LedgerChunk | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    return parseChunk(readRange(fd, 0, fstatSync(fd).size), 0);
  } finally {
    closeSync(fd);
  }
}
