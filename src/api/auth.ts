/**
 * Who may use the loopback API: the holder of the token file, or whoever
 * may open the unix socket.
 *
 * Over TCP anyone on the box can connect to 127.0.0.1, so every route but
 * `/health` asks for `Authorization: Bearer <token>`, where the token is the
 * content of `sessions/.daemon/api-token`: 32 random bytes as hex, made at the
 * first listen and kept across restarts, mode 0640 in the root's group (the
 * daemon's user and the group that may submit jobs can read it; nobody else).
 * `/health` stays open so a probe needs no secret; it tells the daemon's
 * state and queue counts, nothing of any job. Over a unix socket the
 * socket's own mode (0660, the root's group: server.ts) is the guard, and no
 * token is asked. The file is created by a hard link from a finished temp
 * file, so two starts racing never see half a token or two different ones.
 * This module owns the token; it does not route.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, chownSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { daemonPaths } from '../daemon/paths.js';

export const TOKEN_FILE = 'api-token';
const TOKEN_RE = /^[0-9a-f]{64}$/;

export class TokenError extends Error {
  override name = 'TokenError';
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

/** Path of the root's API token file. */
export function tokenPath(root: string): string {
  return join(daemonPaths(root).daemonDir, TOKEN_FILE);
}

/** The root's API token, made (0640, the root's group) when absent; a damaged file is refused with the fix. */
export function ensureToken(root: string): { token: string; file: string; created: boolean } {
  const file = tokenPath(root);
  mkdirSync(daemonPaths(root).daemonDir, { recursive: true });
  let created = false;
  try {
    statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o640, flag: 'wx' });
    try {
      chownToRootGroup(tmp, root);
      linkSync(tmp, file);
      created = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another start made it first: use theirs
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  const st = statSync(file);
  if (!st.isFile()) throw new TokenError(`${file} is not a regular file`, `remove ${file}; the daemon makes a new token at its next start`);
  if ((st.mode & 0o007) !== 0) chmodSync(file, st.mode & 0o770 & ~0o111); // a token others can read guards nothing
  const token = readFileSync(file, 'utf8').trim();
  if (!TOKEN_RE.test(token)) throw new TokenError(`${file} does not hold an API token (64 hex characters)`, `remove ${file}; the daemon makes a new token at its next start (clients must read the new one)`);
  return { token, file, created };
}

/** Give a file the root folder's group, so the group that may submit jobs may read it (not possible: left as is). */
export function chownToRootGroup(path: string, root: string): void {
  try {
    chownSync(path, -1, statSync(root).gid);
  } catch {
    // not a member of that group: the file keeps the daemon's own group
  }
}

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function hasToken(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}
