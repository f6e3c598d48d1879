/**
 * The daemon's side of the session worker (worker.ts): start it, hand it
 * sessions, relay their progress, let it go when idle, replace it when it
 * dies or gets a signal of its own.
 *
 * The worker starts with the daemon (so a root whose manifests do not load
 * stops the daemon before READY, exit 3). A worker that dies while starting
 * (killed, crashed: no answer of its own) is not the root's fault: start()
 * tries again with a doubling backoff and gives up only after
 * START_ATTEMPTS deaths in a row, saying each death, so systemd's restart
 * applies to what is really broken. It exits after `idleMs` without
 * work, handing its memory back; the next job starts a new one. The daemon
 * may hand over the next session while one runs (the worker handles them in
 * order), and take it back with `cancel` until it begins. If the worker dies,
 * every request it owed fails with `WorkerDied`, saying whether the session
 * had begun; the daemon decides what to resume.
 *
 * The worker's pid and identity are kept in `sessions/.daemon/worker`; a new
 * daemon kills a worker that survived its predecessor before starting its
 * own, so two processes never append to one ledger (a zombie — exited,
 * not reaped — is not a survivor). A worker that must be killed (forced
 * shutdown, a hung exit) is killed with its whole process tree: the running
 * step's tool and everything it started (proc-tree.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { processIdentity, stillRunning } from './proc.js';
import { killTree, sweepWorkDirs } from './proc-tree.js';
import { KEEP_LAST_GOOD, type FromWorker, type RunOutcome, type StepProgress, type ToWorker } from './worker-protocol.js';
import { forkWorker, takePreforked } from './worker-fork.js';

export { workerEnv, workerExecArgv } from './worker-fork.js';

export const DEFAULT_WORKER_IDLE_MS = 15_000;
/** How long a worker may take to close after `exit` before it is killed. */
const EXIT_TIMEOUT_MS = 10_000;

/** Starts of the first worker tried before the daemon gives up, and the first wait between two (doubled each time). */
export const START_ATTEMPTS = 5;
const START_BACKOFF_MS = 250;

export class WorkerStartError extends Error {
  override name = 'WorkerStartError';
  constructor(message: string, readonly workerErrorName: string) {
    super(message);
  }
}

/** The worker exited while a request was outstanding; `begun` says whether the session had started. */
export class WorkerDied extends Error {
  override name = 'WorkerDied';
  constructor(readonly how: string, readonly begun: boolean) {
    super(`the session worker died (${how})`);
  }
}

interface Live {
  child: ChildProcess;
  ready: boolean;
  exiting: boolean;
  /** it got a signal of its own: it takes no more runs and is replaced by the next one */
  retiring: boolean;
  /** resolves when the process has exited, with how it ended */
  exited: Promise<string>;
}

interface Pending {
  live: Live;
  begun: boolean;
  onBegin?: () => void;
  onEvent?: (e: StepProgress) => void;
  resolve: (r: RunOutcome | null) => void;
  reject: (err: Error) => void;
}

export interface RunHandlers {
  /** the worker began the session (it may have waited behind the one before) */
  onBegin?: () => void;
  onEvent?: (e: StepProgress) => void;
  /** close the session with this reason instead of running its remaining steps */
  close?: string;
  /** the close is an operator's cancel (the answer goes out as `cancelled`) */
  cancelled?: boolean;
}

export interface WorkerHostOptions {
  root: string;
  /** the file that records the live worker (sessions/.daemon/worker) */
  pidFile: string;
  log: Logger;
  idleMs?: number;
  env?: NodeJS.ProcessEnv;
}

export class WorkerHost {
  private live: Live | null = null;
  private starting: Promise<Live> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private ingestSeq = 0;
  private readonly runs = new Map<string, Pending>();
  private readonly ingests = new Map<number, { live: Live; resolve: () => void; reject: (err: Error) => void }>();
  private readyWaiter: { live: Live; resolve: (m: FromWorker) => void } | null = null;
  /** a worker of this daemon opened the root: later ones keep the last good manifests (KEEP_LAST_GOOD) */
  private served = false;
  /** called whenever the worker starts or stops (for the status file) */
  onChange: (pid: number | null) => void = () => undefined;
  /** called when a worker that said ready finds the root broken after all (the daemon stops, exit 3) */
  onBroken: (err: WorkerStartError) => void = () => undefined;

  constructor(private readonly opts: WorkerHostOptions) {}

  /** Start a worker now (the daemon does this before READY); throws WorkerStartError when the root does not open. */
  async start(): Promise<void> {
    const deaths: string[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ensure();
        return;
      } catch (err) {
        // a worker that said why it cannot start (the manifests, the root) says the same next time
        if (!(err instanceof WorkerStartError) || err.workerErrorName !== 'WorkerDied') throw err;
        deaths.push(err.message);
        if (attempt >= START_ATTEMPTS) {
          throw new WorkerStartError(`the session worker died before it was ready ${attempt} times in a row (${deaths.join('; ')}); look for what kills it (the OOM killer, a memory limit: journalctl -k)`, 'WorkerDied');
        }
        const wait = START_BACKOFF_MS * 2 ** (attempt - 1);
        this.opts.log.warn({ event: 'worker_start_failed', attempt, of: START_ATTEMPTS, retry_in_ms: wait, err: err.message }, `${err.message}; starting another in ${wait} ms (attempt ${attempt + 1} of ${START_ATTEMPTS})`);
        await sleep(wait);
      }
    }
  }

  /**
   * Hand a session to the worker (starting one if none runs). Resolves with its outcome, or
   * null if it was cancelled before it began; rejects with WorkerDied, WorkerStartError, or
   * the runtime's error. The daemon may hand over the next session before this one ends.
   */
  async run(id: string, h: RunHandlers = {}): Promise<RunOutcome | null> {
    this.cancelIdle();
    const live = await this.ensure();
    if (this.live !== live) throw new WorkerDied('exited before the request', false);
    return new Promise<RunOutcome | null>((resolve, reject) => {
      this.runs.set(id, { live, begun: false, ...h, resolve, reject });
      this.post(live, { t: 'run', id, ...(h.close ? { close: h.close, ...(h.cancelled ? { cancelled: true } : {}) } : {}) });
    });
  }

  /** Drop a session handed over but not begun; its run() then resolves null (or runs, if it began first). */
  cancel(id: string): void {
    const p = this.runs.get(id);
    if (p && !p.begun) this.post(p.live, { t: 'cancel', id });
  }

  /** The daemon is stopping: finish the running step, cancel the waiting runs. */
  stop(): void {
    if (this.live) this.post(this.live, { t: 'stop' });
  }

  /** Ingest finished sessions into memory, in the worker, between jobs. */
  async ingestSessions(dirs: readonly string[]): Promise<void> {
    this.cancelIdle();
    const live = this.live && !this.live.exiting ? this.live : await this.ensure();
    const seq = ++this.ingestSeq;
    await new Promise<void>((resolve, reject) => {
      this.ingests.set(seq, { live, resolve, reject });
      this.post(live, { t: 'ingest', seq, dirs: [...dirs] });
    });
  }

  /** The queue ran dry: let the worker go after idleMs unless work comes first. */
  idle(): void {
    if (!this.live || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.runs.size > 0 || this.ingests.size > 0) return;
      void this.release('idle').catch((err: unknown) => this.opts.log.warn({ err }, `stopping the idle worker: ${(err as Error).message}`));
    }, this.opts.idleMs ?? DEFAULT_WORKER_IDLE_MS);
    this.idleTimer.unref();
  }

  /** SIGHUP: an idle worker goes now; a busy one finishes what it was given and is replaced for the next job. */
  reload(): void {
    const live = this.live;
    if (!live || live.exiting) return;
    if (this.runs.size === 0 && this.ingests.size === 0) {
      this.cancelIdle();
      void this.release('reload').catch((err: unknown) => this.opts.log.warn({ err }, `stopping the worker for a reload: ${(err as Error).message}`));
    } else live.retiring = true;
  }

  /** Stop the worker cleanly (it closes the runtime and memory), killing it if it hangs. */
  async close(): Promise<void> {
    this.cancelIdle();
    if (this.starting) await this.starting.catch(() => undefined);
    await this.release('daemon stopping');
  }

  /** Kill the worker now, with the tools it runs and everything they started (a forced stop). */
  kill(): void {
    const pid = this.live?.child.pid;
    if (pid === undefined) return;
    const killed = killTree(pid);
    this.opts.log.warn({ event: 'worker_killed', worker: pid, processes: killed.length }, `killed session worker ${pid} and ${killed.length - 1} process(es) of its running step`);
  }

  private cancelIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Ask the worker to exit after what it was given (messages are handled in order); kill it if it hangs. */
  private async release(why: string): Promise<void> {
    const live = this.live;
    if (!live) return;
    if (live.exiting) {
      await live.exited; // already asked (a reload, then a stop): asking twice would write into a closing channel
      return;
    }
    live.exiting = true;
    this.post(live, { t: 'exit' });
    const timer = setTimeout(() => {
      if (live.child.pid !== undefined) killTree(live.child.pid);
    }, EXIT_TIMEOUT_MS);
    const how = await live.exited;
    clearTimeout(timer);
    this.opts.log.info({ event: 'worker_stopped', worker: live.child.pid, why, how }, `session worker ${live.child.pid} stopped (${why})`);
  }

  private onMessage(live: Live, m: FromWorker): void {
    switch (m.t) {
      case 'batch':
        for (const one of m.m) this.onMessage(live, one);
        return;
      case 'ready':
      case 'fatal':
        if (this.readyWaiter?.live === live) this.readyWaiter.resolve(m);
        // after ready: its warm-up found a schema that does not compile (worker.ts); it exits, and
        // the runs handed to it, none begun, fail with WorkerDied when it has
        else if (m.t === 'fatal') this.onBroken(new WorkerStartError(m.message, m.name));
        return;
      case 'signalled':
        live.retiring = true;
        this.opts.log.warn({ event: 'worker_signalled', worker: live.child.pid, signal: m.signal }, `session worker ${live.child.pid} got ${m.signal}: it finishes its step and is replaced by a new worker for the next job`);
        return;
      case 'begin': {
        const p = this.runs.get(m.id);
        if (p) {
          p.begun = true;
          p.onBegin?.();
        }
        return;
      }
      case 'progress':
        this.runs.get(m.id)?.onEvent?.(m.e);
        return;
      case 'done':
      case 'failed':
      case 'cancelled': {
        const p = this.runs.get(m.id);
        if (!p) return;
        this.runs.delete(m.id);
        if (m.t === 'done') p.resolve(m.result);
        else if (m.t === 'cancelled') p.resolve(null);
        else p.reject(Object.assign(new Error(m.message), { name: m.name, ...(m.code ? { code: m.code } : {}) }));
        return;
      }
      case 'ingested': {
        const w = this.ingests.get(m.seq);
        if (!w) return;
        this.ingests.delete(m.seq);
        if (m.error) w.reject(new Error(m.error));
        else w.resolve();
        return;
      }
    }
  }

  /** The worker exited: fail whatever it still owed, and stop the tools it left running. */
  private onExit(live: Live, how: string): void {
    if (this.live === live) this.live = null;
    this.sweep(`worker ${live.child.pid} exited (${how})`);
    rmSync(this.opts.pidFile, { force: true });
    this.onChange(null);
    const owed = [...this.runs].filter(([, p]) => p.live === live);
    if (!live.exiting && live.ready) this.opts.log.error({ event: 'worker_died', worker: live.child.pid, how, sessions: owed.map(([id]) => id) }, `the session worker ${live.child.pid} died (${how})`);
    for (const [id, p] of owed) {
      this.runs.delete(id);
      p.reject(new WorkerDied(how, p.begun));
    }
    for (const [seq, w] of [...this.ingests]) {
      if (w.live !== live) continue;
      this.ingests.delete(seq);
      w.reject(new WorkerDied(how, false));
    }
    if (this.readyWaiter?.live === live) this.readyWaiter.resolve({ t: 'fatal', name: 'WorkerDied', message: `the session worker exited while starting (${how})` });
  }

  private post(live: Live, m: ToWorker): void {
    if (live.child.connected) live.child.send(m);
  }

  /** The live worker, starting one if there is none (or the one there is retiring). */
  private ensure(): Promise<Live> {
    const live = this.live;
    if (live?.ready && !live.exiting && !live.retiring) return Promise.resolve(live);
    this.starting ??= (async () => {
      if (this.live?.retiring && !this.live.exiting) await this.release('replaced: it got a signal, or the manifests are reloaded');
      return this.spawn();
    })().finally(() => (this.starting = null));
    return this.starting;
  }

  private async spawn(): Promise<Live> {
    if (this.live) await this.live.exited; // one that is on its way out
    await this.killSurvivor();
    // the first worker may have been forked already (preforkWorker): it opens the root only now
    const pre = this.served ? null : takePreforked(this.opts.root);
    const { child, exited, t0 } = pre ?? forkWorker(this.opts.root, this.served ? [KEEP_LAST_GOOD] : [], this.opts.env ?? process.env);
    const live: Live = { child, ready: false, exiting: false, retiring: false, exited };
    this.live = live;
    child.on('message', (m: FromWorker) => this.onMessage(live, m));
    // a message sent as the worker exits fails with EPIPE on this event; the exit handler settles what it owed
    child.on('error', (err) => this.opts.log.warn({ event: 'worker_channel', worker: child.pid, err: err.message }, `the channel to session worker ${child.pid} failed (${err.message}); it is treated as exiting`));
    void exited.then((how) => this.onExit(live, how));
    try {
      if (child.pid) writeFileSync(this.opts.pidFile, `${child.pid}\n${processIdentity(child.pid) ?? ''}\n`);
    } catch (err) {
      // a full disk must not strand the worker just forked: the record only helps a later daemon
      this.opts.log.warn({ event: 'worker_record', err: (err as Error).message }, `could not record the session worker in ${this.opts.pidFile}; a daemon killed now would leave it for the next one to find by its IPC channel closing`);
    }
    this.onChange(child.pid ?? null);
    const first = await new Promise<FromWorker>((resolve) => {
      this.readyWaiter = { live, resolve };
      if (pre) this.post(live, { t: 'open' });
    });
    this.readyWaiter = null;
    if (first.t === 'fatal') {
      await exited;
      throw new WorkerStartError(first.message, first.name);
    }
    live.ready = true;
    this.served = true;
    const m = first as Extract<FromWorker, { t: 'ready' }>;
    this.opts.log.info({ event: 'worker_ready', worker: child.pid, preforked: pre !== null, startup_ms: m.startup_ms, cpu_ms: m.cpu_ms, spawn_to_ready_ms: Math.round(performance.now() - t0) }, `session worker ${child.pid} ready`);
    return live;
  }
  /** Kill tool runs of this root that no worker owns any more (called only while none runs). */
  private sweep(why: string): void {
    const killed = sweepWorkDirs(this.opts.root);
    if (killed.length > 0) this.opts.log.warn({ event: 'orphans_killed', processes: killed, why }, `killed ${killed.length} process(es) of a step no worker owns any more (${why})`);
  }

  /** Kill a worker left behind by a previous daemon on this root (it must not touch a ledger we resume), and any tool it left. */
  private async killSurvivor(): Promise<void> {
    await this.killSurvivorWorker();
    this.sweep('before starting a worker');
  }

  private async killSurvivorWorker(): Promise<void> {
    let text: string;
    try {
      text = readFileSync(this.opts.pidFile, 'utf8');
    } catch {
      return;
    }
    const [pidLine = '', identity = ''] = text.split('\n');
    const pid = Number(pidLine);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !stillRunning(pid, identity || undefined)) return;
    this.opts.log.warn({ event: 'worker_survivor', worker: pid }, `a session worker of a previous daemon (pid ${pid}) still runs; killing it and its step's processes before starting a new one`);
    killTree(pid);
    for (let i = 0; i < 200 && stillRunning(pid, identity || undefined); i++) await sleep(10);
  }
}
