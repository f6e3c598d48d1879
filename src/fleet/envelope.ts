/**
 * A fleet job on the wire (fleet-job@1): the operator's job@1 document, the
 * id it runs under on whichever box takes it, where it was sent, and when.
 *
 * The id is a session id made at submission: it is the message id (so a
 * resubmission inside the dedup window is one message), the key of the claim
 * (so it is taken once across the fleet) and the session's folder name on the
 * box that runs it (so `pico fleet watch ID` finds it). A claim records the
 * box and, once the session ended, its outcome. This module parses and
 * builds; it sends nothing.
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

/** Parse a claim value; null when it is not one. */
export function parseClaim(data: Uint8Array): Claim | null {
  try {
    const v = JSON.parse(new TextDecoder().decode(data)) as Claim;
    return typeof v.box === 'string' && typeof v.claimed_at === 'string' ? v : null;
  } catch {
    return null;
  }
}
