/**
 * The few HTTP chores every route shares: answering JSON, refusing with a
 * problem and its fix, and reading a request body under a cap.
 *
 * A body is read up to the cap and kept; past it, bytes are only counted (so
 * the answer can name the size, as the inbox's reason would) and dropped,
 * and past a hard ceiling the connection is cut. The server's timeouts
 * (server.ts) bound how long a slow body may take. No routing here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Past this many times the cap, a body is not even counted: the connection is cut. */
const CUT_FACTOR = 64;

/** Answer with a JSON document. */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body, null, 2) + '\n';
  res.writeHead(code, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** Refuse a request: `{error: {problem, fix}}` with the status code. */
export function sendProblem(res: ServerResponse, code: number, problem: string, fix: string, headers: Record<string, string> = {}): void {
  sendJson(res, code, { error: { problem, fix } }, headers);
}

export type Body = { kind: 'ok'; bytes: Buffer } | { kind: 'too_big'; size: number } | { kind: 'cut' };

/** Read the request body, keeping at most `max` bytes. */
export function readBody(req: IncomingMessage, max: number): Promise<Body> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max * CUT_FACTOR) {
      req.resume();
      return resolve({ kind: 'too_big', size: declared });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (b: Body): void => {
      if (done) return;
      done = true;
      resolve(b);
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
      else if (size > max * CUT_FACTOR) {
        req.destroy();
        finish({ kind: 'cut' });
      }
    });
    req.on('end', () => finish(size > max ? { kind: 'too_big', size } : { kind: 'ok', bytes: Buffer.concat(chunks, size) }));
    req.on('error', () => finish({ kind: 'cut' }));
    req.on('close', () => finish({ kind: 'cut' }));
  });
}
