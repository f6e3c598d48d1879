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
 * ledger line for line. Lines are held per file and written at `flush()`,
 * one write per file, and `flush()` makes them durable (one fdatasync per
 * file it wrote, side by side) before the caller acknowledges the messages:
 * a flush of a thousand lines over fifty sessions is fifty writes and fifty
 * syncs, not a thousand of each. (A single journal synced once per flush was
 * tried and measured slower here: every line written twice.) At most
 * `maxOpen` files stay open.
 */
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeAllSync } from '../base/durable-file.js';
import { isSessionId } from '../ledger/session-id.js';

export type Verdict = 'appended' | 'duplicate' | 'early';

interface Open {
  fd: number | null;
  next: number;
  /** appended since the last flush */
  dirty: boolean;
  /** lines appended and not yet written to the file */
  lines: string[];
}

/** The folder of one box's sessions on the hub. */
export function boxSessionsDir(root: string, box: string): string {
  return join(root, 'fleet', box, 'sessions');
}

export class HubStore {
  private readonly files = new Map<string, Open>();
  private opened: string[] = [];
  /** fdatasync calls made so far (the hub logs them per flush; the bench counts them) */
  syncs = 0;

  constructor(private readonly root: string, private readonly maxOpen = 128) {}

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
    f.lines.push(line.endsWith('\n') ? line : line + '\n');
    f.next++;
    f.dirty = true;
    return 'appended';
  }

  /** The next seq expected for a session (0 when none arrived). */
  next(box: string, session: string): number {
    return this.files.get(`${box}/${session}`)?.next ?? 0;
  }

  /**
   * Write each file's lines appended since the last flush in one write, and fdatasync those files,
   * several at once (the thread pool runs them side by side: a flush touches many sessions, and one
   * after another they cost a disk round trip each); returns the session folders touched.
   */
  async flush(): Promise<string[]> {
    const touched: string[] = [];
    const syncs: Promise<void>[] = [];
    for (const [key, f] of this.files) {
      if (!f.dirty || f.fd === null) continue;
      const fd = f.fd;
      writeAllSync(fd, Buffer.from(f.lines.join('')));
      f.lines = [];
      this.syncs++;
      syncs.push(new Promise((ok, fail) => fdatasync(fd, (err) => (err ? fail(err) : ok()))));
      f.dirty = false;
      const [box, session] = key.split('/') as [string, string];
      touched.push(join(boxSessionsDir(this.root, box), session));
    }
    await Promise.all(syncs);
    while (this.opened.length > this.maxOpen) {
      const key = this.opened.shift()!;
      const f = this.files.get(key);
      if (f && f.fd !== null && !f.dirty) {
        closeSync(f.fd);
        f.fd = null;
      }
    }
    return touched;
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

  /** Close every file (after a final flush). */
  close(): void {
    for (const f of this.files.values()) {
      if (f.fd === null) continue;
      if (f.dirty) {
        writeAllSync(f.fd, Buffer.from(f.lines.join('')));
        fdatasyncSync(f.fd);
      }
      closeSync(f.fd);
    }
    this.files.clear();
  }
}
