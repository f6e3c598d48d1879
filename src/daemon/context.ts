/**
 * The daemon's bookkeeping: what one running daemon holds between its
 * transitions, and the few calls every transition makes.
 *
 * The loop (loop.ts) keeps the order of things; each transition is a small
 * module of functions over this one object: start-up (startup.ts), claiming
 * (claiming.ts), the hand-over to the session worker (hand-over.ts), the
 * worker's answer (settle.ts, settle-failure.ts), the requests a person
 * leaves on disk (requests.ts: approval decisions and cancels), the disk
 * pause (disk-pause.ts) and ingest batching (ingest-batch.ts). Keeping the
 * state in one place lets those modules stay apart without passing a dozen
 * maps to each. This module holds state and owns no transition: it tells the
 * observers, wakes the loop, and publishes the queue and the STATUS= line.
 */
import type { Logger } from 'pino';
import type { WaitingList } from '../approval/waiting.js';
import type { CancelRequest } from './cancel-file.js';
import { DiskPause } from './disk-pause.js';
import type { WatchMode } from './fs-kind.js';
import { IdleCollector } from './idle.js';
import { IngestBatch } from './ingest-batch.js';
import type { Notifier } from './notify.js';
import type { DaemonObserver, IdleTask } from './observer.js';
import { daemonPaths, type DaemonPaths } from './paths.js';
import { JobQueue, type QueuedJob } from './queue.js';
import type { SessionRunner } from './seams.js';
import type { DaemonSettings } from './settings.js';
import { StatusPublisher } from './status.js';

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
  /** how the inbox and the manifest folders are watched (settings.json `watch`; default: by their filesystem, fs-kind.ts) */
  watch?: WatchMode;
  /** how often a polled folder is looked at, ms (settings.json `watch_poll_ms`) */
  pollMs?: number;
  /** SIGHUP: read the settings again (throws SettingsError: the daemon keeps what it has); absent: SIGHUP only reloads manifests */
  reloadSettings?: () => DaemonSettings;
}

/** A job handed to the worker: the running one, or one waiting behind it in the worker. */
export interface InFlight {
  item: QueuedJob;
  /** the worker started it (it waited behind the previous one until then) */
  begun: boolean;
  cancelling: boolean;
  /** the worker answered (done or failed): the job no longer waits in it, its result is being settled */
  answered: boolean;
  t0: number;
  settled: Promise<void>;
}

export class DaemonContext {
  readonly paths: DaemonPaths;
  readonly log: Logger;
  readonly queue = new JobQueue();
  readonly status: StatusPublisher;
  readonly stop = new AbortController();
  /** closed in reverse order at teardown (loop.ts) */
  readonly closers: { name: string; close: () => unknown }[] = [];
  runtime: SessionRunner | null = null;
  /** the root turned out broken after the worker said ready (startup.ts): the daemon stops with exit 3 */
  broken: Error | null = null;
  /** finished sessions not yet ingested into memory */
  readonly ingest = new IngestBatch();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  statusSentAt = 0;
  readonly labels = new Map<string, string | null>();
  notifier: Notifier | null = null;
  readonly idle = new IdleCollector(500, (rss) => this.log.info({ event: 'idle_collected', rss_mb: Math.round(rss / 104857.6) / 10 }, `idle: memory collected (${(rss / 1048576).toFixed(1)} MB resident)`));
  workerBackoffMs = 0;
  /** no hand-over before this time (the worker could not start) */
  pausedUntil = 0;
  /** jobs handed to the worker: the running one and at most HANDED_OVER (hand-over.ts) waiting */
  readonly inFlight = new Map<string, InFlight>();
  /** worker deaths per session while it ran */
  readonly deaths = new Map<string, number>();
  /** sessions to close rather than run, with the reason (the worker died MAX_DEATHS times on them) */
  readonly closing = new Map<string, string>();
  /** the disk refused a write: hand-overs wait (pausedUntil) until a session gets through again */
  readonly diskPause = new DiskPause();
  /** wakes the loop when a pause (disk or worker start) is over */
  resumeTimer: NodeJS.Timeout | null = null;
  /** sessions stopped at a destructive step, off the queue until a person decides (src/approval/) */
  waiting: WaitingList | null = null;
  /** sessions whose cancel (sessions/<id>/cancel.json) is being carried out: stopping, then closing */
  readonly cancels = new Map<string, CancelRequest>();
  /** the running session being stopped for a cancel: nothing is handed over until it is back, so its close runs next */
  stoppingFor: string | null = null;

  constructor(readonly opts: DaemonOptions) {
    this.paths = daemonPaths(opts.root);
    this.log = opts.log;
    this.status = new StatusPublisher(this.paths);
  }

  /** Tell every observer; one that throws is logged, and the others and the loop go on. */
  observe(call: (o: DaemonObserver) => void): void {
    for (const o of this.opts.observers ?? []) {
      try {
        call(o);
      } catch (err) {
        this.log.warn({ event: 'observer', err }, `an observer of the daemon failed: ${(err as Error).message}`);
      }
    }
  }

  /** Something changed (a job queued or settled, a stop): let the loop look again. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Wait for wake(), or return at once if one came while the loop was busy. */
  async nextWake(): Promise<void> {
    if (!this.woken) await new Promise<void>((resolve) => (this.wakeUp = resolve));
    this.wakeUp = null;
    this.woken = false;
  }

  /** Publish the queue counts. */
  publishQueue(): void {
    const byClass = this.queue.byClass();
    for (const f of this.inFlight.values()) if (!f.begun) byClass[f.item.budgetClass]++; // handed over, still waiting
    this.status.update((s) => (s.queue = byClass));
    this.observe((o) => o.queue?.(byClass));
  }

  /** A one-line STATUS= text for systemctl status. */
  statusLine(): string {
    const s = this.status.current;
    const running = s.running ? `running ${s.running.session}${s.running.step ? ` step ${s.running.step}` : ''}` : 'idle';
    const queued = Object.values(s.queue).reduce((a, b) => a + b, 0); // handed to the worker but not begun counts as queued
    return `${running}; ${queued} queued; ${s.counts.finished} finished, ${s.counts.rejected} rejected`;
  }
}
