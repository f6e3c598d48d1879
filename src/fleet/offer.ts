/**
 * What a box offers the fleet and how busy it is, read from its root.
 *
 * Offer: its providers (the `model=` selector matches a provider id: a GGUF
 * or HTTP model, or a code provider) and the capabilities they implement
 * (`cap=`), read from manifests/providers/*.json. Only `id` and `implements`
 * are read, with no schema check: the daemon validates manifests, and a
 * manifest it refuses only makes the box offer a little too much (the job
 * then ends declined or rejected on this box, with its reason, not lost).
 *
 * Busy: the box's own queue is not empty — a job file waits in the inbox,
 * the daemon's status says a job runs or waits, or a fleet job this box took
 * has not ended. An idle box pulls; a busy one never does, so no box hoards.
 * Files are read through the one safe open (a FIFO planted as a manifest or as
 * the status file stalls nothing; it reads as absent).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readManifestText } from '../base/manifest-file.js';
import { readPlantedText, rootRules } from '../base/safe-open.js';
import { fleetInboxName } from '../daemon/claim.js';

export interface Offer {
  models: string[];
  capabilities: string[];
}

/** The providers and capabilities under `root`'s manifests/providers/. */
export function readOffer(root: string): Offer {
  const dir = join(root, 'manifests', 'providers');
  const models = new Set<string>();
  const caps = new Set<string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return { models: [], capabilities: [] };
  }
  for (const n of names) {
    try {
      const m = JSON.parse(readManifestText(root, join('manifests', 'providers', n))) as { id?: unknown; implements?: unknown };
      if (typeof m.id !== 'string') continue;
      models.add(m.id);
      if (Array.isArray(m.implements)) for (const c of m.implements) if (typeof c === 'string') caps.add(c);
    } catch {
      // a manifest that does not parse is the daemon's to report (pico manifests check)
    }
  }
  return { models: [...models].sort(), capabilities: [...caps].sort() };
}

/** Entries waiting in the inbox (the spool's own rule: dot-files and *.tmp are not entries). */
export function inboxDepth(root: string): number {
  try {
    return readdirSync(join(root, 'sessions', 'inbox')).filter((n) => !n.startsWith('.') && !n.endsWith('.tmp')).length;
  } catch {
    return 0;
  }
}

/** Jobs the daemon's status file says run or wait (0 when it is absent or says stopped). */
export function daemonDepth(root: string): number {
  try {
    const text = readPlantedText(rootRules(join(root, 'sessions')), join(root, 'sessions', '.daemon', 'status.json'), { maxBytes: 1024 * 1024, what: 'daemon status' })?.text;
    if (text === undefined) return 0;
    const s = JSON.parse(text) as { state?: string; running?: unknown; queue?: Record<string, number> };
    if (s.state === 'stopped') return 0;
    return (s.running ? 1 : 0) + Object.values(s.queue ?? {}).reduce((a, b) => a + (typeof b === 'number' ? b : 0), 0);
  } catch {
    return 0;
  }
}

/** Where a fleet job this box took stands on the box. */
export function takenState(root: string, id: string): 'queued' | 'running' | 'ended' | 'gone' {
  if (existsSync(join(root, 'sessions', 'inbox', fleetInboxName(id)))) return 'queued';
  const dir = join(root, 'sessions', id);
  if (existsSync(join(dir, 'result.json'))) return 'ended';
  if (existsSync(dir)) return 'running';
  return 'gone'; // refused by the daemon's intake (sessions/rejected/ says why)
}
