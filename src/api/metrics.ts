/**
 * The daemon's numbers for Prometheus: a DaemonObserver that counts.
 *
 * Everything here is fed by the daemon loop's observer calls (observer.ts):
 * jobs finished by outcome, rejected inbox entries, the queue by budget
 * class, each step's duration and outcome by capability, tool and provider,
 * each provider call's duration, model load times and worker starts and
 * deaths. The registry is this module's own (not prom-client's global one),
 * and the counts start at zero with the process, as Prometheus expects.
 * Label values come from manifests (providers, tools, capabilities), never
 * from jobs or sessions, so the number of series stays bounded. Loaded only
 * when the API listens: the idle daemon does not carry prom-client.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BUDGET_CLASSES } from '../base/ids.js';
import type { DaemonObserver } from '../daemon/observer.js';

/** Seconds: a code step takes milliseconds, a model step on a Pi tens of seconds. */
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
const LOAD_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 60, 120];

export interface Metrics {
  observer: DaemonObserver;
  registry: Registry;
  /** the text exposition format */
  text(): Promise<string>;
  /** a POST /jobs body was refused (it never reached the inbox, so the daemon's own count misses it) */
  refused(code: number): void;
}

/** A label value: what the manifests named, or "none". */
function label(v: string | null | undefined): string {
  return v === null || v === undefined || v === '' ? 'none' : v;
}

/** Make the registry and the observer that feeds it. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const finished = new Counter({ name: 'pico_jobs_finished_total', help: 'Jobs that ended, by outcome (answered, partial, declined, cancelled) and budget class', labelNames: ['outcome', 'budget_class'], registers });
  const queued = new Counter({ name: 'pico_jobs_queued_total', help: 'Jobs claimed from the inbox (resumed="true": found unfinished on disk at start, or decided after waiting for approval)', labelNames: ['budget_class', 'resumed'], registers });
  const rejected = new Counter({ name: 'pico_jobs_rejected_total', help: 'Inbox entries refused and moved to sessions/rejected/ with a reason file', registers });
  const depth = new Gauge({ name: 'pico_queue_depth', help: 'Jobs waiting to run, by budget class', labelNames: ['budget_class'], registers });
  const stepSeconds = new Histogram({ name: 'pico_step_duration_seconds', help: 'Duration of each ended step, by capability, tool, provider and outcome (committed or failed)', labelNames: ['capability', 'tool', 'provider', 'outcome'], buckets: STEP_BUCKETS, registers });
  const steps = new Counter({ name: 'pico_steps_total', help: 'Ended steps by provider and outcome; pass rate = committed / (committed + failed)', labelNames: ['provider', 'outcome'], registers });
  const providerSeconds = new Histogram({ name: 'pico_provider_call_duration_seconds', help: 'Duration of each provider call (the ledger\'s provider_called), by provider, capability and outcome (ok, failed, timeout, rejected)', labelNames: ['provider', 'capability', 'outcome'], buckets: STEP_BUCKETS, registers });
  const loadSeconds = new Histogram({ name: 'pico_model_load_duration_seconds', help: 'Time to load a local model into the session worker, by provider', labelNames: ['provider'], buckets: LOAD_BUCKETS, registers });
  const workerStarts = new Counter({ name: 'pico_worker_starts_total', help: 'Session worker processes started (one per busy spell; more after a death or a reload)', registers });
  const workerDeaths = new Counter({ name: 'pico_worker_deaths_total', help: 'Session workers that died while running a session (the session resumes in a new worker)', registers });
  const workerUp = new Gauge({ name: 'pico_worker_up', help: '1 while a session worker process runs, 0 while the daemon is idle without one', registers });
  const apiRefused = new Counter({ name: 'pico_api_jobs_refused_total', help: 'Job bodies POSTed to the API and refused before reaching the inbox, by HTTP status (400, 413, 415)', labelNames: ['code'], registers });
  const pass = new Map<string, { committed: number; failed: number }>();
  new Gauge({
    name: 'pico_step_pass_ratio',
    help: 'Committed steps / ended steps per provider since the daemon started',
    labelNames: ['provider'],
    registers,
    collect() {
      for (const [provider, c] of pass) this.set({ provider }, c.committed / (c.committed + c.failed));
    },
  });
  for (const c of BUDGET_CLASSES) depth.set({ budget_class: c }, 0);
  workerUp.set(0);

  const observer: DaemonObserver = {
    queue(byClass) {
      for (const [c, n] of Object.entries(byClass)) depth.set({ budget_class: c }, n);
    },
    queued(e) {
      queued.inc({ budget_class: e.budget_class, resumed: String(e.resumed) });
    },
    rejected(count) {
      rejected.inc(count);
    },
    step(e) {
      if (e.phase === 'started') return;
      const provider = label(e.provider);
      stepSeconds.observe({ capability: label(e.capability), tool: label(e.tool), provider, outcome: e.phase }, (e.duration_ms ?? 0) / 1000);
      steps.inc({ provider, outcome: e.phase });
      const c = pass.get(provider) ?? { committed: 0, failed: 0 };
      c[e.phase]++;
      pass.set(provider, c);
    },
    providerCalled(e) {
      providerSeconds.observe({ provider: label(e.provider), capability: label(e.capability), outcome: e.outcome }, e.duration_ms / 1000);
    },
    modelLoaded(e) {
      loadSeconds.observe({ provider: label(e.provider) }, e.duration_ms / 1000);
    },
    finished(e) {
      finished.inc({ outcome: e.outcome, budget_class: e.budget_class });
    },
    worker(pid) {
      if (pid !== null) workerStarts.inc();
      workerUp.set(pid === null ? 0 : 1);
    },
    workerDied() {
      workerDeaths.inc();
    },
  };
  return { observer, registry, text: () => registry.metrics(), refused: (code) => apiRefused.inc({ code: String(code) }) };
}
