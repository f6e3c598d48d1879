/**
 * The messages between the daemon and its session worker (one child process).
 *
 * The daemon (supervisor) watches the inbox, claims, queues and publishes
 * status; the worker owns the runtime and memory and runs exactly one
 * session at a time, on the daemon's word. Messages travel over the IPC
 * channel of `child_process.fork` as JSON. Only what the daemon needs crosses
 * it: the ledger stays the truth and is written by the worker alone.
 */

/**
 * Daemon → worker. Messages are handled in order, one at a time; the daemon
 * sends the next `run` before the current one ends (at most one waits), so
 * the worker never idles between jobs of a burst.
 */
export type ToWorker =
  /** run (or resume) a session; with `close`, close it with that reason instead of running its remaining steps */
  | { t: 'run'; id: string; close?: string; cancelled?: boolean }
  /** drop a `run` that has not begun (a more urgent job arrived); answered by `cancelled` */
  | { t: 'cancel'; id: string }
  /** finish the current step of the running session and report it interrupted; cancel the waiting runs */
  | { t: 'stop' }
  | { t: 'ingest'; seq: number; dirs: string[] }
  /** close the runtime and memory and exit 0 */
  | { t: 'exit' }
  /** a preforked worker (PREFORKED) may open the root now: the daemon holds its lock */
  | { t: 'open' };

/** The part of a ledger event the daemon logs and shows as progress. */
export interface StepProgress {
  /** provider_called and model_loaded feed metrics only (the API's /metrics): they do not start or end a step */
  type: 'step_started' | 'fact_added' | 'step_failed' | 'provider_called' | 'model_loaded';
  step: string;
  tool?: string | null;
  capability?: string;
  /** the provider that produced the fact, or whose failure ended the step (null: none could be selected) */
  provider?: string | null;
  /** step_failed: why, one line, bounded (the ledger's error has all of it) */
  reason?: string;
  /** provider_called: the call's outcome, how long it took and whether it was a model call; model_loaded: how long the load took */
  outcome?: string;
  duration_ms?: number;
  model_call?: boolean;
  /** ms since the run began, measured in the worker (progress can reach the daemon in a batch) */
  ms: number;
}

export interface RunOutcome {
  sessionId: string;
  /** waiting: a destructive step waits for a person (no result yet; the daemon requeues it once decided) */
  outcome: 'answered' | 'partial' | 'declined' | 'cancelled' | 'interrupted' | 'waiting';
  answer: string | null;
  resultPath: string | null;
  /** the step that waits for approval */
  waitingStep?: string;
  /** the text of result.json, which the daemon writes to resultPath (the worker leaves it to the daemon) */
  resultText?: string;
  /** how long the run took in the worker, in its own clock (the daemon's duration adds the hand-over both ways) */
  run_ms?: number;
}

/** Worker → daemon. Every `run` is answered by exactly one of done, failed or cancelled. */
export type FromWorker =
  /** startup_ms: opening the runtime, by the clock; cpu_ms: the process's CPU time from its start to here (node's own start included) */
  | { t: 'ready'; startup_ms: number; cpu_ms: number }
  /** the worker got SIGTERM/SIGINT itself: it takes no more runs and waits for `exit` */
  | { t: 'signalled'; signal: string }
  | { t: 'begin'; id: string }
  | { t: 'cancelled'; id: string }
  /**
   * the runtime could not open (e.g. a broken manifest); the worker exits after sending this. It may
   * follow `ready`: a schema that does not compile is found by the warm-up after it (worker.ts)
   */
  | { t: 'fatal'; name: string; message: string }
  | { t: 'progress'; id: string; e: StepProgress }
  | { t: 'done'; id: string; result: RunOutcome }
  /** `code`: the errno name when the disk failed (ENOSPC, EIO: the daemon pauses instead of closing the session) */
  | { t: 'failed'; id: string; name: string; message: string; code?: string }
  | { t: 'ingested'; seq: number; error: string | null }
  /** several of the above, in order, in one write */
  | { t: 'batch'; m: FromWorker[] };

/** Exit code of a worker whose root does not load (the daemon exits with the same, EXIT_BROKEN_ROOT). */
export const WORKER_EXIT_BROKEN_ROOT = 3;
/** The worker's second argument when an earlier worker of this daemon served: broken manifests fall back to the last good set. */
export const KEEP_LAST_GOOD = '--keep-last-good';
/** The worker's second argument when it was forked before the daemon held the root (worker-fork.ts preforkWorker): it waits for `open`. */
export const PREFORKED = '--preforked';

/**
 * V8 flags of the session worker alone: no optimising compiler. A worker lives for a burst of jobs
 * and exits when idle, so TurboFan's compiles on the other core cost more than the code they make
 * saves: in `npm run bench` (200 jobs on a new worker) a third of the worker's CPU was compiler
 * threads, and without them its CPU per job fell from about 3.4 to 2.8 ms (A/B, same runs); over
 * 1,000 jobs on one worker the two are even. The interpreter and the baseline compiler (Sparkplug)
 * still run; a model's work is native code either way. Run from its bundle, the worker sets them
 * itself once node's modules it needs are loaded (base/bundle-run.ts setFlagsAfterBuiltins, issue
 * 32); run from its modules, they are on its command line (worker-fork.ts).
 */
export const WORKER_V8_FLAGS: readonly string[] = ['--no-opt'];
