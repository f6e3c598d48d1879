/**
 * `GET /health`: is this daemon serving, as its status file says.
 *
 * The answer is read from `sessions/.daemon/status.json` (status.ts), the
 * file `pico status` reads, so the API and the CLI never disagree: the
 * state, the queue by budget class, the session worker and a pause on a disk
 * that refuses writes. 200 while the daemon runs; 503 while it starts, stops,
 * or is paused on the disk (a load balancer or a watchdog should not send it
 * work then). A status file of another process (a previous daemon's, not yet
 * rewritten) counts as starting. This module reads; it writes nothing.
 */
import { daemonPaths } from '../daemon/paths.js';
import { readStatus } from '../daemon/status.js';

export interface Health {
  code: 200 | 503;
  body: {
    health: 'health@1';
    state: string;
    queue: Record<string, number> | null;
    worker: { pid: number | null } | null;
    paused: unknown;
    waiting: number;
    running: string | null;
  };
}

/** The daemon's health, judged from its status file. */
export function health(root: string): Health {
  let r;
  try {
    r = readStatus(daemonPaths(root));
  } catch (err) {
    return { code: 503, body: { health: 'health@1', state: 'unknown', queue: null, worker: null, paused: (err as Error).message, waiting: 0, running: null } };
  }
  if (r.state === 'never' || r.status.pid !== process.pid) {
    return { code: 503, body: { health: 'health@1', state: 'starting', queue: null, worker: null, paused: null, waiting: 0, running: null } };
  }
  const s = r.status;
  const paused = s.paused ?? null;
  const ok = s.state === 'running' && paused === null;
  return {
    code: ok ? 200 : 503,
    body: { health: 'health@1', state: s.state, queue: s.queue, worker: s.worker, paused, waiting: s.waiting?.length ?? 0, running: s.running?.session ?? null },
  };
}
