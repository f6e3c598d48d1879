/**
 * The user's side of the fleet: submit a job to a selector, list boxes and
 * jobs, follow one job — each a short conversation with the server that
 * returns plain data; src/cli/fleet.ts prints it for a person or as JSON.
 *
 * Submission checks the job with the daemon's own schema first (a mistake is
 * told to the person submitting, not found later on a box), gives it a new
 * session id unless `--id` repeats one, and publishes it with that id as the
 * message id. Submitting an id that is already claimed, or again within the
 * dedup window, changes nothing and says so.
 */
import { DeliverPolicy } from '@nats-io/jetstream';
import { newSessionId, isSessionId } from '../ledger/session-id.js';
import { parseJob } from '../runtime/job.js';
import { readNamedJson } from '../base/named-file.js';
import { DEFAULT_MAX_JOB_BYTES } from '../daemon/inspect.js';
import { TERMINAL_TYPES } from '../ledger/events.js';
import type { Fleet } from './connect.js';
import { parseClaim, type Claim, type FleetJob } from './envelope.js';
import type { Heartbeat } from './agent.js';
import { EVENTS_STREAM, JOBS_STREAM, jobSubject, parseEventSubject, parseSelector, type Selector } from './names.js';

/** Largest job file accepted (the daemon's own limit). */

export class FleetInputError extends Error {
  override name = 'JobError';
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

export interface Submitted {
  id: string;
  to: string;
  /** false: the same id was already submitted or claimed, and nothing changed */
  queued: boolean;
  claimed_by: string | null;
}

/** Read and check a job file; throws FleetInputError naming the file and the fix. */
export function readJobFile(file: string): FleetJob['job'] {
  const read = readNamedJson(file, 'job file', DEFAULT_MAX_JOB_BYTES);
  if ('problem' in read) throw new FleetInputError(read.problem, read.fix);
  const v = read.value;
  return parseJob(v, file); // JobError: the CLI prints it with its fix
}

/** Parse `--to`; throws FleetInputError with the accepted forms. */
export function selectorOf(text: string): Selector {
  const s = parseSelector(text);
  if (!s) throw new FleetInputError(`--to ${JSON.stringify(text)} is not box=NAME, model=ID or cap=CAPABILITY`, 'e.g. --to box=shop-17, --to model=qwen2.5-1.5b, --to cap=extract@1');
  return s;
}

/** Publish a job for `to`; a repeated id is a no-op. */
export async function submit(fleet: Fleet, job: FleetJob['job'], to: Selector, id: string | null): Promise<Submitted> {
  if (id !== null && !isSessionId(id)) throw new FleetInputError(`--id ${JSON.stringify(id)} is not a job id`, 'a job id looks like 20261129-113512-3fa9c01b2d4e (the id `pico fleet submit` printed)');
  const jobId = id ?? newSessionId();
  const toText = `${to.kind}=${to.value}`;
  const held = await claimOf(fleet, jobId);
  if (held) return { id: jobId, to: toText, queued: false, claimed_by: held.box };
  const env: FleetJob = { fleet_job: 'fleet-job@1', id: jobId, to: toText, submitted_at: new Date().toISOString(), job };
  const ack = await fleet.js.publish(jobSubject(to), JSON.stringify(env), { msgID: jobId });
  return { id: jobId, to: toText, queued: !ack.duplicate, claimed_by: null };
}

/** The claim of a job id, or null. */
export async function claimOf(fleet: Fleet, id: string): Promise<Claim | null> {
  const e = await fleet.claims.get(id);
  return e && e.operation === 'PUT' ? parseClaim(e.value) : null;
}

export interface BoxStatus extends Heartbeat {
  online: boolean;
  seen_s_ago: number;
}

/** Every box that ever sent a heartbeat, online when its last one is within three periods. */
export async function boxes(fleet: Fleet, now = Date.now()): Promise<BoxStatus[]> {
  const out: BoxStatus[] = [];
  for await (const key of await fleet.boxes.keys()) {
    const e = await fleet.boxes.get(key);
    if (!e || e.operation !== 'PUT') continue;
    try {
      const hb = JSON.parse(e.string()) as Heartbeat;
      const ago = (now - Date.parse(hb.at)) / 1000;
      out.push({ ...hb, online: ago * 1000 <= 3 * hb.every_ms, seen_s_ago: Math.max(0, Math.round(ago)) });
    } catch {
      // a value that is not a heartbeat: not a box
    }
  }
  return out.sort((a, b) => (a.box < b.box ? -1 : 1));
}

export interface JobRow {
  id: string;
  to: string | null;
  state: 'waiting' | 'claimed' | 'ended';
  box: string | null;
  outcome: string | null;
  at: string | null;
}

/** Jobs waiting in the queue and jobs claimed by a box (with their outcome once ended). */
export async function jobs(fleet: Fleet): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  const info = await fleet.jsm.streams.info(JOBS_STREAM);
  if (info.state.messages > 0) {
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await fleet.jsm.streams.getMessage(JOBS_STREAM, { seq }).catch(() => null);
      if (!m) continue; // acknowledged and removed
      try {
        const env = JSON.parse(m.string()) as FleetJob;
        rows.push({ id: env.id, to: env.to, state: 'waiting', box: null, outcome: null, at: env.submitted_at });
      } catch {
        // not a fleet job: the box that pulls it removes it
      }
    }
  }
  const waiting = new Set(rows.map((r) => r.id));
  for await (const id of await fleet.claims.keys()) {
    const c = await claimOf(fleet, id);
    if (!c) continue;
    const row: JobRow = { id, to: null, state: c.ended_at ? 'ended' : 'claimed', box: c.box, outcome: c.outcome ?? null, at: c.ended_at ?? c.claimed_at };
    if (waiting.has(id)) rows[rows.findIndex((r) => r.id === id)] = { ...row, to: rows.find((r) => r.id === id)!.to };
    else rows.push(row);
  }
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Follow a job: its claim, then its ledger lines as the box ships them, until its terminal event
 * (or `timeoutMs` without one). `onEvent` gets each event.
 */
export async function watch(fleet: Fleet, id: string, onEvent: (box: string, e: Record<string, unknown>) => void, timeoutMs: number): Promise<'ended' | 'timeout'> {
  const consumer = await fleet.js.consumers.get(EVENTS_STREAM, { filter_subjects: `pico.ev.*.${id}`, deliver_policy: DeliverPolicy.All });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const m = await consumer.next({ expires: Math.max(1_000, Math.min(5_000, deadline - Date.now())) });
      if (!m) continue;
      const at = parseEventSubject(m.subject);
      const e = JSON.parse(m.string()) as Record<string, unknown>;
      onEvent(at?.box ?? '?', e);
      if ((TERMINAL_TYPES as readonly string[]).includes(String(e.type))) return 'ended';
    }
    return 'timeout';
  } finally {
    await consumer.delete().catch(() => {});
  }
}
