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
 *
 * The hub's root is its own, but a name in it may be planted: every folder is
 * made and opened by safe-open's walk (no symlink followed, owner and device
 * checked) and every file is opened without following a link and must be a
 * regular file of one link, so nothing is written outside the root. A copy
 * that does not scan as a ledger on its first open (damage an older hub let
 * in) keeps its intact part; the rest is set aside beside it, as a box's own
 * ledger does, and named in the log: the hub goes on instead of stopping at
 * it on every start. Composition documents are written here too, once per
 * hash per box, and linked into each session that cites them.
 */
import { closeSync, constants, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, linkSync, lstatSync, openSync, readSync, renameSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { syncDir, writeAllSync, writeFileAtomicSync } from '../base/durable-file.js';
import { inFolder, makeFolder, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { COMPOSITION_FILE } from '../ledger/composition.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { scanLedger } from '../ledger/scan.js';
import { isSessionId } from '../ledger/session-id.js';

const { O_RDWR, O_APPEND, O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

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

/** The folder of one box's composition documents on the hub, one per hash (`<hex>.json`). */
export function boxDocumentsDir(root: string, box: string): string {
  return join(root, 'fleet', box, '.compositions');
}

/** What the store set aside of a damaged copy, for the hub's log. */
export interface SetAside {
  file: string;
  line: number;
  problem: string;
  savedAs: string;
  kept: number;
}

export class HubStore {
  private readonly files = new Map<string, Open>();
  private opened: string[] = [];
  /** fdatasync calls made so far (the hub logs them per flush; the bench counts them) */
  syncs = 0;

  constructor(
    private readonly root: string,
    private readonly maxOpen = 128,
    /** told when a copy's damage is set aside on its first open */
    private readonly onSetAside: (s: SetAside) => void = () => {},
  ) {}

  /**
   * Append `line` (one event's JSON text, checked by line.ts) of `box`/`session` if `seq` is the
   * next one. Throws UnsafeFileError when a folder or file on the way is planted (nothing written).
   */
  offer(box: string, session: string, seq: number, line: string): Verdict {
    if (!isSessionId(session)) return 'duplicate'; // not a folder name we write; nothing to keep
    const key = `${box}/${session}`;
    let f = this.files.get(key);
    if (!f) {
      f = { fd: null, next: 0, dirty: false, lines: [] };
      try {
        this.openFile(key, f, box, session, true);
      } catch (err) {
        if (f.fd !== null) closeSync(f.fd);
        throw err;
      }
      this.files.set(key, f);
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

  /**
   * Open (creating) a session's copy, never through a link; on first touch scan it for its next seq,
   * cut a torn tail and set aside damage.
   */
  private openFile(key: string, f: Open, box: string, session: string, first: boolean): void {
    const dir = join(boxSessionsDir(this.root, box), session);
    const dirFd = makeFolder(rootRules(this.root), dir);
    try {
      const fd = openRegular(dirFd, dir, LEDGER_FILE, O_RDWR | O_APPEND | O_CREAT);
      f.fd = fd;
      this.opened.push(key);
      if (first) f.next = this.scan(fd, dirFd, dir, session);
    } finally {
      closeSync(dirFd);
    }
  }

  /** The next seq of an open copy, after cutting a torn tail and setting aside damage. */
  private scan(fd: number, dirFd: number, dir: string, session: string): number {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    const scan = scanLedger(buf.subarray(0, off), session, { strict: false });
    if (scan.damage) {
      const savedAs = `${LEDGER_FILE}.damaged-${scan.damage.offset}.${randomBytes(3).toString('hex')}`;
      const out = openRegular(dirFd, dir, savedAs, O_WRONLY | O_CREAT | O_EXCL);
      try {
        writeAllSync(out, buf.subarray(scan.damage.offset, off));
        fdatasyncSync(out);
      } finally {
        closeSync(out);
      }
      this.onSetAside({ file: join(dir, LEDGER_FILE), line: scan.damage.line, problem: scan.damage.problem, savedAs: join(dir, savedAs), kept: scan.events.length });
    }
    // a torn tail from a crash mid-append, or the damaged rest now kept beside the copy
    if (scan.intactBytes < off) {
      ftruncateSync(fd, scan.intactBytes);
      fdatasyncSync(fd);
    }
    return scan.events.length;
  }

  /**
   * Write a session's composition document: once per hash under the box's documents folder, linked
   * into the session folder (replacing whatever had that name). `text` must already be checked
   * against `hash`. Throws UnsafeFileError when a folder on the way is planted.
   */
  writeDocument(box: string, session: string, hash: string, text: string): void {
    const rules = rootRules(this.root);
    const docs = boxDocumentsDir(this.root, box);
    const dir = join(boxSessionsDir(this.root, box), session);
    const name = `${hash.replace(/^sha256:/, '')}.json`;
    const docsFd = makeFolder(rules, docs);
    try {
      const shared = inFolder(docsFd, docs, name);
      const held = lstatSync(shared, { throwIfNoEntry: false });
      if (!held?.isFile()) writeFileAtomicSync(shared, text, true, 0o640); // a planted name is replaced, never followed
      const dirFd = makeFolder(rules, dir);
      try {
        const tmp = inFolder(dirFd, dir, `.${COMPOSITION_FILE}.${randomBytes(4).toString('hex')}.tmp`);
        linkSync(shared, tmp);
        renameSync(tmp, inFolder(dirFd, dir, COMPOSITION_FILE));
        try {
          unlinkSync(tmp); // left when the name already was this very file
        } catch {
          // renamed into place
        }
        syncDir(inFolder(dirFd, dir, '.'));
      } finally {
        closeSync(dirFd);
      }
    } finally {
      closeSync(docsFd);
    }
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

/**
 * Open `name` inside the open folder without following a link (nor blocking on a FIFO); it must be
 * a regular file of one link, or it is refused and closed.
 */
function openRegular(dirFd: number, dir: string, name: string, flags: number): number {
  const file = join(dir, name);
  let fd: number;
  try {
    fd = openSync(inFolder(dirFd, dir, name), flags | O_NOFOLLOW | O_NONBLOCK, 0o640);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UnsafeFileError(file, 'symlink', 'is a symlink; the hub never writes through one', 'remove the link: the hub makes the file itself');
    if (code === 'ENXIO' || code === 'EISDIR') throw new UnsafeFileError(file, 'not_regular', 'is not a regular file', 'remove it: the hub makes the file itself');
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile() || st.nlink > 1) {
    closeSync(fd);
    throw new UnsafeFileError(file, st.isFile() ? 'links' : 'not_regular', st.isFile() ? `has ${st.nlink} hard links` : 'is not a regular file', 'remove it: the hub makes the file itself');
  }
  return fd;
}
