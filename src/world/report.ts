/**
 * The world report: what the session worker's probe observed, kept in
 * `sessions/.daemon/world.json` so `pico status` shows what the daemon's
 * programs actually get — the worker may run as another user, under systemd
 * restrictions the CLI does not have, so the CLI never probes on its behalf.
 *
 * Written after the worker is ready (the probe costs up to a few hundred ms
 * and must not delay the first job); read by status. Nothing else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../base/durable-file.js';
import type { WorldCapabilities } from './capabilities.js';
import type { IsolationLevel } from '../registry/levels.js';

export interface WorldReport {
  level: IsolationLevel;
  wrapper: string | null;
  run_as_uid: number | null;
  enforced: string[];
  not_enforced: string[];
  probed_at: string;
  pid: number;
}

export const WORLD_REPORT = 'world.json';

/** Write what the probe found, for `pico status`. */
export function writeWorldReport(daemonDir: string, caps: WorldCapabilities): void {
  const r: WorldReport = { level: caps.level, wrapper: caps.wrapper, run_as_uid: caps.runAsUid, enforced: caps.enforced,
    not_enforced: caps.notEnforced, probed_at: new Date().toISOString(), pid: process.pid };
  // every session worker probes; the same finding is not written again (a card wears with every write):
  // probed_at and pid then name the probe that first found it
  const had = readWorldReport(daemonDir);
  const finding = (w: WorldReport): string => JSON.stringify({ ...w, probed_at: null, pid: null });
  if (had && finding(had) === finding(r)) return;
  writeFileAtomicSync(join(daemonDir, WORLD_REPORT), JSON.stringify(r, null, 2) + '\n', false);
}

/** The last report, or null when no worker has probed yet (or the file is damaged). */
export function readWorldReport(daemonDir: string): WorldReport | null {
  try {
    const r = JSON.parse(readFileSync(join(daemonDir, WORLD_REPORT), 'utf8')) as WorldReport;
    return typeof r.level === 'string' && Array.isArray(r.not_enforced) ? r : null;
  } catch {
    return null;
  }
}

/** One line for people: the level, its wrapper, and what is not enforced. */
export function worldLine(r: WorldReport | null): string {
  if (!r) return '  world:   not probed yet (the session worker probes when it starts)';
  const how = r.wrapper ? ` via ${r.wrapper}` : '';
  const user = r.run_as_uid !== null ? `, programs run as uid ${r.run_as_uid}` : '';
  return `  world:   isolation ${r.level}${how}${user}; not enforced: ${r.not_enforced.join('; ') || 'nothing'}`;
}
