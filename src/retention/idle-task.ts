/**
 * Retention in the daemon: an idle task (daemon/observer.ts) that runs
 * `pico gc` between jobs when settings.json has `gc`.
 *
 * It is due at most every `every_hours` (the time of the last complete run is
 * kept in sessions/.daemon/gc.json, so a restart does not run it again at
 * once), and sooner only when the last run stopped with work left (`more`:
 * a run takes at most LIMIT items, so a job that arrives waits for one batch,
 * not for a whole backlog). Its settings are the ones it was made with, then
 * whatever a SIGHUP reads (its observer's `reloaded`; a reload also makes it
 * due at once); `gc: null` turns it off. A run that fails is logged by the
 * daemon as a warning and tried again after `every_hours`, not after every job.
 * The gc modules (and the memory index they open) are loaded only when a run
 * is due, so a daemon without retention never loads them. A run stops between
 * batches when the daemon's stop signal aborts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { DaemonObserver, IdleTask } from '../daemon/observer.js';
import type { DaemonSettings } from '../daemon/settings.js';
import { writeFileAtomic } from '../base/durable-file.js';
import type { GcReport } from './gc.js';

/** Items per run between jobs. */
export const LIMIT = 200;
const STATE = 'gc.json';

export interface RetentionTask {
  task: IdleTask;
  observer: DaemonObserver;
}

/** When the last run ended, from sessions/.daemon/gc.json (0 when never). */
function lastRun(file: string): number {
  try {
    const t = Date.parse((JSON.parse(readFileSync(file, 'utf8')) as { ended_at?: string }).ended_at ?? '');
    return Number.isNaN(t) ? 0 : t;
  } catch {
    return 0;
  }
}

/** The idle task and the observer that hands it new settings. */
export function retentionTask(root: string, initial: DaemonSettings['gc'], log: Logger, now: () => number = Date.now): RetentionTask {
  let gc = initial;
  const stateFile = join(root, 'sessions', '.daemon', STATE);
  let last = lastRun(stateFile);
  let more = false;
  const task: IdleTask = {
    name: 'retention',
    async run(signal) {
      if (gc === null || signal.aborted) return;
      if (!more && now() - last < gc.every_hours * 3_600_000) return;
      const settings = gc;
      const { collectGarbage } = await import('./gc.js');
      let r: GcReport;
      try {
        r = await collectGarbage({ root, olderThanMs: settings.older_than_days * 86_400_000, archive: settings.archive, dryRun: false, limit: LIMIT, signal });
      } catch (err) {
        // tried again after every_hours (or at once after a SIGHUP), not after every job
        more = false;
        last = now();
        throw err;
      }
      more = r.more;
      last = now();
      const summary = { ended_at: new Date(last).toISOString(), sessions: r.sessions, rejected: r.rejected, bytes: r.bytes, archives: r.archives, more: r.more };
      await writeFileAtomic(stateFile, JSON.stringify(summary, null, 2) + '\n', false);
      if (r.sessions + r.rejected + r.finished_leftovers > 0 || r.kept.length > 0) {
        log.info({ event: 'gc', ...summary, kept: r.kept.length }, `retention: ${settings.archive ? 'archived' : 'removed'} ${r.sessions} session(s) and ${r.rejected} rejected entr${r.rejected === 1 ? 'y' : 'ies'} older than ${settings.older_than_days} day(s), ${r.bytes} bytes freed${r.more ? '; more remain for the next idle moment' : ''}`);
      }
    },
  };
  const observer: DaemonObserver = {
    reloaded(settings) {
      // a reload (new settings, or a fixed archive) is due at the next idle moment, not after every_hours
      last = 0;
      gc = settings.gc;
    },
  };
  return { task, observer };
}
