/**
 * The hub's copy of every box's ledgers: `<root>/fleet/<box>/sessions/<id>/events.jsonl`,
 * appended to only in seq order.
 *
 * Each session's next expected seq is known (read from its file on first
 * touch: the last whole line's seq plus one; a torn tail left by a crash of
 * the hub is cut off first). A line with that seq is appended; a lower seq is
 * a second copy (the server's dedup window is finite, an agent may send a line
 * twice) and is dropped; a higher one arrived before a line it follows and is
 * handed back to wait. So the copy is dense from 0 with no duplicate
 * `(session, seq)`, whatever the server's window, and equals the box's own
 * ledger line for line.
 *
 * Durability costs one fdatasync per flush, not one per session file: every
 * appended line is also written to one journal (`<root>/fleet/.journal`,
 * `box TAB session TAB line`), and `flush()` makes the journal durable before
 * the caller acknowledges the messages; the session files are synced at a
 * checkpoint (when the journal passes `checkpointBytes`, when a file is
 * closed, and on close), after which the journal is emptied. On open, a
 * journal left by a crash is replayed in order through the same seq check, so
 * a line that did not reach its session file's disk is appended and one that
 * did is a duplicate; a torn last record was never acknowledged (its message
 * comes again). A flush of 50 sessions was 50 syncs; it is one. At most
 * `maxOpen` files stay open.
 */
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeAllSync } from '../base/durable-file.js';
import { isSessionId } from '../ledger/session-id.js';

export type Verdict = 'appended' | 'duplicate' | 'early';

/** Journal bytes after which the session files are synced and the journal emptied. */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** The hub's journal of lines appended since the last checkpoint. */
export function journalPath(root: string): string {
  return join(root, 'fleet', '.journal');
}

const syncFd = (fd: number): Promise<void> => new Promise((ok, fail) => fdatasync(fd, (err) => (err ? fail(err) : ok())));

interface Open {
  fd: number | null;
  next: number;
  /** appended since the last flush */
  dirty: boolean;
  /** lines appended and not yet written to the file: one write per file per flush */
  lines: string[];
}

/** The folder of one box's sessions on the hub. */
export function boxSessionsDir(root: string, box: string): string {
  return join(root, 'fleet', box, 'sessions');
}

export class HubStore {
  private readonly files = new Map<string, Open>();
  private opened: string[] = [];
  private readonly journal: number;
  /** journal records of the lines appended since the last flush */
  private records: string[] = [];
  private journalBytes = 0;
  /** files appended to since the last checkpoint (their lines are safe in the journal only) */
  private readonly unsynced = new Set<string>();
  /** what the replay of a journal left by a crash did: lines appended, and lines it could not place */
  readonly recovered = { appended: 0, unplaced: 0 };

  constructor(private readonly root: string, private readonly maxOpen = 128, private readonly checkpointBytes = CHECKPOINT_BYTES) {
    mkdirSync(join(root, 'fleet'), { recursive: true });
    this.replay();
    this.journal = openSync(journalPath(root), 'a', 0o640);
    this.checkpointSync();
  }

  /** Append the whole records of a journal left by a crash (in order, through the seq check). */
  private replay(): void {
    let text: string;
    try {
      text = readFileSync(journalPath(this.root), 'utf8');
    } catch {
      return; // no journal: nothing was left unsynced
    }
    const whole = text.slice(0, text.lastIndexOf('\n') + 1); // a torn last record was never acknowledged
    for (const rec of whole.split('\n')) {
      const a = rec.indexOf('\t');
      const b = rec.indexOf('\t', a + 1);
      if (a <= 0 || b <= a) continue;
      let seq: unknown;
      try {
        seq = (JSON.parse(rec.slice(b + 1)) as { seq?: unknown }).seq;
      } catch {
        seq = undefined;
      }
      if (!Number.isInteger(seq)) continue;
      const v = this.offer(rec.slice(0, a), rec.slice(a + 1, b), seq as number, rec.slice(b + 1));
      if (v === 'appended') this.recovered.appended++;
      if (v === 'early') this.recovered.unplaced++;
    }
    this.records = [];
  }

  /** Append `line` (one event's JSON text) of `box`/`session` if `seq` is the next one. */
  offer(box: string, session: string, seq: number, line: string): Verdict {
    if (!isSessionId(session)) return 'duplicate'; // not a folder name we write; nothing to keep
    const key = `${box}/${session}`;
    let f = this.files.get(key);
    if (!f) {
      f = { fd: null, next: 0, dirty: false, lines: [] };
      this.files.set(key, f);
      this.openFile(key, f, box, session, true);
    }
    if (seq < f.next) return 'duplicate';
    if (seq > f.next) return 'early';
    if (f.fd === null) this.openFile(key, f, box, session, false);
    const text = line.endsWith('\n') ? line : line + '\n';
    f.lines.push(text);
    this.records.push(`${box}\t${session}\t${text}`);
    f.next++;
    f.dirty = true;
    this.unsynced.add(key);
    return 'appended';
  }

  /** The next seq expected for a session (0 when none arrived). */
  next(box: string, session: string): number {
    return this.files.get(`${box}/${session}`)?.next ?? 0;
  }

  /**
   * Make every append since the last flush durable: their journal records are written and the
   * journal synced, once. Then, past `checkpointBytes` of journal, a checkpoint; and files beyond
   * `maxOpen` are synced and closed. Returns the session folders appended to since the last flush.
   */
  async flush(): Promise<string[]> {
    this.writeOut();
    const touched: string[] = [];
    for (const [key, f] of this.files) {
      if (!f.dirty) continue;
      f.dirty = false;
      const [box, session] = key.split('/') as [string, string];
      touched.push(join(boxSessionsDir(this.root, box), session));
    }
    if (this.records.length > 0) {
      const buf = Buffer.from(this.records.join(''));
      this.records = [];
      writeAllSync(this.journal, buf);
      this.journalBytes += buf.length;
      await syncFd(this.journal);
    }
    if (this.journalBytes >= this.checkpointBytes) await this.checkpoint();
    for (let over = this.opened.length - this.maxOpen; over > 0; over--) {
      const key = this.opened.shift()!;
      const f = this.files.get(key);
      if (!f || f.fd === null) continue;
      if (f.dirty) {
        this.opened.push(key); // appended to during this flush: closed at a later one
        continue;
      }
      if (this.unsynced.delete(key)) await syncFd(f.fd);
      if (f.dirty || this.unsynced.has(key)) {
        this.opened.push(key); // appended to while it synced: it stays open (a file in `unsynced` always is)
        continue;
      }
      closeSync(f.fd);
      f.fd = null;
    }
    return touched;
  }

  /**
   * Sync every file appended to since the last checkpoint (side by side on the thread pool), then
   * empty the journal: its lines are all on disk in their files now.
   */
  private async checkpoint(): Promise<void> {
    const keys = [...this.unsynced];
    this.unsynced.clear();
    await Promise.all(keys.map((k) => this.files.get(k)?.fd).filter((fd): fd is number => typeof fd === 'number').map(syncFd));
    this.emptyJournal();
  }

  /** Write each file's appended lines to it, one write per file (a reader sees them from then on). */
  private writeOut(): void {
    for (const f of this.files.values()) {
      if (f.lines.length === 0) continue;
      writeAllSync(f.fd!, Buffer.from(f.lines.join('')));
      f.lines = [];
    }
  }

  /** The same, at once (on open after a replay, and on close). */
  private checkpointSync(): void {
    this.writeOut();
    for (const k of this.unsynced) {
      const fd = this.files.get(k)?.fd;
      if (typeof fd === 'number') fdatasyncSync(fd);
    }
    this.unsynced.clear();
    this.emptyJournal();
  }

  /** Empty the journal; records not yet flushed are not in it, and go in at the next flush. */
  private emptyJournal(): void {
    ftruncateSync(this.journal, 0);
    fdatasyncSync(this.journal);
    this.journalBytes = 0;
  }

  /** Open (creating) a session's copy; on first touch read its next seq and cut a torn tail. */
  private openFile(key: string, f: Open, box: string, session: string, first: boolean): void {
    const dir = join(boxSessionsDir(this.root, box), session);
    mkdirSync(dir, { recursive: true });
    const fd = openSync(join(dir, 'events.jsonl'), 'a+', 0o640);
    f.fd = fd;
    this.opened.push(key);
    if (!first) return;
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    const lastNl = buf.lastIndexOf(0x0a, off - 1);
    if (lastNl + 1 < off) ftruncateSync(fd, lastNl + 1); // a torn tail from a crash mid-append
    const prevNl = lastNl <= 0 ? -1 : buf.lastIndexOf(0x0a, lastNl - 1);
    if (lastNl < 0) return;
    const last = JSON.parse(buf.toString('utf8', prevNl + 1, lastNl)) as { seq: number };
    f.next = last.seq + 1;
  }

  /** Write, sync and close every file, and empty the journal (after a final flush). */
  close(): void {
    this.records = [];
    this.checkpointSync();
    for (const f of this.files.values()) if (f.fd !== null) closeSync(f.fd);
    closeSync(this.journal);
    this.files.clear();
  }
}
