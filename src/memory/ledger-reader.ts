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
import { closeSync, openSync, readSync, statSync } from 'node:fs';

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

/** Read the bytes [from, to) of a file. */
function readRange(path: string, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(to - from);
  const fd = openSync(path, 'r');
  try {
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, from + off);
      if (n === 0) break;
      off += n;
    }
    return off === buf.length ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
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

/** Read the events of a ledger from byte `from` up to byte `to` (its current size). */
export function readLedger(path: string, from: number, to: number): LedgerChunk {
  const out: LedgerChunk = { lines: [], end: from, skipped: 0, tornTail: false };
  if (to <= from) return out;
  const buf = readRange(path, from, to);
  let start = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const last = nl === -1;
    const stop = last ? buf.length : nl;
    const text = buf.toString('utf8', start, stop).trim();
    if (text.length > 0) {
      const event = parseLine(text);
      if (event) out.lines.push({ event });
      else if (last) {
        out.tornTail = true; // unfinished: leave it for the next read
        break;
      } else out.skipped++;
    }
    start = last ? buf.length : nl + 1;
    out.end = from + start;
  }
  return out;
}
