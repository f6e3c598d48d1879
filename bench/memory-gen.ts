/**
 * Synthetic session ledgers for memory tests and the memory bench.
 *
 * Deterministic (a seeded generator, fixed clock) so a test can rely on the
 * counts it asks for and the bench measures the same input every run. Each
 * session: composition, user_input, three steps (two read T1 tool output, the
 * third reduces earlier facts at T2), answer_sent — ten events and three
 * facts. Every `failEvery`-th session adds a failed attempt of the small model
 * (a validation_failed whose detail quotes the log line), an `escalated` event
 * and the bigger model's fact. It writes the ledger format of src/ledger/events.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface GenOptions {
  sessions: number;
  /** every n-th session (from the first) fails once and escalates; default 4 (a quarter) */
  failEvery?: number;
  seed?: number;
}

export interface GenSummary {
  sessions: number;
  events: number;
  facts: number;
  failures: number;
}

const HOSTS = ['host-a', 'host-b', 'edge-01', 'edge-02', 'nas', 'gateway', 'pi5-kitchen', 'pi5-garage'];
const SERVICES = ['sshd', 'nginx', 'postgres', 'kernel', 'systemd', 'cron', 'dockerd', 'smartd'];
const ERRORS = [
  'disk I/O timeout on /dev/sda1', 'connection refused by upstream', 'out of memory: killed process',
  'certificate expired', 'temperature above threshold', 'filesystem read-only', 'segfault in worker',
  'too many open files', 'authentication failure for admin', 'no space left on device',
];
const GOALS = [
  'why is the disk full on', 'what failed overnight on', 'is the backup healthy on',
  'summarise the errors of', 'why did the service restart on', 'check memory pressure on',
];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The session id of the i-th generated session (sortable, valid as a folder name). */
export function genSessionId(i: number): string {
  return `20260101-000000-${i.toString(16).padStart(12, '0')}`;
}

/** The events of one generated session, without seq/t/session_id. */
function sessionEvents(i: number, fail: boolean, r: () => number): Record<string, unknown>[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const host = pick(HOSTS);
  const service = pick(SERVICES);
  const error = pick(ERRORS);
  const count = Math.floor(r() * 40);
  const ms = (base: number): number => Math.round(base * (0.5 + r()));
  const summary = {
    host, error_count: count, first_error: error, first_error_at: `Jan  1 00:${String(i % 60).padStart(2, '0')}:00`,
    service, max_severity: count > 20 ? 'critical' : 'error', service_restarted: r() < 0.3,
  };
  const ev: Record<string, unknown>[] = [
    { type: 'composition', hash: `sha256:${(i * 2654435761 >>> 0).toString(16)}`, machine: 'sha256:m1', config: 'picoharness.json' },
    { type: 'user_input', text: `${pick(GOALS)} ${host}`, trust: 'T0', budget_class: 'attended', job: {} },
    { type: 'step_started', step: 's1', tool: 'read_syslog', trust: 'T1', capability: 'extract@1', schema: 'log_summary@2' },
  ];
  if (fail) {
    ev.push(
      { type: 'provider_called', step: 's1', provider: 'extract-350m-q4', capability: 'extract@1', schema: 'log_summary@2',
        duration_ms: ms(900), outcome: 'ok', attempt: 0, input_sha256: 'x', input_bytes: 2048, output_blob: null, model_call: true },
      { type: 'validation_failed', step: 's1', provider: 'extract-350m-q4', capability: 'extract@1', schema: 'log_summary@2',
        error: `error_count: expected integer, got "${count} lines" at row ${i % 97}`, attempt: 0, detail_trust: 'T1' },
      { type: 'escalated', step: 's1', from: 'extract-350m-q4', to: 'extract-1.2b-q4', reason: 'ladder failed' },
    );
  }
  const s1Provider = fail ? 'extract-1.2b-q4' : pick(['logparse', 'extract-350m-q4']);
  ev.push(
    { type: 'provider_called', step: 's1', provider: s1Provider, capability: 'extract@1', schema: 'log_summary@2',
      duration_ms: ms(s1Provider === 'logparse' ? 3 : fail ? 2500 : 900), outcome: 'ok', attempt: fail ? 1 : 0,
      input_sha256: 'x', input_bytes: 2048, output_blob: null, model_call: s1Provider !== 'logparse' },
    { type: 'fact_added', step: 's1', provider: s1Provider, capability: 'extract@1', schema: 'log_summary@2',
      fact: summary, trust: 'T1', confidence: null, duration_ms: 1, valid_until: null, subject: host, fixes: [] },
    { type: 'step_started', step: 's2', tool: 'df', trust: 'T1', capability: 'extract@1', schema: 'disk_usage@1' },
    { type: 'fact_added', step: 's2', provider: 'dfparse', capability: 'extract@1', schema: 'disk_usage@1',
      fact: { mount: '/', disk_free_pct: Math.round(r() * 1000) / 10, inodes_free_pct: Math.round(r() * 100) },
      trust: 'T1', confidence: null, duration_ms: 2, valid_until: null, subject: host, fixes: [] },
    { type: 'step_started', step: 's3', tool: null, trust: 'T2', capability: 'answer@1', schema: 'answer@1' },
    { type: 'fact_added', step: 's3', provider: 'answer-template', capability: 'answer@1', schema: 'answer@1',
      fact: { text: `${host}: ${count} errors, first ${service}`, host, healthy: count === 0 },
      trust: 'T2', confidence: null, duration_ms: 1, valid_until: null, subject: host, fixes: [] },
    { type: 'answer_sent', outcome: 'answered', text: 'done', missing: [], trust: 'T2',
      spent: { wall_ms: 1000, model_calls: 1, cpu_ms: 900 } },
  );
  return ev;
}

/** Stamp seq, t and session_id and serialise as a ledger. */
export function ledgerText(session: string, events: Record<string, unknown>[], start = Date.UTC(2026, 0, 1)): string {
  return events
    .map((e, seq) => JSON.stringify({ seq, t: new Date(start + seq * 1000).toISOString(), session_id: session, ...e }) + '\n')
    .join('');
}

/** Write `opts.sessions` session folders under `sessionsDir`. */
export function generateSessions(sessionsDir: string, opts: GenOptions): GenSummary {
  const failEvery = opts.failEvery ?? 4;
  const r = rng(opts.seed ?? 42);
  const sum: GenSummary = { sessions: 0, events: 0, facts: 0, failures: 0 };
  for (let i = 0; i < opts.sessions; i++) {
    const fail = failEvery > 0 && i % failEvery === 0;
    const id = genSessionId(i);
    const events = sessionEvents(i, fail, r);
    const dir = join(sessionsDir, id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'events.jsonl'), ledgerText(id, events, Date.UTC(2026, 0, 1) + i * 60_000));
    sum.sessions++;
    sum.events += events.length;
    sum.facts += events.filter((e) => e.type === 'fact_added').length;
    sum.failures += fail ? 1 : 0;
  }
  return sum;
}
