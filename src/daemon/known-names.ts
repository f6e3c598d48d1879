/**
 * The names a root declares, for intake: which tools, capabilities and
 * schemas have a manifest file.
 *
 * A job naming something the root does not have should be refused at the
 * door with a reason file, not accepted and declined later. The daemon does
 * not load the registry (the session worker does; the daemon stays small),
 * but a manifest file is named after the id it declares (registry/load.ts
 * refuses any other name), so the folder listings are the names. The
 * listings are re-read when a folder's mtime changes. This is a first
 * filter only: a name whose file exists but does not load passes here, and
 * the runtime, which checks the job against the registry before the session
 * runs (runtime/job-check.ts), closes that session as declined instead.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from '../runtime/job.js';
import { checkJobAgainstRegistry, type JobProblem } from '../runtime/job-check.js';

type Table = 'tools' | 'capabilities' | 'schemas';
const TABLES: readonly Table[] = ['tools', 'capabilities', 'schemas'];

interface Listing {
  mtimeMs: number;
  names: Map<string, true>;
}

const cache = new Map<string, Listing>();

/** The ids declared by the manifest files of one folder (cached by the folder's mtime). */
function listing(dir: string): Map<string, true> {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(dir).mtimeMs;
  } catch {
    return new Map();
  }
  const hit = cache.get(dir);
  if (hit && hit.mtimeMs === mtimeMs) return hit.names;
  const names = new Map<string, true>();
  for (const n of readdirSync(dir)) if (n.endsWith('.json') && !n.startsWith('.')) names.set(n.slice(0, -'.json'.length), true);
  cache.set(dir, { mtimeMs, names });
  return names;
}

/** What `job` names that no manifest file of `root` declares (empty when every name has a file). */
export function unknownNames(root: string, job: Job): JobProblem[] {
  // a root without manifests/ is warned about at start; its jobs are declined by the runtime, as before
  if (!existsSync(join(root, 'manifests'))) return [];
  const tables = Object.fromEntries(TABLES.map((t) => [t, listing(join(root, 'manifests', t))])) as Record<Table, Map<string, true>>;
  return checkJobAgainstRegistry(job, tables);
}
