/**
 * `GET /jobs/ID/events`: a job's ledger as server-sent events, as `pico
 * watch` shows it.
 *
 * The ledger is read with the follower `pico watch` uses (daemon/tail.ts):
 * every event already written first, then each new one as it is appended,
 * one SSE message per ledger line (`id:` its seq, `data:` the line as
 * written). The stream ends with a named event: `end` when the session has
 * ended (its outcome), `waiting` when it stopped for a person (with the
 * commands that decide it), `rejected` when the job never became a session.
 * A client that reconnects with `Last-Event-ID` gets only the events after
 * that seq, and `204 No Content` when the session had already ended there
 * (which tells an EventSource to stop reconnecting). A comment line every
 * few seconds keeps idle proxies and the server's socket timeout from
 * cutting a long step; a client that stops reading is waited for, not
 * buffered for. This module streams; how many streams may run is routes.ts's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { waitingInStatus } from '../daemon/status.js';
import { followLedger } from '../daemon/tail.js';
import { jobLinks, jobState } from './jobs.js';

export interface StreamOptions {
  /** aborted when the API closes */
  signal: AbortSignal;
  pollMs?: number;
  heartbeatMs?: number;
}

/** The seq and type of a ledger line (null for a line that does not parse). */
function head(line: string): { seq: number | null; type: string | null; outcome: string | null } {
  try {
    const e = JSON.parse(line) as { seq?: unknown; type?: unknown; outcome?: unknown };
    return { seq: typeof e.seq === 'number' ? e.seq : null, type: typeof e.type === 'string' ? e.type : null, outcome: typeof e.outcome === 'string' ? e.outcome : null };
  } catch {
    return { seq: null, type: null, outcome: null };
  }
}

/** One SSE frame: an optional id and event name, then the data (one line). */
function frame(data: string, event?: string, id?: number | null): string {
  return `${id !== undefined && id !== null ? `id: ${id}\n` : ''}${event ? `event: ${event}\n` : ''}data: ${data}\n\n`;
}

/** Stream job `id`'s events to `res` until the session ends, the client goes, or the API closes. The job must exist (routes.ts answers 404 otherwise). */
export async function streamEvents(root: string, id: string, req: IncomingMessage, res: ServerResponse, opts: StreamOptions): Promise<void> {
  const paths = daemonPaths(root);
  const files = sessionFiles(paths, id);
  const lastHeader = req.headers['last-event-id'];
  const after = typeof lastHeader === 'string' && /^\d+$/.test(lastHeader.trim()) ? Number(lastHeader.trim()) : -1;
  const first = jobState(root, id);
  if (after >= 0 && first?.state === 'done') {
    const lines = existsSync(files.ledger) ? readFileSync(files.ledger, 'utf8').split('\n').filter((l) => l.trim() !== '') : [];
    if (!lines.some((l) => (head(l).seq ?? -1) > after)) {
      res.writeHead(204);
      return void res.end();
    }
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  // `closed`: the client left or the API closes (nothing more is written); `stop` also ends the follow when the session waits
  const closed = new AbortController();
  const stop = new AbortController();
  const gone = (): void => {
    closed.abort();
    stop.abort();
  };
  res.on('close', gone);
  opts.signal.addEventListener('abort', gone, { once: true });
  const send = async (text: string): Promise<void> => {
    if (closed.signal.aborted) return;
    if (!res.write(text)) await once(res, 'drain', { signal: closed.signal }).catch(() => undefined);
  };
  let waits: { step: string; tool: string | null } | null = null;
  const look = (): void => {
    if (existsSync(files.result)) return;
    const w = waitingInStatus(daemonPaths(root), id);
    if (w && !stop.signal.aborted) {
      waits = w;
      stop.abort();
    }
  };
  const lookTimer = setInterval(look, 1000);
  const beat = setInterval(() => void send(': keep-alive\n\n'), opts.heartbeatMs ?? 15_000);
  const known = (): boolean => existsSync(files.dir) || existsSync(join(paths.inbox, `${id}.json`));
  let outcome: string | null = null;
  try {
    await send(`: job ${id}\n\n`);
    for await (const line of followLedger(files.ledger, files.result, { signal: stop.signal, pollMs: opts.pollMs ?? 200, vanished: () => !known() })) {
      const h = head(line);
      if (h.type === 'answer_sent') outcome = h.outcome;
      if (h.seq !== null && h.seq <= after) continue;
      await send(frame(line, undefined, h.seq));
    }
    if (closed.signal.aborted) return;
    if (waits !== null && outcome === null) {
      const w = waits as { step: string; tool: string | null };
      return void (await send(frame(JSON.stringify({ state: 'waiting', step: w.step, tool: w.tool, approve: `pico approve ${id} ${w.step}`, deny: `pico deny ${id} ${w.step}` }), 'waiting')));
    }
    const now = jobState(root, id);
    if (now?.state === 'rejected') return void (await send(frame(JSON.stringify({ state: 'rejected', ...now.rejection }), 'rejected')));
    outcome ??= now?.outcome ?? null;
    await send(frame(JSON.stringify({ state: 'done', outcome, result: jobLinks(id).self }), 'end'));
  } finally {
    clearInterval(lookTimer);
    clearInterval(beat);
    res.off('close', gone);
    opts.signal.removeEventListener('abort', gone);
    res.end();
  }
}
