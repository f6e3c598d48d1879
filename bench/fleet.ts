/**
 * The fleet's numbers (issue 25): events shipped per second by one box's
 * agent, the agent's idle RSS beside a bare node process, job routing latency
 * on loopback (publish to job file in the inbox) and the hub's ingest rate.
 *
 * Real parts: nats-server with JetStream on a free loopback port in a temp
 * folder, `pico fleet agent` and `pico fleet hub` as processes of the compiled
 * CLI (run with the daemon's node flags), and synthetic ledgers from the
 * memory bench's generator (deterministic, so runs compare) plus one long
 * ledger of 30,000 events, so the agent's RSS after the backlog shows whether
 * what it holds grows with a ledger's size. Shipping is
 * measured with no hub running and the hub afterwards on the stream's
 * backlog, so the two rates do not share the machine. Without nats-server the
 * group gives one row saying so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect as tcp, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { connectServer, ensureFleet } from '../src/fleet/connect.js';
import { submit } from '../src/fleet/commands.js';
import { parseJob } from '../src/runtime/job.js';
import { initRoot } from '../src/root/init.js';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from './daemon.js';
import { generateSessions, ledgerText } from './memory-gen.js';
import type { BenchRow } from './types.js';

const MAIN_JS = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const SESSIONS = 400;
/** One long ledger in the backlog (a batch job's, some 9 MB): what the agent holds must not grow with it. */
const BIG_EVENTS = 30_000;
const ROUTED_JOBS = 30;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((res) => {
      const s = tcp(port, '127.0.0.1', () => (s.destroy(), res(true)));
      s.once('error', () => res(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`nats-server did not listen on ${port}`);
}

async function until(what: string, cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), MB. */
function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** A session of BIG_EVENTS provider calls (the ledger format of src/ledger/events.ts), ended. */
function bigSession(sessionsDir: string): string {
  const id = '20260102-000000-00000000b16b';
  const events: Record<string, unknown>[] = [{ type: 'user_input', text: 'summarise a month of logs', trust: 'T0', budget_class: 'batch', job: {} }];
  for (let i = 1; i < BIG_EVENTS; i++) {
    events.push({ type: 'provider_called', step: `s${i}`, provider: 'logparse', capability: 'extract@1', schema: 'log_summary@2', duration_ms: 2 + (i % 5),
      outcome: 'ok', attempt: 0, input_sha256: 'x'.repeat(64), input_bytes: 2048 + i, output_blob: null, model_call: false });
  }
  mkdirSync(join(sessionsDir, id));
  writeFileSync(join(sessionsDir, id, 'events.jsonl'), ledgerText(id, events));
  writeFileSync(join(sessionsDir, id, 'result.json'), JSON.stringify({ outcome: 'answered' }));
  return id;
}

function pico(args: string[], lines?: Record<string, unknown>[], level = 'info'): ChildProcess {
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, MAIN_JS, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...DAEMON_ENV, PICO_LOG_LEVEL: level } });
  let buf = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      try {
        lines?.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      } catch { /* not a log line */ }
      buf = buf.slice(nl + 1);
    }
  });
  return child;
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((xs.length * p) / 100) - 1)]!;

export async function benchFleet(): Promise<BenchRow[]> {
  if (spawnSync('sh', ['-c', 'command -v nats-server']).status !== 0) {
    return [{ group: 'fleet', name: 'skipped', value: NaN, unit: '', note: 'nats-server is not installed (apt-get install nats-server)' }];
  }
  const dir = mkdtempSync(join(tmpdir(), 'pico-bench-fleet-'));
  const kids: ChildProcess[] = [];
  try {
    const port = await freePort();
    const server = `nats://127.0.0.1:${port}`;
    const nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'js')], { stdio: 'ignore' });
    kids.push(nats);
    await listening(port);

    // 1. shipping: one box's agent over SESSIONS generated ledgers, nothing else running
    const box = join(dir, 'box');
    initRoot(box);
    const gen = generateSessions(join(box, 'sessions'), { sessions: SESSIONS });
    bigSession(join(box, 'sessions'));
    const events = gen.events + BIG_EVENTS;
    const agentLines: Record<string, unknown>[] = [];
    const t0 = performance.now();
    const agent = pico(['fleet', 'agent', '--root', box, '--box', 'bench', '--server', server], agentLines);
    kids.push(agent);
    const shippedAll = (): boolean => {
      try {
        const s = JSON.parse(readFileSync(join(box, 'fleet', '.agent.json'), 'utf8')) as { shipped: Record<string, number>; done: string[] };
        const sizes = readdirSync(join(box, 'sessions')).filter((n) => /^\d{8}-/.test(n));
        return sizes.every((n) => s.done.includes(n) || (s.shipped[n] ?? 0) > 0 && s.shipped[n] === statSync(join(box, 'sessions', n, 'events.jsonl')).size);
      } catch {
        return false;
      }
    };
    await until('the agent shipped every ledger', shippedAll, 180_000);
    const shipMs = performance.now() - t0;
    const readyAt = (lines: Record<string, unknown>[]): number => Date.parse(String(lines.find((l) => l.event === 'ready')?.time));
    const shipFromReadyMs = Date.now() - readyAt(agentLines);

    // 2. the agent's idle RSS after the backlog, beside a bare node with the same flags: 3 s after
    // (V8 still holds the burst's garbage) and 20 s after (its memory reducer has run), and the peak
    await sleep(3_000);
    const agentRss = rssMb(agent.pid!);
    const agentPeak = rssMb(agent.pid!, 'VmHWM');
    await sleep(17_000);
    const agentSettled = rssMb(agent.pid!);
    const bare = Number(spawnSync(process.execPath, [...DAEMON_NODE_FLAGS, '-e', "setTimeout(() => process.stdout.write(/VmRSS:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]), 200)"], { encoding: 'utf8' }).stdout) / 1024;

    // 3. the hub on the stream's backlog: appended and ingested
    const hubRoot = join(dir, 'hub');
    mkdirSync(hubRoot);
    const t1 = performance.now();
    const hubLines: Record<string, unknown>[] = [];
    // at debug, the hub logs each flush: its lines and its file syncs
    kids.push(pico(['fleet', 'hub', '--root', hubRoot, '--server', server], hubLines, 'debug'));
    const ingested = (): number => {
      try {
        const db = new Database(join(hubRoot, 'memory', 'episodic.db'), { readonly: true, fileMustExist: true });
        try {
          return (db.prepare('SELECT COALESCE(SUM(events), 0) AS n FROM ledger').get() as { n: number }).n;
        } finally {
          db.close();
        }
      } catch {
        return 0;
      }
    };
    await until('the hub ingested every event', () => ingested() >= events, 240_000);
    const hubMs = performance.now() - t1;
    const hubFromReadyMs = Date.now() - readyAt(hubLines);
    const backlogFlushes = hubLines.length;

    // 2b. an agent on a box with nothing to ship: the RSS it idles at from the start
    const fresh = join(dir, 'fresh');
    initRoot(fresh);
    const freshLines: Record<string, unknown>[] = [];
    const freshAgent = pico(['fleet', 'agent', '--root', fresh, '--box', 'fresh', '--server', server], freshLines);
    kids.push(freshAgent);
    await until('the fresh agent is ready', () => freshLines.some((l) => l.event === 'ready'), 30_000);
    await sleep(3_000);
    const freshRss = rssMb(freshAgent.pid!);
    freshAgent.kill('SIGTERM');

    // 4. routing latency: a daemon on the box, one job at a time to box=bench, publish -> job file in the inbox
    const daemon = pico(['daemon', '--root', box]);
    kids.push(daemon);
    const client = await ensureFleet(await connectServer({ server, name: 'bench' }));
    const job = parseJob(JSON.parse(readFileSync(join(box, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8')));
    const lat: number[] = [];
    await sleep(1_000);
    for (let i = 0; i < ROUTED_JOBS; i++) {
      const sent = Date.now();
      const r = await submit(client, job, { kind: 'box', value: 'bench' }, null);
      await until(`job ${r.id} taken`, () => agentLines.some((l) => l.event === 'fleet_taken' && l.job === r.id), 30_000);
      const taken = Date.parse(String(agentLines.find((l) => l.event === 'fleet_taken' && l.job === r.id)!.time));
      lat.push(taken - sent);
      await until(`job ${r.id} ended`, () => {
        try {
          readFileSync(join(box, 'sessions', r.id, 'result.json'));
          return true;
        } catch {
          return false;
        }
      }, 30_000);
      await sleep(1_500); // the box reads as idle again (status.json is written at most every 0.5 s)
    }
    await client.nc.close();
    await sleep(500); // the hub's flush of the last job's lines
    /** File syncs per 1,000 lines over the hub's flush lines (a hub before the journal synced each session file it touched) */
    const syncsPer1000 = (ls: Record<string, unknown>[]): { per: number; lines: number } => {
      const flushed = ls.filter((l) => l.event === 'flushed');
      const lines = flushed.reduce((n, l) => n + Number(l.lines), 0);
      return { per: (1000 * flushed.reduce((n, l) => n + Number(l.syncs ?? l.sessions), 0)) / Math.max(1, lines), lines };
    };
    const backlogSyncs = syncsPer1000(hubLines.slice(0, backlogFlushes));
    const liveSyncs = syncsPer1000(hubLines.slice(backlogFlushes));

    return [
      { group: 'fleet', name: 'events shipped per second (one box, no hub running)', value: events / (shipFromReadyMs / 1000), unit: 'events/s', note: `${events} events in ${SESSIONS} ledgers and one of ${BIG_EVENTS} events, from the agent's ready line; ${(events / (shipMs / 1000)).toFixed(0)} with its start` },
      { group: 'fleet', name: 'agent idle RSS, nothing to ship', value: freshRss, unit: 'MB', note: `${(freshRss - bare).toFixed(1)} MB beyond a bare node with the same flags (${bare.toFixed(1)} MB); goal <= 15 beyond it` },
      { group: 'fleet', name: 'agent RSS beyond a bare node, 3 s after shipping the backlog', value: agentRss - bare, unit: 'MB', note: `${agentRss.toFixed(1)} MB in all; peak while shipping ${(agentPeak - bare).toFixed(1)} beyond; goal <= 15 beyond` },
      { group: 'fleet', name: 'agent RSS beyond a bare node, 20 s after shipping the backlog', value: agentSettled - bare, unit: 'MB', note: `${agentSettled.toFixed(1)} MB in all (V8's memory reducer has returned the burst's garbage)` },
      { group: 'fleet', name: 'job routing latency p50 (publish -> inbox, idle box, loopback)', value: pct(lat, 50), unit: 'ms', note: `${ROUTED_JOBS} jobs to box=` },
      { group: 'fleet', name: 'job routing latency p90', value: pct(lat, 90), unit: 'ms' },
      { group: 'fleet', name: 'hub: events appended and ingested per second', value: events / (hubFromReadyMs / 1000), unit: 'events/s', note: `from the stream backlog, from the hub's ready line; ${(events / (hubMs / 1000)).toFixed(0)} with its start` },
      { group: 'fleet', name: 'hub: file syncs per 1,000 events, backlog', value: backlogSyncs.per, unit: 'syncs', note: `${backlogSyncs.lines} lines; every acknowledged line is durable` },
      { group: 'fleet', name: 'hub: file syncs per 1,000 events, live (jobs running while the hub runs)', value: liveSyncs.per, unit: 'syncs', note: `${liveSyncs.lines} lines of ${ROUTED_JOBS} jobs as they ran` },
    ];
  } finally {
    for (const k of kids.reverse()) if (k.exitCode === null) k.kill('SIGTERM');
    await sleep(500);
    for (const k of kids) if (k.exitCode === null) k.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
