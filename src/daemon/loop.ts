/**
 * The daemon loop: claim job files, run them one at a time, survive anything.
 *
 * Start-up order: lock the root → open the runtime (broken manifests stop
 * the daemon here, with the file and the fix) → queue every claimed but
 * unfinished session (recovery) → watch the inbox → READY=1. Then one loop
 * takes the most urgent job from the queue, runs its session through the
 * runtime, ingests it into memory, and repeats (design P5: one job at a
 * time). Intake (spool → inspect → claim or reject) runs concurrently but
 * only moves files and queues ids; it never runs a provider.
 *
 * Shutdown (signals.ts): the first SIGTERM/SIGINT stops intake and aborts the
 * running session's signal, which finishes its current step; teardown then
 * runs every closer in reverse order of opening and reports all failures.
 * This file owns ordering and bookkeeping; each transition lives in its own
 * module (intake → inspect/claim/reject, queue, recovery, status, notify).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { LedgerEvent } from '../ledger/events.js';
import { takeIn } from './intake.js';
import { takeLock } from './lock.js';
import { openNotifier, type Notifier } from './notify.js';
import { daemonPaths, sessionFiles, type DaemonPaths } from './paths.js';
import { JobQueue, type QueuedJob } from './queue.js';
import { findUnfinished } from './recovery.js';
import { openRealMemory, openRealRuntime, type MemoryHook, type SessionRunner } from './seams.js';
import { DEFAULT_GRACE_MS, FORCED_EXIT_CODE, installShutdown } from './signals.js';
import { Spool } from './spool.js';
import { IdleCollector } from './idle.js';
import { StatusPublisher } from './status.js';

/**
 * During a burst, finished sessions wait for memory ingest until the queue runs
 * dry, for at most this long or this many jobs; then they go in one transaction.
 */
const INGEST_MAX_LAG_MS = 5_000;
const INGEST_BATCH = 1_000;

/** Exit code for a root whose manifests do not load (as src/cli/args.ts EXIT.root). */
export const EXIT_BROKEN_ROOT = 3;

export interface DaemonOptions {
  root: string;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  graceMs?: number;
  maxJobBytes?: number;
  settleMs?: number;
  openRuntime?: (root: string, log: Logger) => Promise<SessionRunner>;
  openMemory?: (root: string, log: Logger) => Promise<MemoryHook | null>;
  /** called instead of process.exit when a second signal forces the stop (tests) */
  exit?: (code: number) => void;
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
  private memory: MemoryHook | null = null;
  /** finished sessions not yet ingested into memory */
  private readonly pendingIngest: string[] = [];
  private pendingSince = 0;
  private wakeUp: (() => void) | null = null;
  private labels = new Map<string, string | null>();
  private notifier: Notifier | null = null;
  private readonly idle = new IdleCollector();

  constructor(private readonly opts: DaemonOptions) {
    this.paths = daemonPaths(opts.root);
    this.log = opts.log;
    this.status = new StatusPublisher(this.paths);
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
        this.wakeUp?.();
      },
      force: () => {
        void this.status.flush();
        (this.opts.exit ?? process.exit)(FORCED_EXIT_CODE);
      },
    });
    this.closers.push({ name: 'signal handlers', close: uninstall });
    this.closers.push({ name: 'idle collector', close: () => this.idle.stop() });
    let code = 0;
    try {
      await this.start(notifier);
      await this.serve(notifier);
    } catch (err) {
      this.log.fatal({ err, event: 'failed' }, `daemon stopped: ${(err as Error).message}`);
      code = (err as Error).name === 'ManifestError' ? EXIT_BROKEN_ROOT : 1;
    }
    const clean = await this.teardown();
    return code !== 0 ? code : clean ? 0 : 1;
  }

  /** Lock, open the runtime and memory, recover, start the spool, say READY. */
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
    await mkdir(this.paths.rejected, { recursive: true });
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
    await this.status.flush();
    phase('lock_ms');
    this.runtime = await (this.opts.openRuntime ?? openRealRuntime)(this.paths.root, this.log);
    const runtime = this.runtime;
    this.closers.push({ name: 'runtime', close: () => runtime.close() });
    phase('runtime_ms');
    this.memory = await (this.opts.openMemory ?? openRealMemory)(this.paths.root, this.log);
    const memory = this.memory;
    if (memory?.close) this.closers.push({ name: 'memory', close: () => memory.close?.() });
    phase('memory_ms');
    await this.recover();
    phase('recovery_ms');
    const spool = new Spool({ inbox: this.paths.inbox, log: this.log, settleMs: this.opts.settleMs, onStable: (names) => this.intake(names) });
    await spool.start();
    phase('spool_ms');
    this.closers.push({ name: 'spool', close: () => spool.close() });
    this.stop.signal.addEventListener('abort', () => void spool.close());
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
      this.queue.push(u.id, u.budgetClass, true);
      this.status.update((s) => s.counts.resumed++);
      this.log.info({ event: 'queued', job: u.id, session: u.id, budget_class: u.budgetClass, resumed: true, was_running: u.started }, `resuming claimed job ${u.id}`);
    }
    this.publishQueue();
  }

  /** Handle stable inbox entries (intake.ts), then queue the claims and wake the loop. */
  private async intake(names: string[]): Promise<void> {
    const r = await takeIn(this.paths, names, this.log, this.opts.maxJobBytes);
    if (r.rejected > 0) this.status.update((s) => (s.counts.rejected += r.rejected));
    for (const { id, job } of r.claimed) {
      this.labels.set(id, job.label ?? null);
      this.queue.push(id, job.budget_class);
      this.log.info({ event: 'queued', job: id, session: id, budget_class: job.budget_class, queue: this.queue.size });
    }
    this.publishQueue();
    this.wakeUp?.();
    if (r.failed.length > 0) {
      throw new AggregateError(r.failed, `could not handle ${r.failed.length} inbox entr${r.failed.length === 1 ? 'y' : 'ies'}: ${r.failed.map((e) => e.message).join('; ')}`);
    }
  }

  /** The serial loop: one session at a time until the first stop signal. */
  private async serve(notifier: Notifier): Promise<void> {
    while (!this.stop.signal.aborted) {
      const item = this.queue.shift();
      if (!item) {
        await this.ingestPending();
        notifier.send({ STATUS: this.statusLine() });
        this.idle.idle();
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
        this.wakeUp = null;
        continue;
      }
      this.publishQueue();
      this.idle.busy();
      await this.runOne(item);
      if (this.pendingIngest.length === 0) this.pendingSince = performance.now();
      this.pendingIngest.push(item.id);
      if (this.pendingIngest.length >= INGEST_BATCH || performance.now() - this.pendingSince >= INGEST_MAX_LAG_MS) await this.ingestPending();
    }
    await this.ingestPending();
  }

  /** Run (or resume) one session and record how it ended. */
  private async runOne(item: QueuedJob): Promise<void> {
    const runtime = this.runtime!;
    const t0 = performance.now();
    let stepAt = t0;
    const base = { job: item.id, session: item.id };
    this.status.update((s) => (s.running = { session: item.id, label: this.labels.get(item.id) ?? null, budget_class: item.budgetClass, step: null, started_at: new Date().toISOString() }));
    this.notifier?.send({ STATUS: this.statusLine() });
    this.log.info({ event: item.resumed ? 'resumed' : 'started', ...base, budget_class: item.budgetClass, waited_ms: Date.now() - item.queuedAt });
    const onEvent = (e: LedgerEvent): void => {
      if (e.type === 'step_started') {
        stepAt = performance.now();
        this.status.update((s) => s.running && (s.running.step = e.step));
        this.log.info({ event: 'step', ...base, step: e.step, tool: e.tool, capability: e.capability, elapsed_ms: Math.round(stepAt - t0) });
      } else if (e.type === 'fact_added' || e.type === 'step_failed') {
        this.log.info({ event: 'step', ...base, step: e.step, phase: e.type === 'fact_added' ? 'committed' : 'failed', duration_ms: Math.round(performance.now() - stepAt) });
      }
    };
    let outcome = 'error';
    // FROM HERE UNTIL THE FINALLY, A THROW MUST NOT STRAND THE JOB: it stays claimed
    // (job.json without result.json) and recovery resumes it on the next start.
    try {
      const r = await runtime.runSession(item.id, { signal: this.stop.signal, onEvent });
      outcome = r.outcome;
      const ms = Math.round(performance.now() - t0);
      if (r.outcome === 'interrupted') {
        this.log.info({ event: 'interrupted', ...base, duration_ms: ms }, `session ${item.id} stopped after its current step; it resumes on the next start`);
      } else {
        this.status.update((s) => s.counts.finished++);
        this.log.info({ event: 'finished', ...base, outcome: r.outcome, duration_ms: ms, result: r.resultPath });
      }
    } catch (err) {
      this.status.update((s) => s.counts.errors++);
      this.log.error({ event: 'failed', ...base, err, duration_ms: Math.round(performance.now() - t0) }, `session ${item.id} failed in the runtime: ${(err as Error).message}; it stays claimed and is retried on the next start`);
    } finally {
      this.labels.delete(item.id);
      this.status.update((s) => (s.running = null));
      this.status.addOutcome({ session: item.id, outcome, duration_ms: Math.round(performance.now() - t0), finished_at: new Date().toISOString() });
    }
  }

  /**
   * Feed finished sessions into memory, between jobs: when the queue runs dry, or during a
   * burst once the oldest waits INGEST_MAX_LAG_MS (one transaction for the batch). A memory failure is a
   * warning, never a stop: the ledgers are the truth and can be ingested again later.
   */
  private async ingestPending(): Promise<void> {
    const ids = this.pendingIngest.splice(0);
    if (!this.memory || ids.length === 0) return;
    const t0 = performance.now();
    try {
      await this.memory.ingestSessions(ids.map((id) => sessionFiles(this.paths, id).dir));
      this.log.info({ event: 'ingested', sessions: ids.length, duration_ms: Math.round((performance.now() - t0) * 10) / 10 });
    } catch (err) {
      this.log.warn({ event: 'memory', sessions: ids, err }, `memory ingest of ${ids.length} session(s) failed; they are safe on disk and can be ingested again later (pico memory rebuild)`);
    }
  }

  /** Publish the queue counts. */
  private publishQueue(): void {
    const byClass = this.queue.byClass();
    this.status.update((s) => (s.queue = byClass));
  }

  /** A one-line STATUS= text for systemctl status. */
  private statusLine(): string {
    const s = this.status.current;
    const running = s.running ? `running ${s.running.session}${s.running.step ? ` step ${s.running.step}` : ''}` : 'idle';
    return `${running}; ${this.queue.size} queued; ${s.counts.finished} finished, ${s.counts.rejected} rejected`;
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
