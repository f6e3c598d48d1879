/**
 * What needs a person, for `pico status`: each condition a flag with the
 * problem and the fix, plus the facts a person asks about a service (the
 * sandbox level and limits in force, free disk, the sessions' disk use).
 *
 * Flags: settings.json that does not parse; a manifest the daemon refused
 * when it was dropped in (its reason file in manifests/rejected/: the set in
 * force stays without it); manifests that do not load for any other reason
 * (loaded as `pico manifests check` does: a running daemon keeps the last
 * good set, so the daemon looks healthy while the files are broken); a
 * stalled queue (jobs queued, and nothing started or finished for
 * settings.stalled_after_s, or no daemon at all); low disk (free space under
 * the root below settings.low_disk_mb); jobs waiting for approval; a sandbox
 * weaker than "full" (as the session worker probed it: world.json). The
 * flags never change `pico status`'s exit code, which says only whether the
 * daemon runs. This module computes; the command prints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWorldReport, type WorldReport } from '../world/report.js';
import { WORLD_LIMITS } from '../world/settings.js';
import type { DaemonPaths } from '../daemon/paths.js';
import type { StatusReading } from '../daemon/status.js';
import { defaultSettings, loadSettings, type DaemonSettings } from '../daemon/settings.js';
import { listJobs } from '../jobs/list.js';
import { freeSpace, humanBytes } from './disk.js';
import { sessionsDiskUse } from '../retention/disk-use.js';

export type FlagName = 'broken_settings' | 'refused_manifest' | 'broken_manifests' | 'stalled_queue' | 'low_disk' | 'waiting_approval' | 'weak_sandbox';

export interface StatusFlag {
  flag: FlagName;
  problem: string;
  fix: string;
}

export interface StatusExtras {
  flags: StatusFlag[];
  sandbox: { level: WorldReport['level'] | null; wrapper: string | null; enforced: string[]; not_enforced: string[]; probed_at: string | null; limits: typeof WORLD_LIMITS };
  disk: { free_bytes: number | null; low_disk_mb: number; sessions_bytes: number; sessions: number; archive_bytes: number; unreadable: number };
}

/** The root's settings, or the defaults with a flag when the file is wrong. */
function settingsOrFlag(root: string, flags: StatusFlag[]): DaemonSettings {
  try {
    return loadSettings(root).settings;
  } catch (err) {
    flags.push({ flag: 'broken_settings', problem: (err as Error).message, fix: (err as { fix?: string }).fix ?? 'correct settings.json' });
    return defaultSettings();
  }
}

/**
 * The manifests as `pico manifests check` loads them: a flag for each file the daemon refused (its
 * reason file says why), and one naming the first other problems when the set does not load.
 */
async function manifestFlags(root: string, daemonRuns: boolean): Promise<StatusFlag[]> {
  const [{ checkManifestSet }, { refusalsOnRecord, REJECTED_MANIFESTS }] = await Promise.all([import('../root/manifest-set.js'), import('../root/accept-manifests.js')]);
  const flags: StatusFlag[] = [];
  const refused = new Set(refusalsOnRecord(root));
  for (const file of refused) {
    const reasonFile = `${REJECTED_MANIFESTS}/${file.slice('manifests/'.length)}.reason.json`;
    let why = '';
    try {
      const r = JSON.parse(readFileSync(join(root, reasonFile), 'utf8')) as { problems?: { path: string; message: string }[]; in_force?: string };
      const p = r.problems?.[0];
      why = `${p ? `: ${p.path ? `at ${p.path}: ` : ''}${p.message}` : ''}${r.in_force ? ` (in force: ${r.in_force})` : ''}`;
    } catch { /* the reason file is the daemon's: unreadable, the file is still named */ }
    flags.push({ flag: 'refused_manifest', problem: `${file} was refused when it was dropped in${why}`, fix: `fix the file (the daemon checks it again as soon as it is saved) or remove it; ${reasonFile} lists every problem` });
  }
  const { issues } = await checkManifestSet(root);
  const other = issues.filter((i) => !refused.has(i.file));
  if (other.length === 0) return flags;
  const first = other.slice(0, 3).map((i) => `${i.file}${i.path ? ` at ${i.path}` : ''}: ${i.message}`).join('; ');
  flags.push({
    flag: 'broken_manifests',
    problem: `${other.length} manifest problem(s): ${first}${other.length > 3 ? '; …' : ''}${daemonRuns ? ' (the running daemon keeps the last set that loaded)' : ' (a daemon does not start on them)'}`,
    fix: `\`pico manifests check --root ${root}\` lists each with its fix; then \`systemctl reload picoharness\` (or restart the daemon)`,
  });
  return flags;
}

/** The newest of the times the daemon last showed progress: its start, the running job's start, the last finish. */
function lastProgress(r: Extract<StatusReading, { state: 'running' }>['status']): number {
  return Math.max(Date.parse(r.started_at), r.running ? Date.parse(r.running.started_at) : 0, ...r.recent.map((o) => Date.parse(o.finished_at)));
}

/** Every flag and fact for `root`, given what status.json says. */
export async function statusExtras(paths: DaemonPaths, reading: StatusReading, now = Date.now()): Promise<StatusExtras> {
  const flags: StatusFlag[] = [];
  const root = paths.root;
  const settings = settingsOrFlag(root, flags);
  const running = reading.state === 'running' ? reading.status : null;
  flags.push(...(await manifestFlags(root, running !== null)));

  // the queue: the daemon's counts when it runs, else the files
  if (running) {
    const queued = Object.values(running.queue).reduce((a, b) => a + b, 0);
    const idleMs = now - lastProgress(running);
    if (queued > 0 && idleMs > settings.stalled_after_s * 1000 && !running.paused) {
      const r = running.running;
      flags.push({
        flag: 'stalled_queue',
        problem: `${queued} job(s) queued and no job started or finished for ${Math.round(idleMs / 1000)} s (stalled_after_s: ${settings.stalled_after_s})${r ? `; ${r.session} has been running step ${r.step ?? '(starting)'} all that time` : ''}`,
        fix: r ? `if ${r.session} hangs, \`pico cancel ${r.session} --root ${root}\`; if it is just long, raise stalled_after_s in ${root}/settings.json` : 'the daemon is not handing jobs over: look at `journalctl -u picoharness -p warning`, then restart it',
      });
    }
  } else {
    const queued = listJobs(root, { state: 'queued' }).length;
    if (queued > 0) flags.push({ flag: 'stalled_queue', problem: `${queued} job(s) queued and no daemon runs on this root`, fix: `start it: \`systemctl start picoharness\`, or \`pico daemon --root ${root}\`` });
  }

  // waiting for approval
  const waiting = running ? (running.waiting ?? []).map((w) => ({ id: w.session, step: w.step })) : listJobs(root, { state: 'waiting' }).map((j) => ({ id: j.id, step: j.step ?? '?' }));
  for (const w of waiting) {
    flags.push({ flag: 'waiting_approval', problem: `${w.id} waits for a person to approve step ${w.step}`, fix: `pico approve ${w.id} ${w.step} --root ${root}   or   pico deny ${w.id} ${w.step} --root ${root}` });
  }

  // disk
  const free = freeSpace(root);
  if (free && free.free_bytes < settings.low_disk_mb * 1024 * 1024) {
    flags.push({
      flag: 'low_disk',
      problem: `only ${humanBytes(free.free_bytes)} free under ${root} (low_disk_mb: ${settings.low_disk_mb}); a full disk pauses every job`,
      fix: `free space on that filesystem (\`pico gc --older-than 30d --root ${root}\` removes old finished sessions), or lower low_disk_mb in ${root}/settings.json`,
    });
  }
  const use = sessionsDiskUse(paths.root);

  // the sandbox, as the session worker saw it
  const world = readWorldReport(paths.daemonDir);
  if (world && world.level !== 'full') {
    flags.push({
      flag: 'weak_sandbox',
      problem: `programs run at isolation "${world.level}"; not enforced: ${world.not_enforced.join('; ') || 'nothing'}`,
      fix: 'install bubblewrap (`apt install bubblewrap`) and let the service use user namespaces (no RestrictNamespaces=yes in the unit; kernel.unprivileged_userns_clone=1); `pico doctor` shows what this machine gives',
    });
  }
  return {
    flags,
    sandbox: { level: world?.level ?? null, wrapper: world?.wrapper ?? null, enforced: world?.enforced ?? [], not_enforced: world?.not_enforced ?? [], probed_at: world?.probed_at ?? null, limits: WORLD_LIMITS },
    disk: { free_bytes: free?.free_bytes ?? null, low_disk_mb: settings.low_disk_mb, sessions_bytes: use.bytes, sessions: use.sessions, archive_bytes: use.archive_bytes, unreadable: use.unreadable },
  };
}

/** The lines a person reads: limits, disk, then each flag with its fix. */
export function extrasLines(x: StatusExtras, skip: readonly FlagName[] = []): string[] {
  const l = x.sandbox.limits;
  const lines = [
    `  limits:  per program: memory ${humanBytes(l.memory_bytes)}, ${l.processes} processes, files up to ${humanBytes(l.file_bytes)}, ${l.open_files} open files`,
    `  disk:    ${x.disk.free_bytes === null ? 'free space unknown' : `${humanBytes(x.disk.free_bytes)} free`}; sessions/ holds ${humanBytes(x.disk.sessions_bytes)} (${x.disk.sessions} session${x.disk.sessions === 1 ? '' : 's'}${x.disk.archive_bytes > 0 ? `; archives ${humanBytes(x.disk.archive_bytes)}` : ''}${x.disk.unreadable > 0 ? `; ${x.disk.unreadable} folder(s) this user may not read, not counted` : ''}; pico gc removes old ones)`,
  ];
  const shown = x.flags.filter((f) => !skip.includes(f.flag));
  if (shown.length > 0) lines.push('  needs attention:');
  for (const f of shown) lines.push(`    ! ${f.flag}: ${f.problem}`, `      fix: ${f.fix}`);
  return lines;
}
