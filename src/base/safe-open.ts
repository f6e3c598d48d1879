/**
 * The one safe way to read a file the daemon does not own (design §13).
 *
 * A decision, a cancel request, settings, a manifest, a job file, anything gc
 * or report walks: each can be planted by a user, another process or a
 * session. Read naively, a planted file is a side door — a symlink to a grant
 * elsewhere is honoured, a FIFO hangs the daemon on open, a link to
 * /etc/shadow is quoted back in an error, a file another user wrote decides
 * for a person. So every such read goes through here, and here only:
 *
 *   - every folder from the root down is opened with O_NOFOLLOW|O_DIRECTORY
 *     and the next name is looked up inside the folder already opened
 *     (/proc/self/fd/N/name, openat's effect), so no symlink is followed
 *     anywhere on the way and a folder swapped mid-walk changes nothing;
 *   - a folder is on the root's device (a mount inside the root is not the
 *     root's) and its owner is a permitted one;
 *   - the file is looked at (lstat) before it is opened, so a device is never
 *     opened, then opened with O_NOFOLLOW|O_NONBLOCK|O_NOCTTY (a FIFO cannot
 *     block the open) and checked again through fstat: a regular file, the
 *     same inode as looked at, one link only (a hard link shows some other
 *     file's content under a name in the root), on the root's device;
 *   - its owner is permitted: the daemon's user, the root's owner, root
 *     (who can forge anything anyway), or a user the root's group admits (its
 *     members in /etc/group, or users whose primary group it is);
 *   - it is not group- or world-writable beyond what the root's own mode
 *     allows (a 2770 root admits group-writable files; nothing admits 0666
 *     unless the root itself is world-writable);
 *   - it is no bigger than the caller's cap.
 *
 * A refusal is an UnsafeFileError naming the file, the reason and the fix —
 * never a byte of the content. `parseJsonQuiet` is the JSON parse that keeps
 * that promise (V8's own message quotes the text it failed on); strict-json.ts
 * scans it.
 *
 * It reads; it never writes, repairs, or changes an owner or a mode — save
 * `makeFolder`, which makes the missing folders of a path by the same walk, for
 * the one process that writes into a root it alone owns (the fleet hub).
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describeDuplicate, parseJsonStrict } from './strict-json.js';
import { decodeUtf8Strict } from './utf8.js';

/** Why a planted file or folder was refused (one word, for events and tests). */
export type UnsafeReason = 'symlink' | 'not_regular' | 'not_folder' | 'owner' | 'mode' | 'size' | 'links' | 'device' | 'outside' | 'encoding' | 'unreadable';

/** A planted file or folder the daemon will not read; the message names the file, never its content. */
export class UnsafeFileError extends Error {
  override name = 'UnsafeFileError';
  constructor(readonly file: string, readonly reason: UnsafeReason, readonly detail: string, readonly fix: string, readonly owner: number | null = null) {
    super(`${file}: ${detail}; ${fix}`);
  }
}

/** Who and what a root admits, read from the root folder itself. */
export interface RootRules {
  root: string;
  dev: number;
  /** the root folder's mode bits (only its group and other write bits matter here) */
  mode: number;
  /** uids whose files and folders are read: the daemon's, the root's owner, root, and the root's group's users */
  admitted: ReadonlySet<number>;
}

const PROC_FD = existsSync('/proc/self/fd');
const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** The uids of `gid`'s users: its members in /etc/group and the users whose primary group it is. */
function usersOfGroup(gid: number): number[] {
  const read = (f: string): string[] => {
    try {
      return readFileSync(f, 'utf8').split('\n');
    } catch {
      return [];
    }
  };
  const passwd = read('/etc/passwd').map((l) => l.split(':'));
  const members = new Set<string>();
  for (const line of read('/etc/group')) {
    const f = line.split(':');
    if (f.length >= 4 && f[2] !== '' && Number(f[2]) === gid) for (const m of f[3]!.split(',')) if (m) members.add(m.trim());
  }
  const out: number[] = [];
  for (const f of passwd) {
    if (f.length < 4 || f[2] === '') continue;
    if (members.has(f[0]!) || Number(f[3]) === gid) out.push(Number(f[2]));
  }
  return out;
}

const mtimeOf = (f: string): number => statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0;
/**
 * the rules made lately, each kept while its folder and the user databases are unchanged (a listing
 * asks per file; a process may read under two, a root and its sessions folder, turn about)
 */
const recentRules = new Map<string, RootRules>();
const RECENT_RULES = 8;

/** The rules `root` sets for what may be read under it. */
export function rootRules(root: string): RootRules {
  const abs = resolve(root);
  const st = statSync(abs); // the root itself is the operator's choice and may be reached through a link
  const key = `${abs}\0${st.dev}:${st.ino}:${st.uid}:${st.gid}:${st.mode}:${mtimeOf('/etc/passwd')}:${mtimeOf('/etc/group')}`;
  const known = recentRules.get(key);
  if (known) return known;
  const admitted = new Set<number>([st.uid, 0, ...usersOfGroup(st.gid)]);
  const me = process.geteuid?.();
  if (me !== undefined) admitted.add(me);
  const rules = { root: abs, dev: st.dev, mode: st.mode, admitted };
  if (recentRules.size >= RECENT_RULES) recentRules.delete(recentRules.keys().next().value!);
  recentRules.set(key, rules);
  return rules;
}

/** `path` (absolute, or relative to the root) as names below the root; throws when it leads out. */
function namesBelow(rules: RootRules, path: string): string[] {
  const rel = relative(rules.root, isAbsolute(path) ? path : join(rules.root, path));
  if (rel === '') return [];
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new UnsafeFileError(path, 'outside', `is not under the root ${rules.root}`, 'files the daemon reads live under its root');
  }
  return rel.split(sep).filter((n) => n !== '' && n !== '.');
}

const display = (rules: RootRules, names: readonly string[]): string => join(rules.root, ...names);

/** The owner and device checks every folder and file shares. */
function checkOwnerAndDevice(rules: RootRules, file: string, st: Stats, what: string): void {
  if (st.dev !== rules.dev) {
    throw new UnsafeFileError(file, 'device', `${what} is on another filesystem than the root (a mount inside the root)`, 'keep the root\'s files on the root\'s own filesystem', st.uid);
  }
  if (!rules.admitted.has(st.uid)) {
    throw new UnsafeFileError(file, 'owner', `${what} is owned by uid ${st.uid}, who is neither the daemon's user nor admitted by the root's group`, 'write it as the root\'s owner or a member of the root\'s group (pico approve, pico deny, pico cancel and pico submit do)', st.uid);
  }
}

/** Mode bits that make a file writable by someone the root does not admit. */
function tooWritable(rules: RootRules, mode: number): number {
  return mode & 0o022 & ~rules.mode;
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/**
 * The path of `name` inside the folder open as `dirFd` (found at `dirPath`): through /proc, so
 * the folder is the one opened even if a name on the way to `dirPath` was swapped since (openat's
 * effect); the plain path where there is no /proc.
 */
export function inFolder(dirFd: number, dirPath: string, name: string): string {
  return PROC_FD ? `/proc/self/fd/${dirFd}/${name}` : join(dirPath, name);
}

/** Open one name inside an open folder without following it. */
function openIn(dirFd: number, dirPath: string, name: string, flags: number): number {
  return openSync(inFolder(dirFd, dirPath, name), flags);
}

function lstatIn(dirFd: number, dirPath: string, name: string): Stats {
  return lstatSync(inFolder(dirFd, dirPath, name));
}

/** What a symlink or a non-folder on the way is called in a refusal. */
function refusedOnTheWay(rules: RootRules, names: readonly string[], st: Stats | null, code: string | undefined): UnsafeFileError {
  const file = display(rules, names);
  if (st?.isSymbolicLink() || code === 'ELOOP') return new UnsafeFileError(file, 'symlink', 'is a symlink; symlinks are never followed here', 'replace the link with the folder or file itself', st?.uid ?? null);
  return new UnsafeFileError(file, 'not_folder', 'is not a folder', 'remove it; the daemon makes this folder itself', st?.uid ?? null);
}

/**
 * Open the folder `names` leads to, one name at a time, and return its descriptor (the caller
 * closes it), or null when some name does not exist. Every folder is checked. With `make`, a
 * missing folder is made inside the one already opened (mode 0750), never through a link.
 */
function openFolder(rules: RootRules, names: readonly string[], make = false): number | null {
  let fd = openSync(rules.root, O_RDONLY | O_DIRECTORY);
  let path = rules.root;
  try {
    for (let i = 0; i < names.length; i++) {
      let st: Stats | null = null;
      try {
        st = lstatIn(fd, path, names[i]!);
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw err;
        if (!make) return closeThen(fd, null);
        try {
          mkdirSync(inFolder(fd, path, names[i]!), 0o750); // mkdir never follows a link at its last name
        } catch (made) {
          if (errno(made) !== 'EEXIST') throw made; // made meanwhile: looked at below like any other
        }
        st = lstatIn(fd, path, names[i]!);
      }
      if (!st.isDirectory()) throw refusedOnTheWay(rules, names.slice(0, i + 1), st, undefined);
      let next: number;
      try {
        next = openIn(fd, path, names[i]!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
      } catch (err) {
        if (errno(err) === 'ENOENT') return closeThen(fd, null);
        if (errno(err) === 'ELOOP' || errno(err) === 'ENOTDIR') throw refusedOnTheWay(rules, names.slice(0, i + 1), null, errno(err));
        throw err;
      }
      closeSync(fd);
      fd = next;
      path = join(path, names[i]!);
      const fst = fstatSync(fd);
      checkOwnerAndDevice(rules, path, fst, 'the folder');
      if (tooWritable(rules, fst.mode) & 0o002) {
        throw new UnsafeFileError(path, 'mode', `the folder is world-writable (mode ${(fst.mode & 0o7777).toString(8)})`, `chmod o-w ${path}`, fst.uid);
      }
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function closeThen<T>(fd: number, value: T): T {
  closeSync(fd);
  return value;
}

/**
 * Check that the folder at `path` (under the root) is reached without a symlink, on the root's
 * device and owned by a permitted user; its lstat, or null when it does not exist.
 */
export function checkFolder(rules: RootRules, path: string): Stats | null {
  const names = namesBelow(rules, path);
  const fd = openFolder(rules, names);
  if (fd === null) return null;
  try {
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Open the folder at `path` (under the root) as checkFolder does, making each missing folder on the
 * way inside the one already opened; its descriptor (the caller closes it). For a process that
 * writes into a root it owns (the fleet hub): a symlink or a foreign folder planted on the way is
 * refused, never written through.
 */
export function makeFolder(rules: RootRules, path: string): number {
  return openFolder(rules, namesBelow(rules, path), true)!;
}

/** One entry of a folder, as lstat sees it (a symlink is a symlink, never what it points at). */
export interface FolderEntry {
  name: string;
  path: string;
  stat: Stats;
}

/**
 * The entries of the folder at `path`, checked as checkFolder does, each lstat-ed inside the
 * folder opened (never through a link); null when the folder does not exist. Walkers (gc, report,
 * disk use) decide per entry: a symlink or an entry on another device is theirs to report.
 */
export function listFolder(rules: RootRules, path: string): FolderEntry[] | null {
  const names = namesBelow(rules, path);
  const fd = openFolder(rules, names);
  if (fd === null) return null;
  const dir = display(rules, names);
  try {
    const out: FolderEntry[] = [];
    for (const name of readdirSync(PROC_FD ? `/proc/self/fd/${fd}` : dir).sort()) {
      try {
        out.push({ name, path: join(dir, name), stat: lstatIn(fd, dir, name) });
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw err; // gone since the listing
      }
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** True when an entry a walker met may be entered or read: no symlink, on the root's device. */
export function walkable(rules: RootRules, st: Stats): boolean {
  return !st.isSymbolicLink() && st.dev === rules.dev;
}

/** Options of one read. */
export interface ReadOptions {
  /** the largest file admitted, in bytes */
  maxBytes: number;
  /** what the file is, for messages ("decision file", "settings") */
  what?: string;
  /**
   * admit a file with several hard links: only for a document the reader checks against a hash it
   * already holds (a composition document, shared by the sessions of one composition)
   */
  linked?: boolean;
}

/** A planted file read whole, with the owner the kernel says wrote it. */
export interface PlantedFile {
  path: string;
  bytes: Buffer;
  uid: number;
  mode: number;
  mtimeMs: number;
}

/** A planted file opened and checked: its descriptor (the caller closes it) and what fstat said. */
export interface OpenedFile {
  path: string;
  fd: number;
  stat: Stats;
}

/**
 * Open the file at `path` (absolute under the root, or relative to it) through every check above,
 * or null when it (or a folder on the way) does not exist. The caller closes `fd`. Throws
 * UnsafeFileError on a refusal.
 */
export function openPlanted(rules: RootRules, path: string, opts: ReadOptions): OpenedFile | null {
  const names = namesBelow(rules, path);
  if (names.length === 0) throw new UnsafeFileError(rules.root, 'not_regular', 'is the root folder, not a file', 'name a file under the root');
  const dirFd = openFolder(rules, names.slice(0, -1));
  if (dirFd === null) return null;
  try {
    return openInFolder(rules, dirFd, display(rules, names.slice(0, -1)), names[names.length - 1]!, opts);
  } finally {
    closeSync(dirFd);
  }
}

/**
 * Files of one folder under the root read as readPlanted reads each, the way to the folder walked
 * and checked once (null: it does not exist). `read` takes a name in it, no path; the caller closes.
 */
export function plantedFolder(rules: RootRules, folder: string): { read(name: string, opts: ReadOptions): PlantedFile | null; close(): void } | null {
  const names = namesBelow(rules, folder);
  const dirFd = openFolder(rules, names);
  if (dirFd === null) return null;
  return { read: (name, opts) => readOpened(openInFolder(rules, dirFd, display(rules, names), name, opts), opts), close: () => closeSync(dirFd) };
}

/** openPlanted's checks of `name` in the folder open as `dirFd`, at `dirPath`. */
function openInFolder(rules: RootRules, dirFd: number, dirPath: string, name: string, opts: ReadOptions): OpenedFile | null {
  if (name.includes('/') || name === '..') throw new TypeError(`a name in a folder is wanted here, not the path ${name}`);
  const file = join(dirPath, name);
  const what = opts.what ?? 'file';
  let fd: number | null = null;
  try {
    let looked: Stats;
    try {
      looked = lstatIn(dirFd, dirPath, name);
    } catch (err) {
      if (errno(err) === 'ENOENT') return null;
      throw err;
    }
    if (looked.isSymbolicLink()) throw new UnsafeFileError(file, 'symlink', `the ${what} is a symlink; it is never followed`, 'replace the link with a regular file written in place', looked.uid);
    if (!looked.isFile()) throw new UnsafeFileError(file, 'not_regular', `the ${what} is a ${kindOf(looked)}, not a regular file`, 'remove it and write a regular file', looked.uid);
    try {
      fd = openIn(dirFd, dirPath, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    } catch (err) {
      if (errno(err) === 'ENOENT') return null;
      if (errno(err) === 'ELOOP') throw new UnsafeFileError(file, 'symlink', `the ${what} is a symlink; it is never followed`, 'replace the link with a regular file written in place');
      if (errno(err) === 'ENXIO') throw new UnsafeFileError(file, 'not_regular', `the ${what} is a socket, not a regular file`, 'remove it and write a regular file');
      throw err;
    }
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError(file, 'not_regular', `the ${what} is a ${kindOf(st)}, not a regular file`, 'remove it and write a regular file', st.uid);
    if (st.ino !== looked.ino || st.dev !== looked.dev) throw new UnsafeFileError(file, 'not_regular', `the ${what} changed while it was opened`, 'write it once, by renaming a finished file into place', st.uid);
    checkOwnerAndDevice(rules, file, st, `the ${what}`);
    if (st.nlink > 1 && !opts.linked) throw new UnsafeFileError(file, 'links', `the ${what} has ${st.nlink} hard links; a hard link shows another file's content under this name`, 'write a file of its own instead of linking one', st.uid);
    const loose = tooWritable(rules, st.mode);
    if (loose !== 0) {
      throw new UnsafeFileError(file, 'mode', `the ${what} is ${loose & 0o002 ? 'world' : 'group'}-writable (mode ${(st.mode & 0o777).toString(8)}) and the root's mode ${(rules.mode & 0o777).toString(8)} does not allow that`, `chmod go-w ${file}, or write it again with pico`, st.uid);
    }
    if (st.size > opts.maxBytes) throw new UnsafeFileError(file, 'size', `the ${what} is ${st.size} bytes, over its cap of ${opts.maxBytes}`, 'write a smaller file', st.uid);
    const opened = { path: file, fd, stat: st };
    fd = null; // the caller's now
    return opened;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Read the file at `path` (absolute under the root, or relative to it) through every check above,
 * or null when it (or a folder on the way) does not exist. Throws UnsafeFileError on a refusal.
 */
export function readPlanted(rules: RootRules, path: string, opts: ReadOptions): PlantedFile | null {
  return readOpened(openPlanted(rules, path, opts), opts);
}

function readOpened(f: OpenedFile | null, opts: ReadOptions): PlantedFile | null {
  if (f === null) return null;
  try {
    const bytes = readAll(f.fd, opts.maxBytes, f.path, opts.what ?? 'file', f.stat.uid);
    return { path: f.path, bytes, uid: f.stat.uid, mode: f.stat.mode & 0o7777, mtimeMs: f.stat.mtimeMs };
  } finally {
    closeSync(f.fd);
  }
}

/** Read to the end, but never past the cap (a file can grow after fstat). */
function readAll(fd: number, cap: number, file: string, what: string, uid: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(Math.min(cap + 1, 64 * 1024));
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (total > cap) throw new UnsafeFileError(file, 'size', `the ${what} grew past its cap of ${cap} bytes while it was read`, 'write a smaller file', uid);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks, total);
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isDirectory()) return 'folder';
  if (st.isSymbolicLink()) return 'symlink';
  return 'special file';
}

/** readPlanted, then strict UTF-8: the text, or a refusal naming the byte offset (never the bytes). */
export function readPlantedText(rules: RootRules, path: string, opts: ReadOptions): (Omit<PlantedFile, 'bytes'> & { text: string }) | null {
  const f = readPlanted(rules, path, opts);
  if (f === null) return null;
  const d = decodeUtf8Strict(f.bytes);
  if ('problem' in d) throw new UnsafeFileError(f.path, 'encoding', `the ${opts.what ?? 'file'} is not UTF-8: ${d.problem}`, 'save it as UTF-8', f.uid);
  const { bytes: _bytes, ...rest } = f;
  return { ...rest, text: d.text };
}

/**
 * JSON of a planted file: its value, or the problem by line and column (never a quote of the text:
 * V8's own message carries a snippet, which may be a secret the file pointed at). A key given twice
 * in one object is a problem too: the file must mean one thing.
 */
export function parseJsonQuiet(text: string): { value: unknown } | { problem: string } {
  const r = parseJsonStrict(text);
  if ('duplicates' in r) return { problem: r.duplicates.map(describeDuplicate).join('; ') };
  if ('problem' in r) return { problem: r.problem };
  return r;
}
