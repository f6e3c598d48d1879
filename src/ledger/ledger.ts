/**
 * The session ledger: `sessions/<id>/events.jsonl`, append-only, one event per
 * line, `seq` dense from 0. It is the only truth about a session; plans,
 * facts and budget spent are folds over it.
 *
 * Durability: `append` writes each event as one line on an O_APPEND
 * descriptor (visible to readers at once); `commit` fdatasyncs. The runtime
 * commits after every failure, and after a fact before anything can change the
 * world (a tool that is not read-only and idempotent) and before the answer
 * goes out; the steps in between share one fdatasync. A crash before `commit`
 * loses only uncommitted events, whose steps a resume re-runs.
 *
 * Whole or not at all: an append loops over short writes; if a write fails
 * (a full disk, an I/O error) the partial line is cut off again and a
 * StorageError is thrown, so the file on disk always ends at an event
 * boundary and the in-memory events never run ahead of it. After a failed
 * fdatasync the page cache cannot be trusted, so the ledger refuses further
 * appends; the caller reopens it from disk once writing works again.
 *
 * Torn tail: power loss mid-append can leave a last line without its newline
 * or with half a JSON object. `open` detects it, moves the torn bytes to
 * `events.jsonl.torn-<offset>` (nothing is thrown away) and truncates the
 * ledger to the last complete event. Damage anywhere but the tail (scan.ts)
 * is not a torn append: `open` keeps the intact prefix, moves everything
 * after it to `events.jsonl.damaged-<offset>` and reports it, and the runtime
 * closes the session instead of resuming it.
 */
import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, fsyncSync } from 'node:fs';
import { join } from 'node:path';
import { BlobStore } from './blobs.js';
import { systemClock, type Clock } from './clock.js';
import { parseEvent, type LedgerEvent, type NewEvent } from './events.js';
import { scanLedger, type LedgerDamage } from './scan.js';
import { writeAllSync, writeFileAtomicSync } from '../base/durable-file.js';
import { StorageError, storageCode } from '../base/storage-error.js';

export const LEDGER_FILE = 'events.jsonl';

export class LedgerError extends Error {
  override name = 'LedgerError';
}

export interface OpenedLedger {
  ledger: Ledger;
  /** set when a torn last line was found and set aside */
  torn: { offset: number; bytes: number; savedAs: string } | null;
  /** set when damage before the tail was found: the rest of the file was set aside */
  damaged: (LedgerDamage & { bytes: number; savedAs: string }) | null;
}

/** Parse a ledger file's text into events; throws a LedgerError naming the line on damage before the tail. */
export function readLedgerText(text: string, path: string): { events: LedgerEvent[]; intactBytes: number } {
  const scan = scanLedger(Buffer.from(text, 'utf8'));
  if (scan.damage) throw new LedgerError(damageMessage(path, scan.damage));
  return { events: scan.events, intactBytes: scan.intactBytes };
}

/** The message for damage found in a ledger: where, what, and what to do. */
export function damageMessage(path: string, d: LedgerDamage): string {
  return `${path}:${d.line}: the ledger is damaged before its end (${d.problem}); this is not a torn append — run \`pico check\` to see every damaged session; restore the file from a backup, or let the daemon close the session (it keeps the intact prefix and sets the rest aside)`;
}

/** Move the bytes of `path` from `offset` on to a new file beside it named `<path>.<kind>-<offset>`, then truncate. */
function setAside(path: string, raw: Buffer, offset: number, kind: 'torn' | 'damaged'): string {
  let savedAs = `${path}.${kind}-${offset}`;
  for (let n = 2; existsSync(savedAs); n++) savedAs = `${path}.${kind}-${offset}.${n}`;
  writeFileAtomicSync(savedAs, raw.subarray(offset), true);
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return savedAs;
}

export class Ledger {
  private fd: number;
  private closed = false;
  private dirty = false;
  /** bytes on disk that hold whole events */
  private size: number;
  /** a write or fdatasync failed: the state on disk is only known after reopening */
  private broken: Error | null = null;
  /** the time nextTime() read for the event of that seq, which its append then carries */
  private nextStamp: { seq: number; t: string } | null = null;
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
    this.size = fstatSync(this.fd).size;
    this.blobs = new BlobStore(join(dir, 'blobs'));
  }

  /** Open (or create) the ledger of a session folder, recovering a torn last line and setting damage aside. */
  static open(dir: string, sessionId: string, clock: Clock = systemClock): OpenedLedger {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, LEDGER_FILE);
    let torn: OpenedLedger['torn'] = null;
    let damaged: OpenedLedger['damaged'] = null;
    let events: LedgerEvent[] = [];
    if (existsSync(path)) {
      const raw = readFileSync(path);
      const scan = scanLedger(raw, sessionId);
      events = scan.events;
      if (scan.intactBytes < raw.length) {
        const bytes = raw.length - scan.intactBytes;
        const savedAs = setAside(path, raw, scan.intactBytes, scan.damage ? 'damaged' : 'torn');
        if (scan.damage) damaged = { ...scan.damage, bytes, savedAs };
        else torn = { offset: scan.intactBytes, bytes, savedAs };
      }
    }
    // A new ledger's directory entry is not fsynced here: if a power cut loses it, the session
    // folder still holds job.json and the session simply starts again from the beginning.
    return { ledger: new Ledger(dir, sessionId, events, clock), torn, damaged };
  }

  /** Every event appended so far, in order (read-only view). */
  get all(): readonly LedgerEvent[] {
    return this.events;
  }

  get nextSeq(): number {
    return this.events.length;
  }

  /**
   * The time the next event will carry, read before it is appended (a field derived from it, like a
   * fact's valid_until): its append takes this same reading, so live and replay agree on both.
   */
  nextTime(): string {
    const seq = this.events.length;
    if (this.nextStamp?.seq !== seq) this.nextStamp = { seq, t: this.clock.stamp(seq) };
    return this.nextStamp.t;
  }

  get path(): string {
    return join(this.dir, LEDGER_FILE);
  }

  /** Stamp, validate and write events (each whole or not at all); durable only after `commit`. */
  append(...input: NewEvent[]): LedgerEvent[] {
    if (this.closed) throw new LedgerError(`ledger ${this.path} is closed`);
    if (this.broken) throw this.broken;
    const out: LedgerEvent[] = [];
    for (const e of input) {
      const seq = this.events.length;
      const event = parseEvent({ seq, t: this.nextStamp?.seq === seq ? this.nextStamp.t : this.clock.stamp(seq), session_id: this.sessionId, ...e });
      const line = Buffer.from(JSON.stringify(event) + '\n');
      try {
        writeAllSync(this.fd, line);
      } catch (err) {
        throw this.fail(err, `appending event ${seq} (${event.type})`);
      }
      this.size += line.length;
      this.events.push(event);
      this.dirty = true;
      out.push(event);
      this.onAppend?.(event);
    }
    return out;
  }

  /** Make every appended event durable (fdatasync); cheap when nothing is pending. */
  commit(): void {
    if (this.broken) throw this.broken;
    if (this.dirty && !this.closed) {
      try {
        fdatasyncSync(this.fd);
      } catch (err) {
        throw this.fail(err, 'making the ledger durable (fdatasync)');
      }
      this.dirty = false;
    }
  }

  /** A write failed: cut a partial line off again, refuse further writes, and say what happened. */
  private fail(err: unknown, doing: string): Error {
    const code = storageCode(err);
    let cut = '';
    try {
      ftruncateSync(this.fd, this.size);
    } catch (e) {
      cut = `; cutting the partial line off failed too (${(e as Error).message}), so the next open sets it aside as a torn tail`;
    }
    const message = `${this.path}: ${doing} failed: ${(err as Error).message}${cut}`;
    this.broken = code ? new StorageError(message, code, { cause: err }) : Object.assign(new Error(message, { cause: err }), { name: (err as Error).name });
    return this.broken;
  }

  /** Append and commit in one call. */
  appendDurable(...input: NewEvent[]): LedgerEvent[] {
    const out = this.append(...input);
    this.commit();
    return out;
  }

  /** Commit and close (`commit: false`: the caller syncs the file before it reports what it holds); a ledger whose writes failed is closed without a commit. */
  close(opts: { commit?: boolean } = {}): void {
    if (this.closed) return;
    try {
      if (!this.broken && opts.commit !== false) this.commit();
    } finally {
      closeSync(this.fd);
      this.closed = true;
    }
  }
}

/** Read a ledger without opening it for writing (a torn tail is ignored, not repaired). */
export function readLedger(dir: string): LedgerEvent[] {
  const path = join(dir, LEDGER_FILE);
  if (!existsSync(path)) return [];
  // bytes, not text: decoding first would turn bytes that are not UTF-8 into U+FFFD unseen
  const scan = scanLedger(readFileSync(path));
  if (scan.damage) throw new LedgerError(damageMessage(path, scan.damage));
  return scan.events;
}
