/**
 * A small client for the loopback API in end-to-end suites: start the real
 * daemon with --listen, find its address in its log, and make requests over
 * TCP or a unix socket with Node's own http module (no fakes).
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import { startDaemon, type RunningDaemon } from '../daemon/spawn.js';

export interface Api {
  d: RunningDaemon;
  /** host:port, or null for a unix socket */
  host: string | null;
  socketPath: string | null;
  token: string | null;
  tokenFile: string | null;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Start the daemon on `root` with `--listen listen` and wait until the API listens. */
export async function startApiDaemon(root: string, listen: string, env: NodeJS.ProcessEnv = {}): Promise<Api> {
  const d = startDaemon(root, env, ['--listen', listen]);
  const l = await d.waitFor((x) => x.event === 'api_listening');
  await d.waitFor((x) => x.event === 'ready');
  const address = String(l.address);
  const tokenFile = typeof l.token_file === 'string' ? l.token_file : null;
  return {
    d,
    host: address.startsWith('unix:') ? null : address,
    socketPath: address.startsWith('unix:') ? address.slice(5) : null,
    tokenFile,
    token: tokenFile ? readFileSync(tokenFile, 'utf8').trim() : null,
  };
}

/** One request; `auth: false` leaves the token out. */
export function call(api: Api, method: string, path: string, o: { body?: string | Buffer; headers?: Record<string, string>; auth?: boolean } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(o.auth !== false && api.token ? { authorization: `Bearer ${api.token}` } : {}), ...o.headers };
  return new Promise((resolve, reject) => {
    const target = api.socketPath ? { socketPath: api.socketPath } : { host: api.host!.replace(/:\d+$/, ''), port: Number(api.host!.split(':').pop()) };
    const req = request({ ...target, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** POST a job body as JSON. */
export function postJob(api: Api, body: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return call(api, 'POST', '/jobs', { body, headers: { 'content-type': 'application/json', ...headers } });
}

/** The sum of a metric's samples whose labels include `labels` (Prometheus text format). */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    if (m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Inodes of the TCP sockets in LISTEN state in this network namespace. */
function listeningInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') inodes.add(cols[9]!); // 0A: LISTEN
    }
  }
  return inodes;
}

/** How many listening TCP sockets process `pid` holds. */
export function listeningSockets(pid: number): number {
  const listening = listeningInodes();
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && listening.has(m[1]!)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

export interface SseFrame {
  id: string | null;
  event: string;
  data: string;
}

export interface Stream {
  status: number;
  frames: SseFrame[];
  /** resolves when the server ends the stream */
  ended: Promise<void>;
  close(): void;
}

/** Open an event stream; frames are parsed as they arrive. */
export function openStream(api: Api, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const target = api.socketPath ? { socketPath: api.socketPath } : { host: api.host!.replace(/:\d+$/, ''), port: Number(api.host!.split(':').pop()) };
    const req = request({ ...target, method: 'GET', path, headers: { ...(api.token ? { authorization: `Bearer ${api.token}` } : {}), accept: 'text/event-stream', ...headers } }, (res) => {
      const frames: SseFrame[] = [];
      let buf = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        buf += c;
        let at: number;
        while ((at = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          const f: SseFrame = { id: null, event: 'message', data: '' };
          let any = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue; // a comment (keep-alive)
            const [k, ...rest] = line.split(': ');
            const v = rest.join(': ');
            if (k === 'id') f.id = v;
            else if (k === 'event') f.event = v;
            else if (k === 'data') f.data = v;
            any = true;
          }
          if (any) frames.push(f);
        }
      });
      const ended = new Promise<void>((ok) => res.on('close', () => ok()));
      resolve({ status: res.statusCode ?? 0, frames, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
