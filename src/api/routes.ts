/**
 * The loopback API's routes: which request goes where, and who may ask.
 *
 *   GET  /health            the daemon's state (no token: a probe needs no secret)
 *   GET  /metrics           Prometheus text (metrics.ts)
 *   POST /jobs              submit a job@1 body, or {"goal": "…"} alone (jobs.ts): 202, or 400/413/415 with the inbox's reason
 *   GET  /jobs/ID           the job's state and result (jobs.ts)
 *   GET  /jobs/ID/events    its ledger as server-sent events (events.ts)
 *
 * Over TCP every route but /health needs the bearer token (auth.ts); over a
 * unix socket the socket's mode is the guard and no token is asked. At most
 * `maxStreams` event streams run at once; one more is told to come back later
 * (503 with Retry-After), so a flood of followers cannot starve the daemon.
 * A handler that throws answers 500 with the message and is logged; the
 * daemon goes on. This module routes; the server and its limits are server.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { hasToken } from './auth.js';
import { streamEvents } from './events.js';
import { health } from './health.js';
import { readBody, sendJson, sendProblem } from './http.js';
import { jobLinks, jobState, submitBody, tooBig } from './jobs.js';
import type { Metrics } from './metrics.js';

export interface RouterOptions {
  root: string;
  log: Logger;
  metrics: Metrics;
  /** null: no token asked (a unix socket) */
  token: { token: string; file: string } | null;
  maxJobBytes: number;
  maxStreams: number;
  /** aborted when the API closes: open event streams end */
  signal: AbortSignal;
  pollMs?: number;
  heartbeatMs?: number;
}

const JOB_PATH = /^\/jobs\/([^/]+)(\/events)?$/;
const ROUTES = 'GET /health, GET /metrics, POST /jobs, GET /jobs/ID, GET /jobs/ID/events';

/** The request handler for the API's http server. */
export function createRouter(o: RouterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  let streams = 0;

  const route = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET';
    if (path === '/health') {
      if (method !== 'GET' && method !== 'HEAD') return notAllowed(res, 'GET');
      const h = health(o.root);
      return sendJson(res, h.code, h.body);
    }
    if (o.token && !hasToken(req, o.token.token)) {
      return sendProblem(res, 401, `${method} ${path} needs the header Authorization: Bearer <token>`, `the token is the content of ${o.token.file} (readable by the daemon's user and the root's group): curl -H "Authorization: Bearer $(cat ${o.token.file})" …`, { 'www-authenticate': 'Bearer realm="picoharness"' });
    }
    if (path === '/metrics') {
      if (method !== 'GET') return notAllowed(res, 'GET');
      const text = await o.metrics.text();
      res.writeHead(200, { 'content-type': o.metrics.registry.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      return void res.end(text);
    }
    if (path === '/jobs') {
      if (method !== 'POST') return notAllowed(res, 'POST');
      return submit(req, res);
    }
    const m = JOB_PATH.exec(path);
    if (!m) return sendProblem(res, 404, `no route ${method} ${path}`, `the API serves ${ROUTES}`);
    if (method !== 'GET') return notAllowed(res, 'GET');
    const id = m[1]!;
    const view = jobState(o.root, id);
    if (!view) return sendProblem(res, 404, `no job ${JSON.stringify(id)} under ${o.root}/sessions (not in the inbox, not claimed, not rejected)`, 'use the id POST /jobs answered (like 20261129-113512-3fa9c01b2d4e)');
    if (!m[2]) return sendJson(res, 200, view);
    if (streams >= o.maxStreams) return sendProblem(res, 503, `${o.maxStreams} event streams are open already`, 'close a stream, or poll GET /jobs/ID instead', { 'retry-after': '5' });
    streams++;
    try {
      await streamEvents(o.root, id, req, res, { signal: o.signal, pollMs: o.pollMs, heartbeatMs: o.heartbeatMs });
    } finally {
      streams--;
    }
  };

  /** POST /jobs: a JSON body, judged exactly as an inbox file. */
  const submit = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;\s*charset=("?)utf-8\2\s*)?$/i.test(type)) {
      req.resume();
      o.metrics.refused(415);
      return sendProblem(res, 415, `a job is sent as Content-Type: application/json, got ${type ? JSON.stringify(type) : 'no Content-Type'}`, "send the job@1 document as the body with -H 'Content-Type: application/json'");
    }
    const body = await readBody(req, o.maxJobBytes);
    if (body.kind === 'cut') return void res.destroy();
    if (body.kind === 'too_big') {
      const t = tooBig(body.size, o.maxJobBytes);
      o.metrics.refused(413);
      return sendProblem(res, 413, t.problem, t.fix, { connection: 'close' });
    }
    const r = await submitBody(o.root, body.bytes, o.maxJobBytes);
    if (!r.ok) {
      o.metrics.refused(r.code);
      return sendProblem(res, r.code, r.problem, r.fix);
    }
    o.log.info({ event: 'api_submitted', job: r.id, session: r.id }, `job ${r.id} submitted over the API`);
    sendJson(res, 202, { id: r.id, state: 'queued', links: jobLinks(r.id) }, { location: jobLinks(r.id).self });
  };

  return (req, res) => {
    const t0 = performance.now();
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://pico').pathname;
    } catch {
      return sendProblem(res, 400, 'the request target is not a URL path', `the API serves ${ROUTES}`);
    }
    route(req, res, path)
      .catch((err: unknown) => {
        o.log.error({ event: 'api_error', method: req.method, path, err }, `API ${req.method} ${path} failed: ${(err as Error).message}`);
        if (!res.headersSent) sendProblem(res, 500, `the daemon failed to answer: ${(err as Error).message}`, 'see the daemon log; if the request was right, report it');
        else res.destroy();
      })
      .finally(() => o.log.debug({ event: 'api_request', method: req.method, path, status: res.statusCode, duration_ms: Math.round(performance.now() - t0) }));
  };
}

/** 405 with the method the route takes. */
function notAllowed(res: ServerResponse, allow: string): void {
  sendProblem(res, 405, `this route takes ${allow} only`, `use ${allow}`, { allow });
}
