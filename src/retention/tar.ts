/**
 * A small POSIX tar (ustar, with pax records for long names) writer and
 * entry reader — just enough for retention's monthly archives, so `tar tzf`
 * and `tar xzf` read what `pico gc --archive` wrote, with no dependency.
 *
 * The writer makes the blocks of one entry (header, data padding) and the
 * end-of-archive marker; the reader walks an existing archive entry by entry
 * and hands back each entry's raw blocks (a pax header travels with the entry
 * it describes), so an archive can be copied into a new one minus some
 * entries. Compression and files on disk are `archive.ts`'s business. It
 * handles regular files, folders and symbolic links; sizes up to 8 GiB.
 */

export const BLOCK = 512;
const MAX_SIZE = 8 ** 11 - 1;

export type EntryType = 'file' | 'dir' | 'symlink';

export interface EntryHeader {
  /** path inside the archive, forward slashes, no leading slash; a folder's ends without one */
  name: string;
  type: EntryType;
  mode: number;
  /** bytes of data (0 for folders and links) */
  size: number;
  /** seconds since the epoch */
  mtime: number;
  linkname?: string;
}

const FLAG: Record<EntryType, string> = { file: '0', dir: '5', symlink: '2' };

/** Write `value` as zero-padded octal in `width` bytes (the last one NUL). */
function octal(buf: Buffer, offset: number, width: number, value: number): void {
  buf.write(Math.floor(value).toString(8).padStart(width - 1, '0') + '\0', offset, width, 'latin1');
}

/** Split a long path into ustar's prefix (≤155 bytes) and name (≤100 bytes) at a slash, or null. */
function splitName(name: string): { prefix: string; name: string } | null {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', name };
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100 && rest.length > 0) return { prefix, name: rest };
  }
  return null;
}

/** One 512-byte ustar header. */
function header(h: { name: string; prefix: string; flag: string; mode: number; size: number; mtime: number; linkname: string }): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, 'utf8');
  octal(b, 100, 8, h.mode & 0o7777);
  octal(b, 108, 8, 0);
  octal(b, 116, 8, 0);
  octal(b, 124, 12, h.size);
  octal(b, 136, 12, h.mtime);
  b.write(' '.repeat(8), 148, 8, 'latin1');
  b.write(h.flag, 156, 1, 'latin1');
  b.write(h.linkname, 157, 100, 'utf8');
  b.write('ustar\u000000', 257, 8, 'latin1');
  b.write(h.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of b) sum += byte;
  b.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'latin1');
  return b;
}

/** A pax record "LEN key=value\n", LEN counting the whole record including itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

/** The blocks that start an entry: a pax header when the name or link does not fit ustar, then the ustar header. */
export function entryHeader(e: EntryHeader): Buffer {
  if (e.size > MAX_SIZE) throw new RangeError(`${e.name}: ${e.size} bytes is more than this tar writer stores (8 GiB)`);
  const name = e.type === 'dir' && !e.name.endsWith('/') ? `${e.name}/` : e.name;
  const linkname = e.linkname ?? '';
  const split = splitName(name);
  const longLink = Buffer.byteLength(linkname) > 100;
  const ustar = header({
    name: split ? split.name : name.slice(0, 99), prefix: split ? split.prefix : '', flag: FLAG[e.type],
    mode: e.mode, size: e.type === 'file' ? e.size : 0, mtime: e.mtime, linkname: longLink ? '' : linkname,
  });
  if (split && !longLink) return ustar;
  const pax = Buffer.from((split ? '' : paxRecord('path', name)) + (longLink ? paxRecord('linkpath', linkname) : ''), 'utf8');
  const paxHead = header({ name: 'PaxHeader', prefix: '', flag: 'x', mode: 0o644, size: pax.length, mtime: e.mtime, linkname: '' });
  return Buffer.concat([paxHead, pax, padding(pax.length), ustar]);
}

/** Zeros that fill a data section of `size` bytes up to the block boundary. */
export function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The end of an archive: two zero blocks. */
export const END = Buffer.alloc(2 * BLOCK);

/** Reads exact byte counts from a stream of chunks. */
class Blocks {
  private buf: Buffer = Buffer.alloc(0);
  private readonly it: AsyncIterator<Buffer>;
  constructor(source: AsyncIterable<Buffer>) {
    this.it = source[Symbol.asyncIterator]();
  }
  /** Exactly `n` bytes, or null at a clean end of input; a short tail is an error. */
  async take(n: number): Promise<Buffer | null> {
    while (this.buf.length < n) {
      const r = await this.it.next();
      if (r.done) {
        if (this.buf.length === 0) return null;
        throw new Error(`the archive ends in the middle of an entry (${this.buf.length} of ${n} bytes)`);
      }
      this.buf = this.buf.length === 0 ? r.value : Buffer.concat([this.buf, r.value]);
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
}

const field = (b: Buffer, offset: number, width: number): string => {
  const raw = b.subarray(offset, offset + width);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul === -1 ? width : nul).toString('utf8');
};

/** The value of `path` in a pax body, if it has one. */
function paxPath(body: Buffer): string | null {
  let text = body.toString('utf8');
  let found: string | null = null;
  while (text.length > 0) {
    const space = text.indexOf(' ');
    const len = Number(text.slice(0, space));
    if (!(len > 0) || space === -1) break;
    const rec = text.slice(space + 1, len - 1);
    const eq = rec.indexOf('=');
    if (rec.slice(0, eq) === 'path') found = rec.slice(eq + 1);
    text = text.slice(len);
  }
  return found;
}

export interface RawEntry {
  /** the entry's path (the pax path when there is one) */
  name: string;
  /** every block of the entry, pax header included, ready to copy */
  blocks: Buffer[];
}

/** Entries of an uncompressed tar stream, in order; stops at the end marker. Checks each header's checksum. */
export async function* readEntries(source: AsyncIterable<Buffer>): AsyncGenerator<RawEntry> {
  const blocks = new Blocks(source);
  let pending: Buffer[] = [];
  let pendingPath: string | null = null;
  for (;;) {
    const head = await blocks.take(BLOCK);
    if (head === null || head.every((x) => x === 0)) return;
    const stored = parseInt(field(head, 148, 8).trim(), 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : head[i]!;
    if (stored !== sum) throw new Error('a tar header has a wrong checksum: the archive is damaged');
    const size = parseInt(field(head, 124, 12).trim() || '0', 8);
    const data = size > 0 ? await blocks.take(size + padding(size).length) : Buffer.alloc(0);
    if (data === null) throw new Error('the archive ends in the middle of an entry');
    const flag = String.fromCharCode(head[156]!);
    if (flag === 'x') {
      pending.push(Buffer.from(head), Buffer.from(data));
      pendingPath = paxPath(data.subarray(0, size)) ?? pendingPath;
      continue;
    }
    const prefix = field(head, 345, 155);
    const name = pendingPath ?? (prefix ? `${prefix}/${field(head, 0, 100)}` : field(head, 0, 100));
    yield { name, blocks: [...pending, Buffer.from(head), Buffer.from(data)] };
    pending = [];
    pendingPath = null;
  }
}
