/**
 * Inspecting one inbox entry: is it a job we may claim, or bad input?
 *
 * Bad input never stops the daemon and is never dropped: every entry ends in
 * a verdict, either `job` (claim it) or `reject` with what is wrong and how to
 * fix it. The checks run cheapest first: the name (path tricks, control
 * characters, not `.json`), the entry type via lstat (a symlink is never
 * followed; directories, FIFOs and sockets are refused), the size limit, then
 * metadata (one hard link, owned by the daemon's user: a file with a second
 * hard link is another file's name too, a link to /etc/shadow say, and a file
 * that fails is refused unread; in a shared inbox, group-writable but not
 * world-writable as systemd/install.sh makes it, a group-readable file of the
 * inbox's group was written by a member and is taken too), then strict UTF-8 (a bad byte is named by its
 * offset, never replaced), then JSON, then the job@1 schema (with its shape
 * limits: depth, argument size). Problems never quote the file's bytes. Given
 * the root, a job naming a tool, capability or schema without a manifest file
 * is refused too. The file is opened with O_NOFOLLOW|O_NONBLOCK
 * and fstat-checked against the lstat, so a swap between look and read is
 * caught. This module moves nothing; claim.ts and reject.ts do.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from '../runtime/job.js';
import { jobErrorOf, parseJobFile } from './job-quick.js';
import { describeProblems } from '../runtime/job-check.js';
import { unknownNames } from './known-names.js';
import { isSessionId } from '../ledger/session-id.js';
import { decodeUtf8Strict, describeInvalidUtf8, firstInvalidUtf8, UTF8_FIX } from '../base/utf8.js';

export const DEFAULT_MAX_JOB_BYTES = 256 * 1024;
const GOOD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.json$/;

export type Verdict =
  | { kind: 'job'; name: string; job: Job; idFromName: string | null; ino: number; size: number }
  | { kind: 'reject'; name: string; problem: string; fix: string }
  | { kind: 'gone'; name: string };

/** True for names the spool never looks at: dot-files (temp names of writers) and `*.tmp`. */
export function isIgnoredName(name: string): boolean {
  return name.startsWith('.') || name.endsWith('.tmp');
}

/** Why a file name is unsafe or wrong, or null when it is a fine job file name. */
export function nameProblem(name: string): { problem: string; fix: string } | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    return { problem: `file name ${JSON.stringify(name)} contains control characters`, fix: 'rename the job file to letters, digits, ".", "_" or "-" ending in .json' };
  }
  if (name.includes('..') || name.includes('\\') || name.startsWith('-') || /\s/.test(name)) {
    return { problem: `file name ${JSON.stringify(name)} looks like a path trick (contains "..", "\\", blanks or starts with "-")`, fix: 'name job files like disk-check.json: letters, digits, ".", "_" or "-", no "..", ending in .json' };
  }
  if (!name.endsWith('.json')) {
    return { problem: `file name ${JSON.stringify(name)} does not end in .json`, fix: 'job files are JSON documents named <something>.json; write it elsewhere and rename it in as <something>.json' };
  }
  if (!GOOD_NAME.test(name)) {
    return { problem: `file name ${JSON.stringify(name)} has characters outside [A-Za-z0-9._-] or is longer than 200 characters`, fix: 'rename the job file to letters, digits, ".", "_" or "-" ending in .json' };
  }
  return null;
}

/**
 * Why a name that is not UTF-8 is refused, naming its bytes (hex; at most 64 of them): a name
 * must be readable as text to be logged, listed and typed, and Node reads names as UTF-8.
 */
export function badNameProblem(raw: Uint8Array): { problem: string; fix: string } {
  const at = firstInvalidUtf8(raw) ?? 0;
  const bytes = Buffer.from(raw.subarray(0, 64)).toString('hex').replace(/(..)(?!$)/g, '$1 ');
  return {
    problem: `the file name is not UTF-8: ${describeInvalidUtf8(raw, at)}; the name's bytes are ${bytes}${raw.length > 64 ? ` … (${raw.length} bytes)` : ''}`,
    fix: 'name job files in UTF-8, with letters, digits, ".", "_" or "-", ending in .json (e.g. `convmv -f latin1 -t utf8`), and submit it again',
  };
}

/**
 * Where JSON.parse gave up, without its excerpt: the parser quotes the text it choked on, and a
 * reason file must never repeat the content of a file that may not be a job at all.
 */
export function jsonErrorWhere(err: Error): string {
  const pos = /position (\d+)/.exec(err.message);
  if (pos) return `the syntax breaks at byte ${pos[1]}`;
  if (/end of JSON|Unterminated/i.test(err.message)) return 'it ends in the middle of a value';
  return 'the syntax breaks at its start';
}

/** Why a job of `size` bytes is refused (also what the loopback API answers a body that big: src/api/). */
export function sizeProblem(name: string, size: number, maxBytes: number): { problem: string; fix: string } {
  return { problem: `${name} is ${size} bytes, over the ${maxBytes}-byte limit for a job file`, fix: 'a job names its inputs by path (tool args); do not inline large data into the job file' };
}

/**
 * Why an inbox file may not be read as a job, judged by its metadata alone (nothing of it is
 * read, so nothing of it can be quoted): a second hard link means the bytes belong to a file
 * elsewhere (a link to /etc/shadow would be read with the daemon's rights), and a file owned by
 * another user was not written by someone allowed to run jobs as this daemon, unless the inbox
 * is shared with a group (`inbox`: g+w, no o+w) and the file is that group's and readable by it.
 */
export function metadataProblem(name: string, st: { nlink: number; uid: number; gid?: number; mode?: number }, inbox?: { gid: number; mode: number }): { problem: string; fix: string } | null {
  if (st.nlink > 1) {
    return { problem: `${name} has ${st.nlink} hard links: it is another file's name as well (a job file must be a file of its own), so it was not read`, fix: 'copy the job file into the inbox (write it elsewhere, then rename it in), or use `pico submit FILE`; never link a file into the inbox' };
  }
  const me = process.getuid?.();
  const shared = inbox !== undefined && (inbox.mode & 0o022) === 0o020 && st.gid === inbox.gid;
  if (me !== undefined && st.uid !== me && shared && ((st.mode ?? 0) & 0o040) === 0) {
    return { problem: `${name} is owned by uid ${st.uid} and not readable by the inbox's group (gid ${inbox.gid}); it was not read`, fix: 'submit with `pico submit FILE` (it writes the job group-readable), or chmod g+r the file before renaming it in' };
  }
  if (me !== undefined && st.uid !== me && !shared) {
    return { problem: `${name} is owned by uid ${st.uid}, not by the daemon's user (uid ${me}); it was not read`, fix: `submit jobs as the daemon's user (uid ${me}), e.g. with \`pico submit FILE\` run as that user, or share the inbox with a group (chmod 2770, as systemd/install.sh does) and submit as a member` };
  }
  return null;
}

/** Look at inbox entry `name` and decide: a job to claim, bad input to reject, or already gone. */
export async function inspectEntry(inbox: string, name: string, maxBytes = DEFAULT_MAX_JOB_BYTES, root: string | null = null): Promise<Verdict> {
  const bad = nameProblem(name);
  if (bad) return { kind: 'reject', name, ...bad };
  const path = join(inbox, name);
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone', name };
    throw err;
  }
  if (st.isSymbolicLink()) {
    return { kind: 'reject', name, problem: `${name} is a symbolic link; the daemon never follows links out of the inbox`, fix: 'copy the job file itself into the inbox (write it elsewhere, then rename it in), or use `pico submit FILE`' };
  }
  if (!st.isFile()) {
    return { kind: 'reject', name, problem: `${name} is not a regular file (a directory, FIFO, socket or device)`, fix: 'put one regular JSON file per job into the inbox' };
  }
  const inboxSt = lstatSync(inbox);
  const foreign = metadataProblem(name, st, inboxSt);
  if (foreign) return { kind: 'reject', name, ...foreign };
  if (st.size > maxBytes) return { kind: 'reject', name, ...sizeProblem(name, st.size, maxBytes) };
  let text: string;
  let ino: number;
  // Synchronous on purpose: a job file is small, and a burst of hundreds would otherwise queue
  // thousands of thread-pool round trips in front of the jobs.
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'gone', name };
    if (code === 'ELOOP') return { kind: 'reject', name, problem: `${name} became a symbolic link while being read`, fix: 'write the job file elsewhere, then rename it into the inbox' };
    throw err;
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.ino !== st.ino || fst.size > maxBytes || metadataProblem(name, fst, inboxSt)) {
      return { kind: 'reject', name, problem: `${name} was replaced or changed while being read`, fix: 'write the job file elsewhere, then rename it into the inbox in one step' };
    }
    ino = fst.ino;
    const decoded = decodeUtf8Strict(readFileSync(fd));
    if ('problem' in decoded) {
      return { kind: 'reject', name, problem: `${name}: ${decoded.problem}; a job file is read exactly as written, never with bytes replaced`, fix: UTF8_FIX };
    }
    text = decoded.text;
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'reject', name, problem: `${name} is not valid JSON (${jsonErrorWhere(err as Error)})`, fix: 'check the file with `node -e "JSON.parse(require(\'fs\').readFileSync(process.argv[1],\'utf8\'))" FILE` and fix the syntax' };
  }
  try {
    const job = await parseJobFile(value, name);
    const unknown = root === null ? [] : unknownNames(root, job);
    if (unknown.length > 0) return { kind: 'reject', name, problem: `${name}: ${describeProblems(unknown)}`, fix: unknown.map((u) => u.fix).join('; ') };
    const base = name.slice(0, -'.json'.length);
    return { kind: 'job', name, job, idFromName: isSessionId(base) ? base : null, ino, size: Buffer.byteLength(text) };
  } catch (err) {
    const bad = jobErrorOf(err);
    if (bad) return { kind: 'reject', name, problem: bad.message, fix: bad.fix };
    throw err;
  }
}
