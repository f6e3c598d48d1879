/**
 * The daemon loop: claim job files, run them one at a time, survive anything.
 *
 * Start-up order (startup.ts): lock the root → start the session worker
 * (worker-host.ts; it boots meanwhile) → queue every claimed but unfinished
 * session (recovery) → watch the inbox → wait for the worker, which has
 * opened the runtime (broken manifests stop the daemon here, with the file
 * and the fix) → READY=1. Then one loop takes the most urgent job from
 * the queue, has the worker run its session, has it ingest finished sessions
 * into memory between jobs, and repeats (design P5: one job at a time; the
 * worker is the one process that runs providers). Intake (spool → inspect →
 * claim or reject) runs concurrently in this process but only moves files
 * and queues ids; it never runs a provider. When the queue stays empty the
 * worker exits and its memory goes back to the system; the next job starts
 * a new one.
 *
 * Every accepted job ends: a session the runtime throws on is run once more
 * with the error as its close reason (its remaining steps written as not
 * run), and closed by its result file alone if even that fails. A disk that
 * refuses a write (ENOSPC, EIO: storage-error.ts) is not the session's fault:
 * it goes back to the queue, the jobs handed over but not begun are taken
 * back, hand-overs pause with a doubling backoff (status.json says why), and
 * the first session that gets through ends the pause — no restart needed.
 *
 * Shutdown (signals.ts): the first SIGTERM/SIGINT stops intake and aborts the
 * running session's signal, which finishes its current step; teardown then
 * runs every closer in reverse order of opening and reports all failures.
 * A session stopped at a destructive step (outcome `waiting`) leaves the
 * queue for the waiting list (src/approval/waiting.ts), also at start, and is
 * requeued once its decision file appears. A cancel (`pico cancel`:
 * sessions/<id>/cancel.json, cancel-file.ts) is looked for with the decisions: a
 * job not begun is closed by its result file; the running one stops after
 * its step, as at shutdown, and runs once more to close (outcome `cancelled`).
 * This file owns the order of things: start, serve, stop, tear down. Each
 * transition lives in its own small module over the daemon's bookkeeping
 * (context.ts): start-up (startup.ts), claiming (claiming.ts → intake →
 * inspect/claim/reject), the hand-over to the worker (hand-over.ts), its
 * answer (settle.ts, settle-failure.ts), the requests watcher for approval
 * decisions and cancels (requests.ts), the disk pause (disk-pause.ts),
 * ingest batching (ingest-batch.ts); queue, recovery, status, notify below.
 */
import { DaemonContext, type DaemonOptions } from './context.js';
import { dispatch } from './hand-over.js';
import { openNotifier, type Notifier } from './notify.js';
import type { DaemonSettings } from './settings.js';
import { DEFAULT_GRACE_MS, FORCED_EXIT_CODE, installShutdown } from './signals.js';
import { start } from './startup.js';
import { WorkerStartError } from './worker-host.js';

export type { DaemonOptions } from './context.js';

/** Exit code for a root whose manifests do not load (as src/cli/args.ts EXIT.root). */
export const EXIT_BROKEN_ROOT = 3;

/** Run the daemon until a signal stops it; resolves to the process exit code. */
export async function runDaemon(opts: DaemonOptions): Promise<number> {
  const d = new DaemonContext(opts);
  return run(d);
}

/** Start, serve until stopped, tear down; returns the exit code. */
async function run(d: DaemonContext): Promise<number> {
  const env = d.opts.env ?? process.env;
  const notifier = openNotifier(env, d.log);
  d.notifier = notifier;
  d.closers.push({ name: 'notify helper', close: () => notifier.close() });
  const uninstall = installShutdown({
    log: d.log,
    graceMs: d.opts.graceMs ?? DEFAULT_GRACE_MS,
    drain: () => {
      notifier.send({ STOPPING: '1', STATUS: 'stopping: finishing the current step' });
      d.status.update((s) => (s.state = 'stopping'));
      d.stop.abort();
      d.runtime?.stop();
      d.wake();
    },
    force: () => {
      d.runtime?.kill?.();
      void d.status.flush();
      (d.opts.exit ?? process.exit)(FORCED_EXIT_CODE);
    },
    reload: () => reload(d),
  });
  d.closers.push({ name: 'signal handlers', close: uninstall });
  d.closers.push({ name: 'idle collector', close: () => d.idle.stop() });
  let code = 0;
  try {
    await start(d, notifier);
    await serve(d, notifier);
    if (d.broken) throw d.broken;
  } catch (err) {
    d.log.fatal({ err, event: 'failed' }, `daemon stopped: ${(err as Error).message}`);
    const name = err instanceof WorkerStartError ? err.workerErrorName : (err as Error).name;
    code = name === 'ManifestError' ? EXIT_BROKEN_ROOT : 1;
  }
  const clean = await teardown(d);
  return code !== 0 ? code : clean ? 0 : 1;
}

/**
 * The serial loop. The worker runs one session at a time; dispatch (hand-over.ts) keeps a few
 * more handed over and waiting in the worker. When nothing is in flight: ingest the finished
 * sessions, run the idle tasks, tell systemd; during a burst, ingest once the batch is due.
 */
async function serve(d: DaemonContext, notifier: Notifier): Promise<void> {
  while (!d.stop.signal.aborted) {
    dispatch(d);
    if (d.inFlight.size === 0) {
      await d.ingest.flush(d.runtime, d.paths, d.log);
      await runIdleTasks(d);
      notifier.send({ STATUS: d.statusLine() });
      d.idle.idle();
      d.runtime?.idle?.();
    } else if (d.ingest.due) {
      void d.ingest.flush(d.runtime, d.paths, d.log); // handed to the worker now, ingested there between two jobs
    }
    await d.nextWake();
  }
  await Promise.allSettled([...d.inFlight.values()].map((f) => f.settled));
  await d.ingest.flush(d.runtime, d.paths, d.log);
}

/** Between jobs: each idle task in turn, until work arrives or the daemon stops; a failure is a warning. */
async function runIdleTasks(d: DaemonContext): Promise<void> {
  for (const task of d.opts.idleTasks ?? []) {
    if (d.stop.signal.aborted || d.queue.size > 0) return;
    try {
      await task.run(d.stop.signal);
    } catch (err) {
      d.log.warn({ event: 'idle_task', task: task.name, err: (err as Error).message }, `${task.name} failed between jobs (the jobs are not affected; it is tried again later): ${(err as Error).message}`);
    }
  }
}

/**
 * SIGHUP (`systemctl reload`): read settings.json again and let the session worker go, so the
 * next job starts one on the manifests as they are now (a broken set falls back to the last
 * good one, worker.ts). A settings file that does not parse is logged and the old settings stay.
 */
function reload(d: DaemonContext): void {
  if (d.stop.signal.aborted) return;
  let changed: DaemonSettings | null = null;
  if (d.opts.reloadSettings) {
    try {
      changed = d.opts.reloadSettings();
    } catch (err) {
      const fix = (err as { fix?: string }).fix;
      d.log.error({ event: 'reload_failed', err: (err as Error).message }, `SIGHUP: the settings were not reloaded, the daemon keeps the ones it has: ${(err as Error).message}${fix ? `; fix: ${fix}` : ''}`);
    }
  }
  if (changed) {
    if (!process.env.PICO_LOG_LEVEL) d.log.level = changed.log_level;
    const s = changed;
    d.observe((o) => o.reloaded?.(s));
  }
  d.runtime?.reload?.();
  d.log.info({ event: 'reloaded', settings: changed !== null }, `SIGHUP: ${changed ? 'settings read again; ' : ''}manifests are read again by the next job's worker`);
}

/** Close everything in reverse order of opening; log all failures at once. Returns true when all closed cleanly. */
async function teardown(d: DaemonContext): Promise<boolean> {
  const errors: Error[] = [];
  for (const { name, close } of [...d.closers].reverse()) {
    try {
      await close();
    } catch (err) {
      errors.push(Object.assign(new Error(`${name}: ${(err as Error).message}`), { cause: err }));
    }
  }
  if (errors.length > 0) {
    d.log.error({ event: 'teardown', err: new AggregateError(errors, 'teardown failures') }, `teardown: ${errors.map((e) => e.message).join('; ')}`);
    return false;
  }
  d.log.info({ event: 'stopped', finished: d.status.current.counts.finished }, 'picoharness daemon stopped');
  return true;
}
