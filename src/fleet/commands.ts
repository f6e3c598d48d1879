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
 *
 * What the server holds was written by boxes, and a box is a sender these
 * commands do not own. A box is named by the key its heartbeat is stored
 * under, never by what the heartbeat says; a heartbeat, claim or queued job
 * that does not parse is shown as such, beside the others, never a crash. A
 * watch follows only the box that holds the job's claim, and only lines that
 * line.ts admits, in seq order. What is returned is data: src/cli/fleet.ts
 * prints it through the terminal-safe quoting.
 */
import { DeliverPolicy } from '@nats-io/jetstream';
import { newSessionId, isSessionId } from '../ledger/session-id.js';
import { parseJob } from '../runtime/job.js';
import { readNamedJson } from '../base/named-file.js';
import { DEFAULT_MAX_JOB_BYTES } from '../daemon/inspect.js';
import { TERMINAL_TYPES } from '../ledger/events.js';
import type { Fleet } from './connect.js';
import { parseClaim, parseHeartbeat, type Claim, type FleetJob, type Heartbeat } from './envelope.js';
import { checkShippedLine, InOrder, type ShippedLine } from './line.js';
import { BOX_RE, EVENTS_STREAM, eventSubject, JOBS_STREAM, jobSubject, parseSelector, type Selector } from './names.js';

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

/** A box as its heartbeat shows it (`problem`: the heartbeat names another box), or a key whose heartbeat is unreadable. */
export type BoxStatus = (Heartbeat & { online: boolean; seen_s_ago: number; problem?: string }) | { box: string; problem: string };

/** Every box that ever sent a heartbeat, by its key; online when its last one is within three periods. */
export async function boxes(fleet: Fleet, now = Date.now()): Promise<BoxStatus[]> {
  const out: BoxStatus[] = [];
  for await (const key of await fleet.boxes.keys()) {
    const e = await fleet.boxes.get(key);
    if (!e || e.operation !== 'PUT') continue;
    const hb = parseHeartbeat(e.value);
    if ('problem' in hb) {
      out.push({ box: key, problem: `its heartbeat is unreadable: ${hb.problem}` });
      continue;
    }
    const ago = (now - Date.parse(hb.at)) / 1000;
    const row: BoxStatus = { ...hb, box: key, online: ago * 1000 <= 3 * hb.every_ms, seen_s_ago: Math.max(0, Math.round(ago)) };
    // a box writes only its own key (the sample server config): a heartbeat naming another box is not that box
    if (hb.box !== key) row.problem = `its heartbeat names box ${JSON.stringify(hb.box)}; it is shown under its own key`;
    out.push(row);
  }
  return out.sort((a, b) => (a.box < b.box ? -1 : 1));
}

export interface JobRow {
  id: string;
  to: string | null;
  state: 'waiting' | 'claimed' | 'ended';
  box: string | null;
  outcome: string | null;
  /** why it ended without running, when it did */
  reason: string | null;
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
      let env: Partial<FleetJob> | null = null;
      try {
        env = JSON.parse(m.string()) as Partial<FleetJob> | null;
      } catch {
        // below
      }
      // not a fleet job: the box that pulls it removes it
      if (typeof env !== 'object' || env === null || typeof env.id !== 'string' || !isSessionId(env.id)) continue;
      rows.push({ id: env.id, to: typeof env.to === 'string' ? env.to : null, state: 'waiting', box: null, outcome: null, reason: null, at: typeof env.submitted_at === 'string' ? env.submitted_at : null });
    }
  }
  const waiting = new Set(rows.map((r) => r.id));
  for await (const id of await fleet.claims.keys()) {
    const c = await claimOf(fleet, id);
    if (!c) continue;
    const row: JobRow = { id, to: null, state: c.ended_at ? 'ended' : 'claimed', box: c.box, outcome: c.outcome ?? null, reason: c.reason ?? null, at: c.ended_at ?? c.claimed_at };
    if (waiting.has(id)) rows[rows.findIndex((r) => r.id === id)] = { ...row, to: rows.find((r) => r.id === id)!.to };
    else rows.push(row);
  }
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** What a watch tells its printer as it goes. */
export interface WatchEvents {
  /** the claim, once one is found (a box took the job) */
  claim(c: Claim): void;
  /** the next ledger line of the job, in seq order, from the box that holds the claim */
  line(box: string, l: ShippedLine): void;
  /** a message of that box that is not a line of the job: skipped, said why */
  skipped(box: string, problem: string): void;
}

/** How often a watch asks for the claim of a job no box has taken yet, ms. */
const CLAIM_POLL_MS = 500;

/**
 * Follow a job: wait for its claim, then the ledger lines of the box that holds it, as that box
 * ships them, until its terminal event ('ended'), or `timeoutMs` without one ('timeout', or
 * 'unclaimed' when no box took it). Lines another box publishes under the id are never read.
 */
export async function watch(fleet: Fleet, id: string, on: WatchEvents, timeoutMs: number): Promise<'ended' | 'timeout' | 'unclaimed'> {
  const deadline = Date.now() + timeoutMs;
  let claim = await claimOf(fleet, id);
  while (!claim || !BOX_RE.test(claim.box)) {
    if (Date.now() >= deadline) return 'unclaimed';
    await new Promise((r) => setTimeout(r, Math.min(CLAIM_POLL_MS, Math.max(0, deadline - Date.now()))));
    claim = await claimOf(fleet, id);
  }
  on.claim(claim);
  const box = claim.box;
  const consumer = await fleet.js.consumers.get(EVENTS_STREAM, { filter_subjects: eventSubject(box, id), deliver_policy: DeliverPolicy.All });
  const order = new InOrder<ShippedLine>();
  try {
    while (Date.now() < deadline) {
      const m = await consumer.next({ expires: Math.max(1_000, Math.min(5_000, deadline - Date.now())) });
      if (!m) continue;
      const l = checkShippedLine(m.data, id);
      if ('problem' in l) {
        on.skipped(box, l.problem);
        continue;
      }
      for (const next of order.offer(l.seq, l)) {
        on.line(box, next);
        if ((TERMINAL_TYPES as readonly string[]).includes(next.type)) return 'ended';
      }
    }
    return 'timeout';
  } finally {
    await consumer.delete().catch(() => {});
  }
}
