/**
 * The daemon loop: claim job files, run them one at a time, survive anything.
 *
 * Start-up order: lock the root → start the session worker (worker-host.ts;
 * it boots meanwhile) → queue every claimed but unfinished session
 * (recovery) → watch the inbox → wait for the worker, which has opened the
 * runtime (broken manifests stop the daemon here, with the file and the
 * fix) → READY=1. Then one loop takes the most urgent job from
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
 * This file owns ordering and bookkeeping; each transition lives in its own
 * module (intake → inspect/claim/reject, queue, recovery, status, notify).
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { takeIn } from './intake.js';
import { takeLock } from './lock.js';
import { openNotifier, type Notifier } from './notify.js';
import { daemonPaths, sessionFiles, type DaemonPaths } from './paths.js';
import { JobQueue, type QueuedJob } from './queue.js';
import { closeUnresumable, findUnfinished } from './recovery.js';
import { openRealRuntime, type SessionOutcome, type SessionRunner } from './seams.js';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { DEFAULT_GRACE_MS, FORCED_EXIT_CODE, installShutdown } from './signals.js';
import { Spool } from './spool.js';
import { IdleCollector } from './idle.js';
import { StatusPublisher } from './status.js';
import { WorkerDied, WorkerStartError } from './worker-host.js';
import { isStorageError, storageCode } from '../base/storage-error.js';
import { DiskPause } from './disk-pause.js';
import type { StepProgress } from './worker-protocol.js';
import { WaitingList, waitingOn } from '../approval/waiting.js';
import type { DaemonObserver, IdleTask } from './observer.js';
import type { DaemonSettings } from './settings.js';
import { cancelReason, cancelRequested, readCancelRequest, writeCancelledResult, type CancelRequest } from './cancel-file.js';

/** How often the daemon looks for decisions on sessions that wait for approval (a stat each). */
const APPROVAL_POLL_MS = 1_000;

/**
 * During a burst, finished sessions wait for memory ingest until the queue runs
 * dry, for at most this long or this many jobs; then they go in one transaction.
 */
const INGEST_MAX_LAG_MS = 5_000;
const INGEST_BATCH = 1_000;
/**
 * Time spent claiming inbox entries per turn of the event loop during a burst. The first
 * slice claims one entry, so the worker starts at once; after each slice the loop hands
 * jobs over and writes results, so the worker never runs dry behind a long stretch of
 * claims (a claim makes a folder and two files: 0.3–1.5 ms on the dev VM's ext4). Each
 * slice ends with the directory fsyncs of its claims, so slices should not be tiny either.
 */
const INTAKE_SLICE_MS = 8;

/**
 * Jobs handed to the worker beyond the running one, so it never waits for this process between
 * jobs (a slice of claims during a burst keeps this process busy for a few jobs' time).
 */
const HANDED_OVER = 8;
/**
 * How many times the worker may die running one session before the session is closed: it runs
 * once more with a close reason, which writes its remaining steps as not run and sends the
 * answer from the facts held (the ledger ends as every other session's does).
 */
const MAX_DEATHS = 3;

interface InFlight {
  item: QueuedJob;
  /** the worker started it (it waited behind the previous one until then) */
  begun: boolean;
  cancelling: boolean;
  t0: number;
  settled: Promise<void>;
}

/** Exit code for a root whose manifests do not load (as src/cli/args.ts EXIT.root). */
export const EXIT_BROKEN_ROOT = 3;

export interface DaemonOptions {
  root: string;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  graceMs?: number;
  maxJobBytes?: number;
  settleMs?: number;
  /** how long the session worker may sit idle before it exits (default 15 s) */
  workerIdleMs?: number;
  openRuntime?: (root: string, log: Logger) => Promise<SessionRunner>;
  /** called instead of process.exit when a second signal forces the stop (tests) */
  exit?: (code: number) => void;
  /** told of every transition (metrics, the API: observer.ts) */
  observers?: DaemonObserver[];
  /** run between jobs while no session runs (retention: observer.ts) */
  idleTasks?: IdleTask[];
  /** SIGHUP: read the settings again (throws SettingsError: the daemon keeps what it has); absent: SIGHUP only reloads manifests */
  reloadSettings?: () => DaemonSettings;
}

/** Run the daemon until a signal stops it; resolves to the process exit code. */
export async function runDaemon(opts: DaemonOptions): Promise<number> {
  const d = new Daemon(opts);
  return d.run();
}

class Daemon {
  private readonly paths: DaemonPaths;
  private readonly log: Logger;
  private readonly queue = new JobQueue();
  private readonly status: StatusPublisher;
  private readonly stop = new AbortController();
  private readonly closers: { name: string; close: () => unknown }[] = [];
  private runtime: SessionRunner | null = null;
  /** finished sessions not yet ingested into memory */
  private readonly pendingIngest: string[] = [];
  private pendingSince = 0;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private statusSentAt = 0;
  private labels = new Map<string, string | null>();
  private notifier: Notifier | null = null;
  private readonly idle = new IdleCollector();
  private workerBackoffMs = 0;
  /** no hand-over before this time (the worker could not start) */
  private pausedUntil = 0;
  /** jobs handed to the worker: the running one and at most HANDED_OVER waiting */
  private readonly inFlight = new Map<string, InFlight>();
  /** worker deaths per session while it ran */
  private readonly deaths = new Map<string, number>();
  /** sessions to close rather than run, with the reason (the worker died MAX_DEATHS times on them) */
  private readonly closing = new Map<string, string>();
  /** the disk refused a write: hand-overs wait (pausedUntil) until a session gets through again */
  private readonly diskPause = new DiskPause();
  /** wakes the loop when a pause (disk or worker start) is over */
  private resumeTimer: NodeJS.Timeout | null = null;
  /** sessions stopped at a destructive step, off the queue until a person decides (src/approval/) */
  private waiting: WaitingList | null = null;
  /** sessions whose cancel (sessions/<id>/cancel.json) is being carried out: stopping, then closing */
  private readonly cancels = new Map<string, CancelRequest>();
  /** the running session being stopped for a cancel: nothing is handed over until it is back, so its close runs next */
  private stoppingFor: string | null = null;

  constructor(private readonly opts: DaemonOptions) {
    this.paths = daemonPaths(opts.root);
    this.log = opts.log;
    this.status = new StatusPublisher(this.paths);
  }

  /** Tell every observer; one that throws is logged, and the others and the loop go on. */
  private observe(call: (o: DaemonObserver) => void): void {
    for (const o of this.opts.observers ?? []) {
      try {
        call(o);
      } catch (err) {
        this.log.warn({ event: 'observer', err }, `an observer of the daemon failed: ${(err as Error).message}`);
      }
    }
  }

  /**
   * SIGHUP (`systemctl reload`): read settings.json again and let the session worker go, so the
   * next job starts one on the manifests as they are now (a broken set falls back to the last
   * good one, worker.ts). A settings file that does not parse is logged and the old settings stay.
   */
  private reload(): void {
    if (this.stop.signal.aborted) return;
    let changed: DaemonSettings | null = null;
    if (this.opts.reloadSettings) {
      try {
        changed = this.opts.reloadSettings();
      } catch (err) {
        const fix = (err as { fix?: string }).fix;
        this.log.error({ event: 'reload_failed', err: (err as Error).message }, `SIGHUP: the settings were not reloaded, the daemon keeps the ones it has: ${(err as Error).message}${fix ? `; fix: ${fix}` : ''}`);
      }
    }
    if (changed) {
      if (!process.env.PICO_LOG_LEVEL) this.log.level = changed.log_level;
      const s = changed;
      this.observe((o) => o.reloaded?.(s));
    }
    this.runtime?.reload?.();
    this.log.info({ event: 'reloaded', settings: changed !== null }, `SIGHUP: ${changed ? 'settings read again; ' : ''}manifests are read again by the next job's worker`);
  }

  /** Start, serve until stopped, tear down; returns the exit code. */
  async run(): Promise<number> {
    const env = this.opts.env ?? process.env;
    const notifier = openNotifier(env, this.log);
    this.notifier = notifier;
    this.closers.push({ name: 'notify helper', close: () => notifier.close() });
    const uninstall = installShutdown({
      log: this.log,
      graceMs: this.opts.graceMs ?? DEFAULT_GRACE_MS,
      drain: () => {
        notifier.send({ STOPPING: '1', STATUS: 'stopping: finishing the current step' });
        this.status.update((s) => (s.state = 'stopping'));
        this.stop.abort();
        this.runtime?.stop();
        this.wake();
      },
      force: () => {
        this.runtime?.kill?.();
        void this.status.flush();
        (this.opts.exit ?? process.exit)(FORCED_EXIT_CODE);
      },
      reload: () => this.reload(),
    });
    this.closers.push({ name: 'signal handlers', close: uninstall });
    this.closers.push({ name: 'idle collector', close: () => this.idle.stop() });
    let code = 0;
    try {
      await this.start(notifier);
      await this.serve(notifier);
    } catch (err) {
      this.log.fatal({ err, event: 'failed' }, `daemon stopped: ${(err as Error).message}`);
      const name = err instanceof WorkerStartError ? err.workerErrorName : (err as Error).name;
      code = name === 'ManifestError' ? EXIT_BROKEN_ROOT : 1;
    }
    const clean = await this.teardown();
    return code !== 0 ? code : clean ? 0 : 1;
  }

  /** Lock, start the session worker, recover, start the spool, say READY. */
  private async start(notifier: Notifier): Promise<void> {
    const t0 = performance.now();
    const phases: Record<string, number> = {};
    let tp = t0;
    const phase = (name: string): void => {
      const now = performance.now();
      phases[name] = Math.round(now - tp);
      tp = now;
    };
    if (!existsSync(join(this.paths.root, 'manifests'))) {
      this.log.warn({ event: 'empty_root', root: this.paths.root }, `${this.paths.root} has no manifests/ folder: every job will be declined for lack of tools and providers; run \`pico init ${this.paths.root}\` to add the shipped defaults`);
    }
    await mkdir(this.paths.inbox, { recursive: true });
    await mkdir(this.paths.rejected, { recursive: true, mode: 0o700 }); // refused job files stay private (pico doctor checks)
    const release = await takeLock(this.paths);
    this.closers.push({ name: 'lock', close: release });
    this.closers.push({
      name: 'status file',
      close: async () => {
        this.status.update((s) => {
          s.state = 'stopped';
          s.running = null;
        });
        const err = await this.status.flush();
        if (err) throw err;
      },
    });
    await this.status.keepReserve();
    await this.status.flush();
    phase('lock_ms');
    const waiting = new WaitingList(this.paths.sessions, this.paths.root);
    this.waiting = waiting;
    const poll = setInterval(() => {
      this.pollApprovals();
      this.pollCancels();
    }, APPROVAL_POLL_MS).unref();
    this.closers.push({ name: 'approval poll', close: () => clearInterval(poll) });
    // the worker boots (a second node process loading the runtime) while this one recovers and starts watching
    const onWorker = (pid: number | null): void => {
      this.status.update((s) => (s.worker = { pid }));
      this.observe((o) => o.worker?.(pid));
    };
    const opening = (this.opts.openRuntime ?? ((root, log) => openRealRuntime(root, log, { pidFile: this.paths.worker, idleMs: this.opts.workerIdleMs, onWorker })))(this.paths.root, this.log);
    opening.catch(() => undefined); // awaited below; a failure before that must not be reported as unhandled
    await this.recover();
    phase('recovery_ms');
    const spool = new Spool({ inbox: this.paths.inbox, log: this.log, settleMs: this.opts.settleMs, onStable: (names) => this.intake(names) });
    await spool.start();
    phase('spool_ms');
    this.closers.push({ name: 'spool', close: () => spool.close() });
    this.stop.signal.addEventListener('abort', () => void spool.close());
    this.runtime = await opening;
    const runtime = this.runtime;
    this.closers.push({ name: 'session worker', close: () => runtime.close() });
    phase('worker_ms');
    this.status.update((s) => (s.state = this.stop.signal.aborted ? 'stopping' : 'running'));
    await this.status.flush();
    notifier.send({ READY: '1', STATUS: this.statusLine() });
    // a ping proves the event loop turns; a loop blocked by synchronous work stops pinging and systemd restarts us
    const dog = notifier.startWatchdog(() => true);
    this.log.info(
      { event: 'ready', root: this.paths.root, startup_ms: Math.round(performance.now() - t0), ...phases, since_process_start_ms: Math.round(performance.now()), queued: this.queue.size, watchdog_ping_ms: dog, notify: notifier.active },
      `picoharness daemon ready on ${this.paths.root}; drop job files into ${this.paths.inbox}`,
    );
  }

  /** Queue every claimed, unfinished session found on disk. */
  private async recover(): Promise<void> {
    const { unfinished, closed } = await findUnfinished(this.paths);
    for (const c of closed) {
      this.log.warn({ event: 'closed', job: c.id, session: c.id, problem: c.problem }, `session ${c.id} cannot be resumed and was closed as declined: ${c.problem}`);
    }
    for (const u of unfinished) {
      // a session stopped for a person stays stopped: it is not resumed until decided
      const w = u.started ? waitingOn(sessionFiles(this.paths, u.id).dir, this.waiting!.settings) : null;
      if (w) {
        this.wait(u.id, u.budgetClass, w.step, w.tool, w.since);
        continue;
      }
      this.queue.push(u.id, u.budgetClass, true);
      this.status.update((s) => s.counts.resumed++);
      this.observe((o) => o.queued?.({ session: u.id, budget_class: u.budgetClass, resumed: true }));
      this.log.info({ event: 'queued', job: u.id, session: u.id, budget_class: u.budgetClass, resumed: true, was_running: u.started }, `resuming claimed job ${u.id}`);
    }
    this.publishQueue();
  }

  /**
   * Handle stable inbox entries (intake.ts) a time slice at a time: each slice's entries are
   * claimed, made durable and queued, then the event loop turns (jobs are handed over,
   * results written), so a burst of hundreds of files feeds the worker as it goes instead of
   * making it wait for the whole burst.
   */
  private async intake(names: string[]): Promise<void> {
    const failed: Error[] = [];
    for (let i = 0; i < names.length; ) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const r = await takeIn(this.paths, names.slice(i), this.log, this.opts.maxJobBytes, i === 0 ? 0 : performance.now() + INTAKE_SLICE_MS);
      i += r.taken;
      if (r.rejected > 0) {
        this.status.update((s) => (s.counts.rejected += r.rejected));
        this.observe((o) => o.rejected?.(r.rejected));
      }
      for (const { id, job } of r.claimed) {
        this.labels.set(id, job.label ?? null);
        this.queue.push(id, job.budget_class);
        this.observe((o) => o.queued?.({ session: id, budget_class: job.budget_class, resumed: false }));
      }
      failed.push(...r.failed);
      this.publishQueue();
      this.wake();
    }
    if (failed.length > 0) {
      throw new AggregateError(failed, `could not handle ${failed.length} inbox entr${failed.length === 1 ? 'y' : 'ies'}: ${failed.map((e) => e.message).join('; ')}`);
    }
  }

  /**
   * The serial loop. The worker runs one session at a time; the loop keeps up to HANDED_OVER
   * more handed over and waiting in the worker, so the worker never idles between jobs of a
   * burst while this process is busy with intake. A job waiting in the worker is taken back
   * when a more urgent one arrives, so the order stays budget class, then arrival.
   */
  private async serve(notifier: Notifier): Promise<void> {
    while (!this.stop.signal.aborted) {
      this.dispatch();
      if (this.inFlight.size === 0) {
        await this.ingestPending();
        await this.runIdleTasks();
        notifier.send({ STATUS: this.statusLine() });
        this.idle.idle();
        this.runtime?.idle?.();
      } else if (this.pendingIngest.length >= INGEST_BATCH || (this.pendingIngest.length > 0 && performance.now() - this.pendingSince >= INGEST_MAX_LAG_MS)) {
        void this.ingestPending(); // handed to the worker now, ingested there between two jobs
      }
      await this.nextWake();
    }
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.settled));
    await this.ingestPending();
  }

  /** Between jobs: each idle task in turn, until work arrives or the daemon stops; a failure is a warning. */
  private async runIdleTasks(): Promise<void> {
    for (const task of this.opts.idleTasks ?? []) {
      if (this.stop.signal.aborted || this.queue.size > 0) return;
      try {
        await task.run(this.stop.signal);
      } catch (err) {
        this.log.warn({ event: 'idle_task', task: task.name, err: (err as Error).message }, `${task.name} failed between jobs (the jobs are not affected; it is tried again later): ${(err as Error).message}`);
      }
    }
  }

  /** Something changed (a job queued or settled, a stop): let the loop look again. */
  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Wait for wake(), or return at once if one came while the loop was busy. */
  private async nextWake(): Promise<void> {
    if (!this.woken) await new Promise<void>((resolve) => (this.wakeUp = resolve));
    this.wakeUp = null;
    this.woken = false;
  }

  /** Hand jobs to the worker until HANDED_OVER wait behind the running one; take back one that a more urgent job now outranks. */
  private dispatch(): void {
    if (this.stop.signal.aborted || this.stoppingFor !== null) return;
    const wait = this.pausedUntil - performance.now();
    if (wait > 0) {
      // one timer for the end of the pause; timers may fire a little early, so the loop always looks again
      this.resumeTimer ??= setTimeout(() => {
        this.resumeTimer = null;
        this.wake();
      }, Math.ceil(wait) + 1).unref();
      return;
    }
    const head = this.queue.peek();
    if (head) {
      for (const f of this.inFlight.values()) {
        if (!f.begun && !f.cancelling && JobQueue.outranks(head, f.item)) {
          f.cancelling = true;
          this.runtime!.cancel(f.item.id);
          this.log.debug({ event: 'taken_back', job: f.item.id, session: f.item.id, for: head.id }, `taking ${f.item.id} back from the worker: ${head.id} is more urgent`);
        }
      }
    }
    while (this.inFlight.size < 1 + HANDED_OVER) {
      const item = this.queue.shift();
      if (!item) break;
      this.handOver(item);
    }
    this.publishQueue();
  }

  /** Give one job to the worker and settle it when the worker answers. */
  private handOver(item: QueuedJob): void {
    const base = { job: item.id, session: item.id };
    const f: InFlight = { item, begun: false, cancelling: false, t0: 0, settled: Promise.resolve() };
    let stepAt = 0; // ms since the run began, in the worker's clock
    let stepInfo: { tool: string | null; capability: string | null } = { tool: null, capability: null };
    const onBegin = (): void => {
      f.begun = true;
      f.t0 = performance.now();
      this.idle.busy();
      this.status.update((s) => (s.running = { session: item.id, label: this.labels.get(item.id) ?? null, budget_class: item.budgetClass, step: null, started_at: new Date().toISOString() }));
      // systemctl status shows the running job; during a burst, once a second is enough
      if (performance.now() - this.statusSentAt >= 1000) {
        this.statusSentAt = performance.now();
        this.notifier?.send({ STATUS: this.statusLine() });
      }
      this.log.info({ event: item.resumed ? 'resumed' : 'started', ...base, budget_class: item.budgetClass, waited_ms: Date.now() - item.queuedAt });
      this.observe((o) => o.started?.({ session: item.id, budget_class: item.budgetClass }));
    };
    const onEvent = (e: StepProgress): void => {
      if (e.type === 'provider_called') {
        const call = { session: item.id, step: e.step, provider: e.provider ?? '', capability: e.capability ?? '', outcome: e.outcome ?? 'unknown', duration_ms: e.duration_ms ?? 0, model_call: e.model_call === true };
        return this.observe((o) => o.providerCalled?.(call));
      }
      if (e.type === 'model_loaded') {
        const load = { session: item.id, provider: e.provider ?? '', duration_ms: e.duration_ms ?? 0 };
        this.log.info({ event: 'model_loaded', ...base, step: e.step, provider: load.provider, duration_ms: load.duration_ms });
        return this.observe((o) => o.modelLoaded?.(load));
      }
      if (e.type === 'step_started') {
        stepAt = e.ms;
        this.status.update((s) => s.running && (s.running.step = e.step));
        // the start of a step is debug: status.json and `pico watch` show it live, and a line per
        // step end (below) is what an operator reads; on a 2-core box every log line costs the jobs
        this.log.debug({ event: 'step', ...base, step: e.step, tool: e.tool, capability: e.capability, elapsed_ms: Math.round(e.ms) });
        stepInfo = { tool: e.tool ?? null, capability: e.capability ?? null };
        this.observe((o) => o.step?.({ session: item.id, step: e.step, ...stepInfo, phase: 'started' }));
      } else {
        const phase = e.type === 'fact_added' ? 'committed' : 'failed';
        const duration_ms = Math.round((e.ms - stepAt) * 10) / 10;
        const provider = e.provider ?? null;
        if (phase === 'failed') this.log.warn({ event: 'step', ...base, step: e.step, ...stepInfo, provider, phase, duration_ms, reason: e.reason ?? null }, `step ${e.step} of ${item.id} failed${provider ? ` (${provider})` : ''}: ${e.reason ?? 'no reason given'}`);
        else this.log.info({ event: 'step', ...base, step: e.step, ...stepInfo, provider, phase, duration_ms });
        this.observe((o) => o.step?.({ session: item.id, step: e.step, ...stepInfo, provider, phase, duration_ms, ...(e.reason ? { reason: e.reason } : {}) }));
      }
    };
    this.inFlight.set(item.id, f);
    const close = this.closing.get(item.id);
    const cancelled = close !== undefined && this.cancels.has(item.id);
    f.settled = this.runtime!.run(item.id, { onBegin, onEvent, ...(close ? { close, ...(cancelled ? { cancelled } : {}) } : {}) })
      .then((r) => this.settle(f, r), (err: unknown) => this.settleFailure(f, err as Error))
      .catch((err: unknown) => this.log.error({ err, ...base }, `settling session ${item.id}: ${(err as Error).message}`))
      .finally(() => {
        this.inFlight.delete(item.id);
        if (!this.queue.has(item.id)) this.labels.delete(item.id); // done with, not put back
        if (f.begun) this.status.update((s) => s.running?.session === item.id && (s.running = null));
        this.wake();
      });
  }

  /** The worker answered: publish the result, or put the job back (cancelled, or stopped by a signal to the worker). */
  private settle(f: InFlight, r: SessionOutcome | null): void {
    const { item } = f;
    const ms = Math.round(performance.now() - f.t0);
    const cancel = this.cancels.get(item.id);
    if (this.stoppingFor === item.id) this.stoppingFor = null;
    if (cancel && !this.stop.signal.aborted && (r === null || r.outcome === 'interrupted' || r.outcome === 'waiting')) {
      void this.closeCancelled(item, cancel); // taken back, or stopped after its step: now it is closed
      return;
    }
    if (r === null || (r.outcome === 'interrupted' && !this.stop.signal.aborted)) {
      if (r === null && this.stop.signal.aborted) return; // stays claimed: resumed on the next start
      this.queue.requeue(item);
      if (r !== null) this.log.warn({ event: 'interrupted', job: item.id, session: item.id, duration_ms: ms }, `session ${item.id} was stopped after its current step by a signal to the worker; it is queued again`);
      return;
    }
    this.workerBackoffMs = 0;
    this.deaths.delete(item.id);
    this.closing.delete(item.id);
    this.cancels.delete(item.id);
    if (r.outcome === 'waiting') {
      const w = waitingOn(sessionFiles(this.paths, item.id).dir, this.waiting!.settings);
      if (w) this.wait(item.id, item.budgetClass, w.step, w.tool, w.since);
      else if (!this.stop.signal.aborted) this.queue.requeue(item); // decided while the worker was stopping it
      return;
    }
    if (r.outcome === 'interrupted') {
      this.log.info({ event: 'interrupted', job: item.id, session: item.id, duration_ms: ms }, `session ${item.id} stopped after its current step; it resumes on the next start`);
      return;
    }
    if (!this.publish(item, r, ms)) return;
    this.writingWorks(item.id);
    this.status.addOutcome({ session: item.id, outcome: r.outcome, duration_ms: ms, finished_at: new Date().toISOString() });
    this.observe((o) => o.finished?.({ session: item.id, outcome: r.outcome, duration_ms: ms, budget_class: item.budgetClass }));
    if (this.pendingIngest.length === 0) this.pendingSince = performance.now();
    this.pendingIngest.push(item.id);
  }

  /** Put a session on the waiting list: no worker, no CPU, until a person decides. */
  private wait(id: string, budgetClass: QueuedJob['budgetClass'], step: string, tool: string | null, since: string): void {
    this.waiting!.add({ session: id, budgetClass, step, tool, since });
    this.publishWaiting();
    this.log.info({ event: 'waiting_approval', job: id, session: id, step, tool, since }, `session ${id} waits for a person to approve step ${step}${tool ? ` (${tool})` : ''}: pico approve ${id} ${step}, or pico deny ${id} ${step}`);
  }

  /** Requeue the waiting sessions a person decided (or whose request expired). */
  private pollApprovals(): void {
    if (!this.waiting || this.waiting.size === 0 || this.stop.signal.aborted) return;
    const decided = this.waiting.decided();
    if (decided.length === 0) return;
    for (const w of decided) {
      this.queue.push(w.session, w.budgetClass, true);
      this.log.info({ event: 'queued', job: w.session, session: w.session, budget_class: w.budgetClass, resumed: true, approval: w.step }, `step ${w.step} of ${w.session} was decided; the session resumes`);
    }
    this.publishWaiting();
    this.publishQueue();
    this.wake();
  }

  /**
   * Carry out the cancel requests (sessions/<id>/cancel.json, src/daemon/cancel-file.ts) of the
   * jobs this daemon holds, a stat per job: a queued job that never began is closed by its
   * result file; one handed to the worker is taken back first; the running one stops after its
   * current step (as at shutdown) and is then run once more to close it; one waiting for
   * approval is closed the same way.
   */
  private pollCancels(): void {
    if (this.stop.signal.aborted || !this.runtime) return;
    const asked = (id: string): CancelRequest | null => {
      if (this.cancels.has(id)) return null;
      const dir = sessionFiles(this.paths, id).dir;
      if (!cancelRequested(dir)) return null;
      const req = readCancelRequest(dir, id);
      this.cancels.set(id, req);
      this.log.info({ event: 'cancel_requested', job: id, session: id, requested_at: req.requested_at }, `cancel of ${id} asked for (pico cancel)`);
      return req;
    };
    for (const item of this.queue.list()) {
      const req = asked(item.id);
      if (!req) continue;
      this.queue.remove(item.id);
      void this.closeCancelled(item, req);
    }
    for (const f of this.inFlight.values()) {
      if (!asked(f.item.id)) continue;
      if (f.begun) {
        this.stoppingFor = f.item.id;
        this.runtime.stop(); // finishes its step; waiting hand-overs come back and are requeued
      }
      else if (!f.cancelling) {
        f.cancelling = true;
        this.runtime.cancel(f.item.id);
      }
    }
    for (const w of this.waiting?.list() ?? []) {
      const req = asked(w.session);
      if (!req) continue;
      this.waiting!.remove(w.session);
      this.publishWaiting();
      void this.closeCancelled({ id: w.session, budgetClass: w.budgetClass, arrival: -1, queuedAt: Date.now(), resumed: true }, req);
    }
    this.publishQueue();
    this.wake();
  }

  /** Close a cancelled job: by its result file alone if it never began, else by a close run of the runtime (answer `cancelled`). */
  private async closeCancelled(item: QueuedJob, req: CancelRequest): Promise<void> {
    const files = sessionFiles(this.paths, item.id);
    if ((statSync(files.ledger, { throwIfNoEntry: false })?.size ?? 0) > 0) {
      this.closing.set(item.id, cancelReason(req));
      if (item.arrival >= 0) this.queue.requeue(item); // its place in the queue
      else this.queue.push(item.id, item.budgetClass, true);
      this.wake();
      return;
    }
    try {
      await writeCancelledResult(files.dir, item.id, 'daemon (pico cancel)', req);
    } catch (err) {
      // the request stays on disk: the next poll tries again
      this.cancels.delete(item.id);
      this.queue.requeue(item);
      this.log.error({ event: 'failed', job: item.id, session: item.id, err }, `cancelling ${item.id}: its result file could not be written (${(err as Error).message}); tried again in a second`);
      return;
    }
    this.cancels.delete(item.id);
    this.labels.delete(item.id);
    this.status.update((s) => s.counts.finished++);
    this.status.addOutcome({ session: item.id, outcome: 'cancelled', duration_ms: 0, finished_at: new Date().toISOString() });
    this.observe((o) => o.finished?.({ session: item.id, outcome: 'cancelled', duration_ms: 0, budget_class: item.budgetClass }));
    this.log.info({ event: 'finished', job: item.id, session: item.id, outcome: 'cancelled', duration_ms: 0, result: files.result }, `job ${item.id} was cancelled before it began`);
    this.publishQueue();
  }

  private publishWaiting(): void {
    const list = this.waiting!.list().map((w) => ({ session: w.session, step: w.step, tool: w.tool, since: w.since }));
    this.status.update((s) => (s.waiting = list));
  }

  /** The worker could not run the job: resume it, wait for a worker, or close it with a reason. */
  private async settleFailure(f: InFlight, err: Error): Promise<void> {
    const { item } = f;
    const base = { job: item.id, session: item.id };
    if (this.stoppingFor === item.id) this.stoppingFor = null;
    const cancel = this.cancels.get(item.id);
    if (cancel && err instanceof WorkerDied && !this.stop.signal.aborted && !this.closing.has(item.id)) return this.closeCancelled(item, cancel);
    if (err instanceof WorkerDied) {
      if (!err.begun) return void (this.stop.signal.aborted || this.queue.requeue(item));
      const deaths = (this.deaths.get(item.id) ?? 0) + 1;
      this.deaths.set(item.id, deaths);
      this.observe((o) => o.workerDied?.({ session: item.id, how: err.how }));
      if (deaths < MAX_DEATHS) {
        this.log.error({ event: 'worker_died', ...base, how: err.how, deaths }, `the session worker died while running ${item.id} (${err.how}); the session resumes from its ledger in a new worker`);
        if (!this.stop.signal.aborted) this.queue.requeue(item);
        return;
      }
      const fix = 'a provider crashes the session worker on this job (see the log lines before this one); fix or remove that provider, then submit the job again as a new file';
      if (!this.closing.has(item.id)) {
        // once more, to close it: no step runs, the ledger gets its not-run steps and its answer
        const problem = `the session worker died ${deaths} times while running this session (last: ${err.how})`;
        this.closing.set(item.id, `${problem}; ${fix}`);
        this.status.update((s) => s.counts.errors++);
        this.log.error({ event: 'closing', ...base, problem }, `session ${item.id} is closed without running its remaining steps: ${problem}`);
        if (!this.stop.signal.aborted) this.queue.requeue(item);
        return;
      }
      // the worker died even closing it: close it by its result file alone, so the queue moves on
      this.closing.delete(item.id);
      this.deaths.delete(item.id);
      const problem = `the session worker died ${deaths} times running this session, and again while closing it (last: ${err.how})`;
      await closeUnresumable(this.paths, item.id, problem, fix, 'daemon (worker crashes)');
      this.status.addOutcome({ session: item.id, outcome: 'declined', duration_ms: 0, finished_at: new Date().toISOString() });
      this.log.error({ event: 'closed', ...base, problem }, `session ${item.id} was closed as declined: ${problem}`);
      return;
    }
    if (err instanceof WorkerStartError) {
      // the root broke while the worker was away: the job waits, and the worker is tried again later
      this.queue.requeue(item);
      if (performance.now() < this.pausedUntil) return; // the jobs handed over with it failed on the same start
      this.workerBackoffMs = Math.min(60_000, this.workerBackoffMs * 2 || 1_000);
      this.pausedUntil = performance.now() + this.workerBackoffMs;
      this.log.error({ event: 'worker_failed', ...base, err: err.message, retry_in_ms: this.workerBackoffMs }, `the session worker cannot start: ${err.message}; the job waits and the worker is tried again in ${this.workerBackoffMs / 1000} s`);
      return;
    }
    if (isStorageError(err)) return this.pauseForStorage(item, err);
    // anything else the runtime throws is a property of this session (a job that cannot run, a
    // damaged blob): retrying it would fail the same way, so it is closed with the error as its reason
    this.status.update((s) => s.counts.errors++);
    const problem = `the runtime failed on this session: ${err.message}`;
    const fix = 'correct the job (or the root) and submit it again as a new file; if the job looks right, report the error';
    if (!this.closing.has(item.id)) {
      this.closing.set(item.id, problem);
      this.log.error({ event: 'closing', ...base, err, problem }, `session ${item.id} is closed without running its remaining steps: ${problem}`);
      if (!this.stop.signal.aborted) this.queue.requeue(item);
      return;
    }
    // it failed even closing: close it by its result file alone
    try {
      await closeUnresumable(this.paths, item.id, problem, fix, 'daemon (runtime error)');
    } catch (e) {
      if (isStorageError(e)) return this.pauseForStorage(item, e as Error);
      throw e;
    }
    this.closing.delete(item.id);
    this.status.addOutcome({ session: item.id, outcome: 'declined', duration_ms: Math.round(performance.now() - f.t0), finished_at: new Date().toISOString() });
    this.log.error({ event: 'closed', ...base, err, problem }, `session ${item.id} was closed as declined: ${problem}`);
  }

  /**
   * The disk refused a write (ENOSPC, EIO): the session is not at fault and stays claimed. It goes
   * back to the queue, jobs handed over but not begun are taken back (they would hit the same
   * disk), and no job is handed over until a backoff passes; then the next session is the probe.
   * The first session to get through again ends the pause (writingWorks).
   */
  private pauseForStorage(item: QueuedJob, err: Error): void {
    if (!this.stop.signal.aborted) this.queue.requeue(item);
    if (performance.now() < this.pausedUntil) return; // the jobs handed over with it failed on the same disk
    const p = this.diskPause.failed(err);
    this.pausedUntil = performance.now() + p.retry_in_ms;
    for (const f of this.inFlight.values()) {
      if (!f.begun && !f.cancelling) {
        f.cancelling = true;
        this.runtime!.cancel(f.item.id);
      }
    }
    this.status.update((s) => (s.paused = { ...p }));
    this.notifier?.send({ STATUS: `paused: ${p.code} writing sessions; ${p.fix}` });
    this.log.error({ event: 'paused', job: item.id, session: item.id, code: p.code, err: p.reason, retry_in_ms: p.retry_in_ms }, `the disk refused a write (${p.code}) while running ${item.id}; sessions wait and are tried again in ${p.retry_in_ms} ms: ${p.fix}`);
  }

  /** A session got through: if the daemon was paused on the disk, it is not any more. */
  private writingWorks(id: string): void {
    const was = this.diskPause.cleared();
    if (!was) return;
    this.pausedUntil = 0;
    this.status.update((s) => (s.paused = null));
    void this.status.keepReserve();
    this.log.info({ event: 'unpaused', session: id, code: was.code, paused_since: was.since }, `writing works again (${id} got through); the paused sessions run`);
  }

  /**
   * Write result.json (atomically, the text the worker made from the ledger), then say the job
   * finished. The worker is already on the next job meanwhile: the ledger holds the answer
   * durably, and a result lost to a crash is re-closed from it on the next start.
   */
  private publish(item: QueuedJob, r: SessionOutcome, ms: number): boolean {
    const id = item.id;
    try {
      if (r.resultText !== undefined && r.resultPath) writeFileAtomicSync(r.resultPath, r.resultText, false);
    } catch (err) {
      this.status.update((s) => s.counts.errors++);
      if (isStorageError(err)) {
        // the answer is in the ledger: the session runs again only to re-close it, once writing works
        this.pauseForStorage(item, Object.assign(new Error(`writing ${r.resultPath}: ${(err as Error).message}`), { code: storageCode(err) }));
        return false;
      }
      this.log.error({ event: 'failed', job: id, session: id, err }, `session ${id} answered but its result file could not be written (${(err as Error).message}); it is re-closed from its ledger on the next start — check that ${r.resultPath} is writable`);
      return false;
    }
    this.status.update((s) => s.counts.finished++);
    this.log.info({ event: 'finished', job: id, session: id, outcome: r.outcome, duration_ms: ms, ...(r.run_ms !== undefined ? { run_ms: r.run_ms } : {}), result: r.resultPath });
    return true;
  }

  /**
   * Feed finished sessions into memory, between jobs: when the queue runs dry, or during a
   * burst once the oldest waits INGEST_MAX_LAG_MS (one transaction for the batch). A memory failure is a
   * warning, never a stop: the ledgers are the truth and can be ingested again later.
   */
  private async ingestPending(): Promise<void> {
    const ids = this.pendingIngest.splice(0);
    if (!this.runtime?.ingestSessions || ids.length === 0) return;
    const t0 = performance.now();
    try {
      await this.runtime.ingestSessions(ids.map((id) => sessionFiles(this.paths, id).dir));
      this.log.info({ event: 'ingested', sessions: ids.length, duration_ms: Math.round((performance.now() - t0) * 10) / 10 });
    } catch (err) {
      this.log.warn({ event: 'memory', sessions: ids, err }, `memory ingest of ${ids.length} session(s) failed (${(err as Error).message}); they are safe on disk and can be ingested again later (pico memory rebuild)`);
    }
  }

  /** Publish the queue counts. */
  private publishQueue(): void {
    const byClass = this.queue.byClass();
    for (const f of this.inFlight.values()) if (!f.begun) byClass[f.item.budgetClass]++; // handed over, still waiting
    this.status.update((s) => (s.queue = byClass));
    this.observe((o) => o.queue?.(byClass));
  }

  /** A one-line STATUS= text for systemctl status. */
  private statusLine(): string {
    const s = this.status.current;
    const running = s.running ? `running ${s.running.session}${s.running.step ? ` step ${s.running.step}` : ''}` : 'idle';
    const queued = Object.values(s.queue).reduce((a, b) => a + b, 0); // handed to the worker but not begun counts as queued
    return `${running}; ${queued} queued; ${s.counts.finished} finished, ${s.counts.rejected} rejected`;
  }

  /** Close everything in reverse order of opening; log all failures at once. Returns true when all closed cleanly. */
  private async teardown(): Promise<boolean> {
    const errors: Error[] = [];
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
      } catch (err) {
        errors.push(Object.assign(new Error(`${name}: ${(err as Error).message}`), { cause: err }));
      }
    }
    if (errors.length > 0) {
      this.log.error({ event: 'teardown', err: new AggregateError(errors, 'teardown failures') }, `teardown: ${errors.map((e) => e.message).join('; ')}`);
      return false;
    }
    this.log.info({ event: 'stopped', finished: this.status.current.counts.finished }, 'picoharness daemon stopped');
    return true;
  }
}
