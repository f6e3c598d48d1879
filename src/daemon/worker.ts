/**
 * The session worker: the one process that runs providers (design P5).
 *
 * Forked by the daemon (worker-host.ts) with an IPC channel and the root as
 * its argument. It reads the manifests and says `ready`, then warms up —
 * compiles every schema (one that does not compile is `fatal` now, as a
 * broken manifest is before `ready`, and the daemon stops on it), loads the
 * code a session runs on, opens memory — and only then handles the daemon's
 * messages, strictly in order: runs sessions one at a time and
 * ingests finished ones into memory between them. It holds everything heavy
 * — the runtime, the adapters, a loaded model, SQLite — so the daemon that
 * watches the inbox stays small; an idle daemon lets its worker go and gives
 * that memory back. A native crash in a provider kills this process, not the
 * daemon, which resumes the session in a new worker. While a provider call
 * runs, the worker keeps `sessions/<id>/progress.json` (tokens so far, for
 * `pico watch`; src/progress/side-file.ts) beside the ledger, never in it.
 *
 * Stopping: `stop`, or a first SIGTERM/SIGINT (systemd signals the whole
 * control group), lets the running session finish its step and cancels the
 * waiting runs; after a signal the worker takes no more runs (it says
 * `signalled`) and waits for `exit`. A second signal exits at once. If the
 * daemon dies (the IPC channel closes) the worker exits at once: an
 * unfinished step is what SIGKILL leaves, which recovery handles, and a
 * worker must never outlive its daemon to race a new one on the same ledger.
 */
import type { Logger } from 'pino';
import { terminalWatch } from './terminal.js';
import { createLogger } from '../base/log.js';
import { loadSettings } from './settings.js';
import { openRealMemory, type MemoryHook } from './memory-seam.js';
import { daemonPaths, sessionFiles } from './paths.js';
import { ProgressWriter } from '../progress/side-file.js';
import { bounded, REASON_CHARS } from '../progress/steps.js';
import { KEEP_LAST_GOOD, PREFORKED, WORKER_EXIT_BROKEN_ROOT, type FromWorker, type ToWorker } from './worker-protocol.js';
import type { Runtime } from '../root/runtime.js';
import { resultText } from '../runtime/result.js';
import { storageCode } from '../base/storage-error.js';
import { onModelLoad } from '../adapters/model-loads.js';
import { startupDone } from '../base/bundle-hooks.js';

/**
 * Outgoing messages wait in a box and leave together: each message is a write to the pipe
 * that wakes the daemon on the other core, which on the 2-core VM cost more than the jobs'
 * own work. `begin` and the end of a run are flushed at once (the daemon counts a crash
 * against a session only if it knew the session had begun); progress rides along with the
 * next flush, or goes on its own at the next turn of the event loop when a step waits for
 * real I/O (a model, a subprocess), so a long step still shows live.
 */
const outbox: FromWorker[] = [];
let flushQueued = false;

function flush(): void {
  flushQueued = false;
  if (outbox.length === 0) return;
  const batch = outbox.splice(0);
  process.send?.(batch.length === 1 ? batch[0] : { t: 'batch', m: batch });
}

function send(m: FromWorker, now = false): void {
  outbox.push(m);
  if (now) flush();
  else if (!flushQueued) {
    flushQueued = true;
    setImmediate(flush);
  }
}

/** Events after which no step is in flight (the side file goes). */
const STEP_ENDS = new Set(['fact_added', 'step_failed', 'capability_gap', 'approval_denied', 'approval_requested']);

class Worker {
  private runtime: Runtime | null = null;
  private memory: MemoryHook | null = null;
  private running: AbortController | null = null;
  private readonly waiting: ToWorker[] = [];
  private busy = false;
  /** the warm-up after `ready` (false: the root did not open): every message waits for it */
  private readonly warming: Promise<boolean>;
  private warmed: (ok: boolean) => void = () => undefined;
  /** set by a signal of its own: runs still waiting or arriving are cancelled (the daemon replaces this worker) */
  private refusing = false;
  private signals = 0;
  /** the manifests' checked stamp as the open found them (manifest-watch.ts), written once they compiled */
  private stamp: string | null = null;

  constructor(private readonly root: string, private readonly log: Logger, private readonly keepLastGood: boolean) {
    this.warming = new Promise((ok) => (this.warmed = ok));
  }

  async open(): Promise<void> {
    const t0 = performance.now();
    try {
      const [{ openRuntime }, { checkedStamp }] = await Promise.all([import('../root/runtime.js'), import('../root/manifest-watch.js')]);
      // taken before the files are read: a change while they are makes the record a stale one, never a wrong one
      this.stamp = checkedStamp(this.root);
      // a worker of a daemon that was already serving keeps the last good manifests when the files broke since
      const paths = daemonPaths(this.root);
      const lastGood = { file: paths.lastGood, fallBack: this.keepLastGood };
      // the same files as the last worker's are not checked one by one again (root/checked-set.ts)
      this.runtime = await openRuntime(this.root, { log: this.log, lastGood, deferWarm: true, watchManifests: true, checkedSet: paths.checkedSet });
    } catch (err) {
      this.warmed(false);
      return this.fatal(err as Error);
    }
    const cpu = process.cpuUsage();
    send({ t: 'ready', startup_ms: Math.round(performance.now() - t0), cpu_ms: Math.round((cpu.user + cpu.system) / 1000) }, true);
    this.warmed(await this.warm());
  }

  /** After `ready`: compile the schemas and load the session code (runtime.warm), open memory; false when the root turned out broken. */
  private async warm(): Promise<boolean> {
    const t0 = performance.now();
    try {
      await this.runtime!.warm();
    } catch (err) {
      this.fatal(err as Error);
      return false;
    }
    // the files loaded and compiled: the next daemon on them need not wait for a worker to say so (startup.ts)
    if (this.stamp !== null && this.runtime!.onTheFiles) {
      const { writeCheckedStamp } = await import('../root/manifest-watch.js');
      writeCheckedStamp(daemonPaths(this.root).checked, this.stamp);
    }
    this.memory = await openRealMemory(this.root, this.log);
    this.log.debug({ event: 'worker_warm', memory: this.memory !== null, manifests_from_record: this.runtime!.checkedFromRecord, warm_ms: Math.round(performance.now() - t0) }, 'session worker warmed up');
    void this.reportWorld();
    startupDone(); // run from its bundle, the code V8 compiled up to here is kept for the next worker
    return true;
  }

  /** The root does not open: say why (a ManifestError names the files and fixes) and leave. */
  private fatal(e: Error): void {
    send({ t: 'fatal', name: e.name, message: e.message }, true);
    process.exitCode = e.name === 'ManifestError' ? WORKER_EXIT_BROKEN_ROOT : 1;
    process.disconnect?.();
  }

  /** Probe the execution world once ready and leave what it found for `pico status`. */
  private async reportWorld(): Promise<void> {
    try {
      const { worldCapabilities } = await import('../world/sandbox.js');
      const { writeWorldReport } = await import('../world/report.js');
      const caps = await worldCapabilities();
      writeWorldReport(daemonPaths(this.root).daemonDir, caps);
      this.log.info({ event: 'world', isolation: caps.level, wrapper: caps.wrapper, not_enforced: caps.notEnforced }, `execution world: isolation ${caps.level}`);
    } catch (err) {
      this.log.warn({ err }, `could not report the execution world: ${(err as Error).message}`);
    }
  }

  onMessage(m: ToWorker): void {
    if (m.t === 'open') return; // a preforked worker's: main() took it
    if (m.t === 'stop') return this.stop(this.signals > 0);
    if (m.t === 'cancel') {
      const i = this.waiting.findIndex((w) => w.t === 'run' && w.id === m.id);
      if (i >= 0) {
        this.waiting.splice(i, 1);
        send({ t: 'cancelled', id: m.id });
      }
      return;
    }
    this.waiting.push(m);
    void this.pump();
  }

  /** A first signal finishes the running step and refuses further runs; a second exits now. */
  onSignal(signal: NodeJS.Signals): void {
    if (++this.signals > 1) {
      this.log.warn({ event: 'forced', signal }, `worker: second ${signal}, exiting now`);
      process.exit(1);
    }
    send({ t: 'signalled', signal }, true);
    this.stop(true);
  }

  private stop(forGood: boolean): void {
    this.running?.abort();
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i]!;
      if (w.t !== 'run') continue;
      this.waiting.splice(i, 1);
      send({ t: 'cancelled', id: w.id });
    }
    if (forGood) this.refusing = true;
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      if (!(await this.warming)) return;
      for (let m = this.waiting.shift(); m; m = this.waiting.shift()) {
        if (m.t === 'run') await this.run(m.id, m.close, m.cancelled);
        else if (m.t === 'ingest') await this.ingest(m.seq, m.dirs);
        else if (m.t === 'exit') return await this.close();
      }
    } finally {
      this.busy = false;
    }
  }

  private async run(id: string, close?: string, cancelled?: boolean): Promise<void> {
    if (this.refusing) return send({ t: 'cancelled', id });
    const stop = new AbortController();
    this.running = stop;
    send({ t: 'begin', id }, true);
    const t0 = performance.now();
    const ms = (): number => Math.round((performance.now() - t0) * 10) / 10;
    // how far a model call has got, for `pico watch` (src/progress/side-file.ts); never in the ledger
    const live = new ProgressWriter(sessionFiles(daemonPaths(this.root), id).dir, id);
    let step = '';
    // a model load within this run goes to the daemon as progress (its metrics); the ledger does not hold it
    const unlisten = onModelLoad((l) => send({ t: 'progress', id, e: { type: 'model_loaded', step, provider: l.provider, duration_ms: Math.round(l.ms * 10) / 10, ms: ms() } }));
    try {
      const r = await this.runtime!.runSession(id, {
        signal: stop.signal,
        deferResult: true,
        approvals: true,
        ...(close ? { closeReason: close, ...(cancelled ? { cancelled: true } : {}) } : {}),
        onProgress: (p) => live.report(p),
        onEvent: (e) => {
          if (e.type === 'step_started') live.setStep(e.step);
          else if (STEP_ENDS.has(e.type)) live.setStep(null);
          if (e.type === 'step_started') {
            step = e.step;
            send({ t: 'progress', id, e: { type: e.type, step: e.step, tool: e.tool, capability: e.capability, ms: ms() } });
          } else if (e.type === 'provider_called') send({ t: 'progress', id, e: { type: e.type, step: e.step, provider: e.provider, capability: e.capability, outcome: e.outcome, duration_ms: e.duration_ms, model_call: e.model_call, ms: ms() } });
          else if (e.type === 'fact_added') send({ t: 'progress', id, e: { type: e.type, step: e.step, provider: e.provider, ms: ms() } });
          else if (e.type === 'step_failed') send({ t: 'progress', id, e: { type: e.type, step: e.step, provider: e.provider, reason: boundedReason(e.error, id), ms: ms() } });
        },
      });
      send({ t: 'done', id, result: { sessionId: r.sessionId, outcome: r.outcome, answer: r.answer, resultPath: r.resultPath, ...(r.result ? { resultText: resultText(r.result) } : {}), ...(r.waitingStep ? { waitingStep: r.waitingStep } : {}), run_ms: ms() } }, true);
    } catch (err) {
      const e = err as Error;
      this.log.error({ err: e, job: id, session: id }, `worker: session ${id} failed in the runtime: ${e.message}`);
      const code = storageCode(e);
      send({ t: 'failed', id, name: e.name, message: e.message, ...(code ? { code } : {}) }, true);
    } finally {
      live.clear();
      unlisten();
      this.running = null;
    }
  }

  private async ingest(seq: number, dirs: string[]): Promise<void> {
    try {
      if (this.memory) await this.memory.ingestSessions(dirs);
      send({ t: 'ingested', seq, error: null });
    } catch (err) {
      send({ t: 'ingested', seq, error: (err as Error).message });
    }
  }

  private async close(): Promise<void> {
    try {
      await this.memory?.close?.();
      await this.runtime?.close();
    } catch (err) {
      this.log.warn({ err }, `worker: closing: ${(err as Error).message}`);
      process.exitCode = 1;
    }
    flush();
    process.disconnect?.();
  }
}

async function main(): Promise<void> {
  const root = process.argv[2];
  // a terminal's hangup reaches the whole process group: the daemon decides what it means (signals.ts);
  // this process only moves its stdio off the dead terminal, so its lines and its exit do not fail on it.
  // At exit too: the daemon's going (disconnect) can be handled before the hangup's SIGHUP is
  const terminal = terminalWatch();
  process.on('SIGHUP', () => terminal.hungUp() && terminal.detach());
  process.on('exit', () => terminal.hungUp() && terminal.detach());
  if (root && process.send && process.argv[3] === PREFORKED) {
    // forked before the daemon held the root (worker-fork.ts preforkWorker): load the runtime's code
    // now, open nothing until the daemon says `open`; a daemon that goes instead takes this process along
    process.on('disconnect', () => process.exit(process.exitCode ?? 0));
    import('../root/runtime.js').catch(() => undefined); // Worker.open imports it again and reports what fails
    const m = await new Promise<ToWorker>((ok) => process.once('message', ok));
    if (m.t !== 'open') return void process.disconnect();
  }
  const log = createLogger({ to: 'stdout', level: workerLevel(root) }).child({ component: 'worker' });
  if (!root || !process.send) {
    log.fatal('the session worker is started by `pico daemon`, not by hand');
    process.exitCode = 2;
    return;
  }
  const w = new Worker(root, log, process.argv[3] === KEEP_LAST_GOOD);
  process.on('message', (m: ToWorker) => w.onMessage(m));
  // the daemon is gone: leave at once (see the header), never finish a step unsupervised
  process.on('disconnect', () => process.exit(process.exitCode ?? 0));
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.on(s, () => w.onSignal(s));
  if (!process.connected) process.exit(0); // the daemon died while this process was loading
  await w.open();
}

/** The level the daemon logs at (settings.json, read again by each new worker, so a SIGHUP reaches it); info when unreadable (the daemon reports why). */
function workerLevel(root: string | undefined): string {
  if (!root) return 'info';
  try {
    return loadSettings(root).settings.log_level;
  } catch {
    return 'info';
  }
}

void main();

/** A failure's reason as the daemon logs it: one line without control characters, cut as `pico run` cuts it (progress/steps.ts). */
function boundedReason(error: string, id: string): string {
  return bounded(error.replace(/[\u0000-\u001f\u007f]+/g, ' '), REASON_CHARS, `pico show ${id} --full`);
}
