/**
 * The loopback API's server: binding, limits, and closing.
 *
 * `startApi` binds Node's own http server to a loopback address or a unix
 * socket (address.ts), hands requests to the routes (routes.ts) and returns
 * the observer that feeds /metrics, which the daemon is given through
 * DaemonOptions.observers; `close` ends the event streams, the connections
 * and the socket. It is started by `pico daemon` only when asked to listen
 * (src/cli/daemon.ts loads this module, and prom-client, only then).
 *
 * Limits: request headers within 10 s and the whole request within 15 s (a
 * slow client is cut), a connection idle for 60 s is closed (event streams
 * send a comment every 15 s), at most 64 connections and 16 event streams,
 * and bodies no larger than a job file may be (inspect.ts).
 *
 * A unix socket is made inside a private folder beside its path, given mode
 * 0660 and the root folder's group there, and only then renamed into place,
 * so no one outside that group can ever connect, not even for an instant. A
 * socket file already at the path is replaced when nothing answers on it
 * (left by a crash) and refused when something does (another daemon).
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { chmod, lstat, mkdtemp, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { DaemonObserver } from '../daemon/observer.js';
import { DEFAULT_MAX_JOB_BYTES } from '../daemon/inspect.js';
import { checkBound, describeBound, ListenError, parseListen, type ListenAddress } from './address.js';
import { chownToRootGroup, ensureToken } from './auth.js';
import { createMetrics } from './metrics.js';
import { createRouter } from './routes.js';

export interface ApiOptions {
  root: string;
  listen: string;
  log: Logger;
  maxJobBytes?: number;
  maxStreams?: number;
  maxConnections?: number;
}

export interface RunningApi {
  observer: DaemonObserver;
  /** where it listens, as curl would be told (`127.0.0.1:41234`, `unix:/path`) */
  address: string;
  /** the token file (TCP), or null (a unix socket) */
  tokenFile: string | null;
  close(): Promise<void>;
}

/** Bind the API; throws ListenError (the address and the fix) when it cannot. */
export async function startApi(o: ApiOptions): Promise<RunningApi> {
  const addr = parseListen(o.listen, o.root);
  const metrics = createMetrics();
  const token = addr.kind === 'tcp' ? ensureToken(o.root) : null;
  const closing = new AbortController();
  const server = createServer(
    // the timeouts are checked every second (Node's default looks every 30 s, which lets a slow client stay three times too long)
    { requestTimeout: 15_000, headersTimeout: 10_000, keepAliveTimeout: 5_000, maxHeaderSize: 16 * 1024, connectionsCheckingInterval: 1_000 },
    createRouter({ root: o.root, log: o.log, metrics, token, maxJobBytes: o.maxJobBytes ?? DEFAULT_MAX_JOB_BYTES, maxStreams: o.maxStreams ?? 16, signal: closing.signal }),
  );
  server.timeout = 60_000;
  server.maxConnections = o.maxConnections ?? 64;
  let socketIno: number | null = null;
  if (addr.kind === 'tcp') {
    await bind(server, { host: addr.host, port: addr.port }, addr);
    try {
      checkBound(server.address(), addr.text);
    } catch (err) {
      await new Promise((r) => server.close(r));
      throw err;
    }
  } else {
    socketIno = await bindUnix(server, addr, o.root);
  }
  const address = describeBound(server.address(), addr);
  if (token?.created) o.log.info({ event: 'api_token', file: token.file }, `made the API token ${token.file}`);
  o.log.info({ event: 'api_listening', address, token_file: token?.file ?? null }, `loopback API listening on ${address}${token ? `; send Authorization: Bearer $(cat ${token.file})` : ' (the socket\'s mode guards it)'}`);
  return {
    observer: metrics.observer,
    address,
    tokenFile: token?.file ?? null,
    async close() {
      closing.abort();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      if (addr.kind === 'unix' && socketIno !== null) {
        // remove the socket only if it is still ours (a later daemon may have replaced it)
        const st = await stat(addr.path).catch(() => null);
        if (st && st.ino === socketIno) await unlink(addr.path).catch(() => undefined);
      }
    },
  };
}

/** listen(), as a promise that rejects with a ListenError naming the address. */
function bind(server: Server, where: { host: string; port: number } | { path: string }, addr: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const fix = err.code === 'EADDRINUSE' ? 'something listens there already: choose another port or socket path, or stop the other process' : err.code === 'EACCES' ? 'the daemon\'s user may not bind there: choose a port above 1023 or a socket path in a folder it may write' : 'choose another listen address';
      reject(new ListenError(`cannot listen on ${addr.text}: ${err.code ?? err.message}`, fix));
    };
    server.once('error', onError);
    server.listen(where, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** True when something accepts connections on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** Bind a unix socket with mode 0660 in the root's group, made private first and renamed into place; returns its inode. */
async function bindUnix(server: Server, addr: Extract<ListenAddress, { kind: 'unix' }>, root: string): Promise<number> {
  const existing = await lstat(addr.path).catch(() => null);
  if (existing) {
    if (!existing.isSocket()) throw new ListenError(`cannot listen on ${addr.text}: ${addr.path} exists and is not a socket`, `remove ${addr.path} or choose another socket path`);
    if (await answers(addr.path)) throw new ListenError(`cannot listen on ${addr.text}: another process serves ${addr.path}`, 'stop the other daemon, or choose another socket path');
    await unlink(addr.path).catch(() => undefined); // left by a daemon that crashed
  }
  const dir = await mkdtemp(join(dirname(addr.path), `.${basename(addr.path)}.`)).catch((err: NodeJS.ErrnoException) => {
    throw new ListenError(`cannot listen on ${addr.text}: cannot make a folder beside it (${err.code ?? err.message})`, `choose a socket path in a folder the daemon's user may write`);
  });
  try {
    const tmp = join(dir, 's');
    await bind(server, { path: tmp }, addr);
    await chmod(tmp, 0o660);
    chownToRootGroup(tmp, root);
    await rename(tmp, addr.path);
    return (await stat(addr.path)).ino;
  } catch (err) {
    if (server.listening) await new Promise((r) => server.close(r));
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
