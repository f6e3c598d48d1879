/**
 * Start-up: from a root on disk to a daemon that says READY.
 *
 * The order: lock the root (lock.ts) → write the first status.json → open the
 * waiting list and start the requests watcher (requests.ts) → start the
 * session worker (worker-host.ts; it boots meanwhile, a second node process
 * loading the runtime) → queue every claimed but unfinished session
 * (recovery.ts), a session stopped for a person going to the waiting list
 * instead → watch the inbox (spool.ts → claiming.ts) → wait for the worker,
 * which has opened the runtime (broken manifests stop the daemon here, with
 * the file and the fix, unless the daemon refused them earlier: then the
 * set in force stays) → READY=1 and the watchdog → watch the manifest
 * folders (manifest-drop.ts; its first check finds what changed before). Each thing opened pushes
 * its closer, so teardown (loop.ts) undoes exactly what was done. The time of
 * each phase goes into the `ready` log line. Manifests that a worker of this
 * build loaded and compiled, unchanged since (root/manifest-watch.ts
 * knownToLoad), are not waited for: READY comes once the spool runs, and the
 * worker, starting meanwhile, takes the jobs handed over when it is ready.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { claimInSlices, rejectBadName } from './claiming.js';
import type { DaemonContext } from './context.js';
import { takeLock } from './lock.js';
import type { Notifier } from './notify.js';
import { sessionFiles } from './paths.js';
import { findUnfinished } from './recovery.js';
import { openWaiting, waitForDecision, watchRequests } from './requests.js';
import { openRealRuntime } from './seams.js';
import { Spool } from './spool.js';
import { ManifestDrop } from './manifest-drop.js';
import { knownToLoad } from '../root/manifest-watch.js';
import { fromBundle, startupDone } from '../base/bundle-hooks.js';

/** Lock, start the session worker, recover, start the spool, say READY. */
export async function start(d: DaemonContext, notifier: Notifier): Promise<void> {
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  let tp = t0;
  const phase = (name: string): void => {
    const now = performance.now();
    phases[name] = Math.round(now - tp);
    tp = now;
  };
  if (!existsSync(join(d.paths.root, 'manifests'))) {
    d.log.warn({ event: 'empty_root', root: d.paths.root }, `${d.paths.root} has no manifests/ folder: every job will be declined for lack of tools and providers; run \`pico init ${d.paths.root}\` to add the shipped defaults`);
  }
  await mkdir(d.paths.inbox, { recursive: true });
  await mkdir(d.paths.rejected, { recursive: true, mode: 0o700 }); // refused job files stay private (pico doctor checks)
  const release = await takeLock(d.paths);
  d.closers.push({ name: 'lock', close: release });
  d.closers.push({
    name: 'status file',
    close: async () => {
      d.status.update((s) => {
        s.state = 'stopped';
        s.running = null;
      });
      const err = await d.status.flush();
      if (err) throw err;
    },
  });
  await d.status.keepReserve();
  await d.status.flush();
  phase('lock_ms');
  await watchRequests(d);
  // the worker boots (a second node process loading the runtime) while this one recovers and starts watching
  const onWorker = (pid: number | null): void => {
    d.status.update((s) => (s.worker = { pid }));
    d.observe((o) => o.worker?.(pid));
    // a worker gone (idle) is the daemon's quiet time: collect what its messages and the runs left
    if (pid === null && d.inFlight.size === 0) {
      d.idle.busy();
      d.idle.idle();
    }
  };
  // a worker's warm-up (after its ready) can still find a schema that does not compile: the daemon stops, exit 3
  const onBroken = (err: Error): void => {
    if (d.broken) return;
    d.broken = err;
    d.notifier?.send({ STOPPING: '1', STATUS: 'stopping: the manifests do not load' });
    d.stop.abort();
    d.wake();
  };
  // manifests a worker of this build loaded and compiled, unchanged since: READY need not wait for the
  // worker to check them again (it starts meanwhile; a start that fails after all stops the daemon, exit 3)
  const knownGood = d.opts.openRuntime === undefined && knownToLoad(d.paths.root, d.paths.checked);
  const opening = (d.opts.openRuntime ?? ((root, log) => openRealRuntime(root, log, { pidFile: d.paths.worker, idleMs: d.opts.workerIdleMs, onWorker, onBroken, inBackground: knownGood })))(d.paths.root, d.log);
  opening.catch(() => undefined); // awaited below; a failure before that must not be reported as unhandled
  await recover(d);
  phase('recovery_ms');
  const spool = new Spool({
    inbox: d.paths.inbox, log: d.log, settleMs: d.opts.settleMs, watch: d.opts.watch, pollMs: d.opts.pollMs,
    onStable: (names) => claimInSlices(d, names), onBadName: (raw) => rejectBadName(d, raw),
  });
  await spool.start();
  phase('spool_ms');
  d.closers.push({ name: 'spool', close: () => spool.close() });
  d.stop.signal.addEventListener('abort', () => void spool.close());
  d.runtime = await opening;
  const runtime = d.runtime;
  d.closers.push({ name: 'session worker', close: () => runtime.close() });
  phase('worker_ms');
  d.status.update((s) => (s.state = d.stop.signal.aborted ? 'stopping' : 'running'));
  await d.status.flush();
  notifier.send({ READY: '1', STATUS: d.statusLine() });
  const cpu = process.cpuUsage();
  // a ping proves the event loop turns; a loop blocked by synchronous work stops pinging and systemd restarts us
  const dog = notifier.startWatchdog(() => true);
  d.log.info(
    { event: 'ready', root: d.paths.root, manifests: knownGood ? 'known to load' : 'checked by the worker', startup_ms: Math.round(performance.now() - t0), ...phases, since_process_start_ms: Math.round(performance.now()), code: fromBundle() ? 'bundle' : 'modules', cpu_ms: Math.round((cpu.user + cpu.system) / 1000), queued: d.queue.size, watchdog_ping_ms: dog, notify: notifier.active },
    `picoharness daemon ready on ${d.paths.root}; drop job files into ${d.paths.inbox}`,
  );
  startupDone(); // the build's warm-up start keeps the code V8 compiled up to here, and stops (bundle-run.ts)
  // manifests dropped into the root are checked at once and used by the next job (manifest-drop.ts).
  // The watch starts once READY is said, beside the first jobs, which do not wait for it; what
  // changed before it started is found by the check it runs first, as what changed while the
  // daemon was down is. A watch that cannot start is a warning: SIGHUP still reads them again.
  const drop = new ManifestDrop({ root: d.paths.root, log: d.log, watch: d.opts.watch, pollMs: d.opts.pollMs, onChanged: () => d.runtime?.reload?.() });
  const watching = drop.start().catch((err: unknown) => {
    d.log.warn({ event: 'manifest_watch', err: (err as Error).message }, `the manifests are not watched (${(err as Error).message}); SIGHUP (systemctl reload) reads them again`);
  });
  d.closers.push({ name: 'manifest watch', close: async () => (await watching, await drop.close()) });
}

/** Queue every claimed, unfinished session found on disk. */
async function recover(d: DaemonContext): Promise<void> {
  const { unfinished, closed } = await findUnfinished(d.paths);
  for (const c of closed) {
    d.log.warn({ event: 'closed', job: c.id, session: c.id, problem: c.problem }, `session ${c.id} cannot be resumed and was closed as declined: ${c.problem}`);
  }
  // a session that ran may wait for a person: only then are ledgers and decision files read here
  const waitingOn = unfinished.some((u) => u.started) ? (await openWaiting(d)).waitingOn : null;
  for (const u of unfinished) {
    // a session stopped for a person stays stopped: it is not resumed until decided
    const w = u.started && waitingOn ? waitingOn(sessionFiles(d.paths, u.id).dir, d.waiting!.settings) : null;
    if (w) {
      waitForDecision(d, u.id, u.budgetClass, w.step, w.tool, w.since);
      continue;
    }
    d.queue.push(u.id, u.budgetClass, true);
    d.status.update((s) => s.counts.resumed++);
    d.observe((o) => o.queued?.({ session: u.id, budget_class: u.budgetClass, resumed: true }));
    d.log.info({ event: 'queued', job: u.id, session: u.id, budget_class: u.budgetClass, resumed: true, was_running: u.started }, `resuming claimed job ${u.id}`);
  }
  d.publishQueue();
}
