/**
 * The session ledger: `sessions/<id>/events.jsonl`, append-only, one event per
 * line, `seq` dense from 0. It is the only truth about a session; plans,
 * facts and budget spent are folds over it.
 *
 * Durability: `append` writes each event with one write(2) on an O_APPEND
 * descriptor (visible to readers at once); `commit` fdatasyncs. The runtime
 * commits after every fact and failure, so a committed fact is on disk before
 * the next step starts, while the events of one step in flight share a
 * single fdatasync. A crash before `commit` loses only uncommitted events of
 * the step in flight, which a resume re-runs.
 *
 * Torn tail: power loss mid-append can leave a last line without its newline
 * or with half a JSON object. `open` detects it, moves the torn bytes to
 * `events.jsonl.torn-<offset>` (nothing is thrown away) and truncates the
 * ledger to the last complete event. Damage anywhere but the tail is not a
 * torn append and is refused with the line number.
 */
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync, fsyncSync } from 'node:fs';
import { join } from 'node:path';
import { BlobStore } from './blobs.js';
import { systemClock, type Clock } from './clock.js';
import { parseEvent, type LedgerEvent, type NewEvent } from './events.js';

export const LEDGER_FILE = 'events.jsonl';

export class LedgerError extends Error {
  override name = 'LedgerError';
}

export interface OpenedLedger {
  ledger: Ledger;
  /** set when a torn last line was found and set aside */
  torn: { offset: number; bytes: number; savedAs: string } | null;
}

/** Parse a ledger file's text into events; returns the byte length of the intact prefix. */
export function readLedgerText(text: string, path: string): { events: LedgerEvent[]; intactBytes: number } {
  const events: LedgerEvent[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    lineNo++;
    if (nl === -1) break; // no newline: a torn tail
    const line = text.slice(offset, nl);
    let event: LedgerEvent;
    try {
      event = parseEvent(JSON.parse(line));
    } catch (err) {
      if (nl === text.length - 1) break; // the last line is damaged: torn tail
      throw new LedgerError(`${path}:${lineNo}: damaged event in the middle of the ledger (${(err as Error).message}); this is not a torn append — restore the file from a backup or move the session aside`);
    }
    if (event.seq !== events.length) {
      throw new LedgerError(`${path}:${lineNo}: seq ${event.seq} where ${events.length} was expected; the ledger is not dense — it was edited by hand or two writers appended to it`);
    }
    events.push(event);
    offset = nl + 1;
  }
  return { events, intactBytes: Buffer.byteLength(text.slice(0, offset), 'utf8') };
}

export class Ledger {
  private fd: number;
  private closed = false;
  private dirty = false;
  readonly blobs: BlobStore;
  /** called with every event once it is written (for live observers such as the daemon's log) */
  onAppend: ((e: LedgerEvent) => void) | null = null;

  private constructor(
    readonly dir: string,
    readonly sessionId: string,
    private readonly events: LedgerEvent[],
    readonly clock: Clock,
  ) {
    this.fd = openSync(join(dir, LEDGER_FILE), 'a');
    this.blobs = new BlobStore(join(dir, 'blobs'));
  }

  /** Open (or create) the ledger of a session folder, recovering a torn last line. */
  static open(dir: string, sessionId: string, clock: Clock = systemClock): OpenedLedger {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, LEDGER_FILE);
    let torn: OpenedLedger['torn'] = null;
    let events: LedgerEvent[] = [];
    if (existsSync(path)) {
      const raw = readFileSync(path);
      const read = readLedgerText(raw.toString('utf8'), path);
      events = read.events;
      if (read.intactBytes < raw.length) {
        const savedAs = `${path}.torn-${read.intactBytes}`;
        writeFileSync(savedAs, raw.subarray(read.intactBytes));
        const fd = openSync(path, 'r+');
        try {
          ftruncateSync(fd, read.intactBytes);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        torn = { offset: read.intactBytes, bytes: raw.length - read.intactBytes, savedAs };
      }
      for (const e of events) {
        if (e.session_id !== sessionId) throw new LedgerError(`${path}: event ${e.seq} belongs to session ${e.session_id}, not ${sessionId}`);
      }
    }
    // A new ledger's directory entry is not fsynced here: if a power cut loses it, the session
    // folder still holds job.json and the session simply starts again from the beginning.
    return { ledger: new Ledger(dir, sessionId, events, clock), torn };
  }

  /** Every event appended so far, in order (read-only view). */
  get all(): readonly LedgerEvent[] {
    return this.events;
  }

  get nextSeq(): number {
    return this.events.length;
  }

  get path(): string {
    return join(this.dir, LEDGER_FILE);
  }

  /** Stamp, validate and write events (one write each); durable only after `commit`. */
  append(...input: NewEvent[]): LedgerEvent[] {
    if (this.closed) throw new LedgerError(`ledger ${this.path} is closed`);
    const out: LedgerEvent[] = [];
    for (const e of input) {
      const seq = this.events.length;
      const event = parseEvent({ seq, t: this.clock.stamp(seq), session_id: this.sessionId, ...e });
      writeSync(this.fd, JSON.stringify(event) + '\n');
      this.events.push(event);
      this.dirty = true;
      out.push(event);
      this.onAppend?.(event);
    }
    return out;
  }

  /** Make every appended event durable (fdatasync); cheap when nothing is pending. */
  commit(): void {
    if (this.dirty && !this.closed) {
      fdatasyncSync(this.fd);
      this.dirty = false;
    }
  }

  /** Append and commit in one call. */
  appendDurable(...input: NewEvent[]): LedgerEvent[] {
    const out = this.append(...input);
    this.commit();
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.commit();
    closeSync(this.fd);
    this.closed = true;
  }
}

/** Read a ledger without opening it for writing (a torn tail is ignored, not repaired). */
export function readLedger(dir: string): LedgerEvent[] {
  const path = join(dir, LEDGER_FILE);
  if (!existsSync(path)) return [];
  return readLedgerText(readFileSync(path, 'utf8'), path).events;
}
