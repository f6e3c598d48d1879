/**
 * What the fleet's parts send each other, parsed: a fleet job on the wire
 * (fleet-job@1), a claim, a box's heartbeat (fleet-box@1).
 *
 * A fleet job is the operator's job@1 document, the
 * id it runs under on whichever box takes it, where it was sent, and when.
 *
 * The id is a session id made at submission: it is the message id (so a
 * resubmission inside the dedup window is one message), the key of the claim
 * (so it is taken once across the fleet) and the session's folder name on the
 * box that runs it (so `pico fleet watch ID` finds it). A claim records the
 * box and, once the session ended, its outcome. A claim and a heartbeat are
 * written by boxes, which a reader does not own: each is checked field by
 * field, and one that is not what it says is refused whole, never half read.
 * This module parses and builds; it sends nothing.
 */
import { isSessionId } from '../ledger/session-id.js';
import { parseJob, type Job } from '../runtime/job.js';
import { parseSelector } from './names.js';

export interface FleetJob {
  fleet_job: 'fleet-job@1';
  id: string;
  /** the selector it was sent to: box=NAME, model=ID or cap=CAPABILITY */
  to: string;
  submitted_at: string;
  job: Job;
}

export interface Claim {
  box: string;
  claimed_at: string;
  /** set by the box once the session has a result.json */
  ended_at?: string;
  outcome?: string;
  /** why the job ended without running, when it did (`outcome` rejected) */
  reason?: string;
}

/** What a box publishes about itself (key: the box name). */
export interface Heartbeat {
  heartbeat: 'fleet-box@1';
  box: string;
  at: string;
  every_ms: number;
  version: string;
  models: string[];
  capabilities: string[];
  queue: number;
  isolation: string;
  lag: { bytes: number; sessions: number };
}

/** Parse a fleet job message; throws with what is wrong (the message can never run: it is terminated). */
export function parseFleetJob(data: Uint8Array): FleetJob {
  let v: Partial<FleetJob>;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data)) as Partial<FleetJob>;
  } catch (err) {
    throw new Error(`not UTF-8 JSON (${(err as Error).message})`);
  }
  if (v.fleet_job !== 'fleet-job@1') throw new Error('not a fleet-job@1 document');
  if (typeof v.id !== 'string' || !isSessionId(v.id)) throw new Error('its id is not a session id');
  if (typeof v.to !== 'string' || !parseSelector(v.to)) throw new Error('its "to" is not box=, model= or cap=');
  if (typeof v.submitted_at !== 'string') throw new Error('it has no submitted_at');
  return { fleet_job: 'fleet-job@1', id: v.id, to: v.to, submitted_at: v.submitted_at, job: parseJob(v.job, `fleet job ${v.id}`) };
}

/** A JSON object of a message, or null when the bytes are not one. */
function objectOf(data: Uint8Array): Record<string, unknown> | null {
  try {
    const v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data)) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const optionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/** Parse a claim value; null when it is not one. */
export function parseClaim(data: Uint8Array): Claim | null {
  const v = objectOf(data);
  if (!v || typeof v.box !== 'string' || typeof v.claimed_at !== 'string') return null;
  if (!optionalString(v.ended_at) || !optionalString(v.outcome) || !optionalString(v.reason)) return null;
  return v as unknown as Claim;
}

/** Parse a heartbeat value: the heartbeat, or the first field that is not what it must be. */
export function parseHeartbeat(data: Uint8Array): Heartbeat | { problem: string } {
  const v = objectOf(data);
  if (!v) return { problem: 'it is not a JSON object' };
  if (v.heartbeat !== 'fleet-box@1') return { problem: 'it is not a fleet-box@1 heartbeat' };
  const strings = (x: unknown): boolean => Array.isArray(x) && x.every((s) => typeof s === 'string');
  const count = (x: unknown): boolean => Number.isSafeInteger(x) && (x as number) >= 0;
  const lag = v.lag as Record<string, unknown> | null | undefined;
  const checks: [string, boolean][] = [
    ['box', typeof v.box === 'string'], ['at', typeof v.at === 'string' && Number.isFinite(Date.parse(v.at))],
    ['every_ms', typeof v.every_ms === 'number' && v.every_ms > 0], ['version', typeof v.version === 'string'],
    ['models', strings(v.models)], ['capabilities', strings(v.capabilities)], ['queue', count(v.queue)],
    ['isolation', typeof v.isolation === 'string'],
    ['lag', typeof lag === 'object' && lag !== null && count(lag.bytes) && count(lag.sessions)],
  ];
  const bad = checks.find(([, ok]) => !ok);
  if (bad) return { problem: `its "${bad[0]}" is missing or not what a heartbeat holds` };
  return v as unknown as Heartbeat;
}
