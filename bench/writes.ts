/**
 * What the daemon writes to storage (issue 34, item 2): an SD card wears out
 * with every write, and a Pi is left alone for months.
 *
 * The root lives on a filesystem of its own — an ext4 image mounted through a
 * loop device, made as Raspberry Pi OS makes its root (4 KiB blocks, a
 * journal) — so the loop device's own counters (/sys/block/loopN/stat) count
 * every byte that reaches storage from the daemon, its session worker and the
 * tools they run, journal and metadata included, and nothing from the rest of
 * the machine. Before each reading the filesystem is synced (syncfs), so what
 * sat in the page cache is counted where it was written. The daemon runs under
 * strace (`-f --seccomp-bpf`, stopping only at the sync calls: fsync,
 * fdatasync, sync_file_range, syncfs, msync), which counts the syncs of every
 * process it starts, by time. Needs root (mount) and strace; without them the
 * rows say why.
 *
 * Measured, each a row:
 *   - idle: bytes and syncs of an idle daemon (its worker gone), per hour,
 *     over IDLE_S seconds, and the files it touched (goal: none; its logs go
 *     to journald, not to the root);
 *   - per job, as jobs come at 1,000 a day: one job at a time, each in a
 *     worker of its own that idles out after it (as with the 15 s default
 *     when jobs are 86 s apart), its memory ingest included; TRICKLE jobs;
 *   - per job in a burst of BURST jobs (ingest batched);
 *   - per event in the memory index: a fresh index fed the burst's ledgers
 *     one session per transaction (as between jobs at 1,000 a day), for each
 *     SQLite layout tried, so the choice is made by these figures;
 *   - the card: years until a 32 GB card with 3,000 program/erase cycles is
 *     written through at 1,000 trickle jobs a day plus 24 idle hours, counted
 *     at the device (a card's own write amplification comes on top, and
 *     shortens it by its factor).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { initRoot } from '../src/root/init.js';
import type { BenchRow } from './types.js';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from './daemon.js';

const IDLE_S = Number(process.env.PICO_BENCH_IDLE_S ?? 120);
const TRICKLE = Number(process.env.PICO_BENCH_TRICKLE ?? 30);
const BURST = Number(process.env.PICO_BENCH_BURST ?? 200);
const CARD_BYTES = 32e9;
const PE_CYCLES = 3000;
const JOBS_PER_DAY = 1000;
const SYNC_CALLS = ['fsync', 'fdatasync', 'sync_file_range', 'syncfs', 'msync'];

const G = 'writes';
/** Where the run is, on stderr (a run takes minutes). */
const say = (what: string): void => void process.stderr.write(`bench/writes: ${what}\n`);

/** The loop device's sectors written (512 B each) and flushes, from /sys/block/loopN/stat. */
function counters(dev: string): { bytes: number; flushes: number } {
  const f = readFileSync(`/sys/block/${dev}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  return { bytes: f[6]! * 512, flushes: f[15] ?? NaN };
}

/** Sync the filesystem at `dir` (what sat in the page cache reaches the device) and read the counters. */
function settled(dir: string, dev: string): { bytes: number; flushes: number; at: number } {
  spawnSync('sync', ['-f', dir]);
  return { ...counters(dev), at: Date.now() / 1000 };
}

/** An ext4 image mounted through a loop device; its mount point and device name, or why not. */
function mountImage(): { dir: string; dev: string; done: () => void } | string {
  if (process.getuid?.() !== 0) return 'needs root (a loop-mounted ext4 holds the root, so every byte it gets is counted)';
  const work = mkdtempSync(join(tmpdir(), 'pico-writes-'));
  const image = join(work, 'card.img');
  const dir = join(work, 'mnt');
  mkdirSync(dir);
  closeSync(openSync(image, 'w'));
  execFileSync('truncate', ['-s', '2G', image]);
  execFileSync('mkfs.ext4', ['-q', '-F', '-b', '4096', image]);
  const r = spawnSync('mount', ['-o', 'loop', image, dir], { encoding: 'utf8' });
  if (r.status !== 0) return `mount -o loop failed: ${r.stderr.trim()}`;
  const dev = /\/dev\/(loop\d+)/.exec(readFileSync('/proc/mounts', 'utf8').split('\n').find((l) => l.split(' ')[1] === dir) ?? '')?.[1];
  if (!dev) return 'the loop device of the mount was not found in /proc/mounts';
  return { dir, dev, done: () => { spawnSync('umount', [dir]); rmSync(work, { recursive: true, force: true }); } };
}

/** A daemon under strace: its log lines, its pid (from them), and the strace output file. */
interface Traced {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  pid: () => number;
  waitFor(pred: (l: Record<string, unknown>) => boolean, timeoutMs?: number, from?: number): Promise<Record<string, unknown>>;
  traceFile: string;
}

function startTraced(root: string, traceFile: string, workerIdleMs: number): Traced {
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const child = spawn('strace', ['-f', '--seccomp-bpf', '-qq', '-ttt', '-e', `trace=${SYNC_CALLS.join(',')}`, '-o', traceFile,
    process.execPath, ...DAEMON_NODE_FLAGS, main, 'daemon', '--root', root, '--worker-idle-ms', String(workerIdleMs)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...DAEMON_ENV } });
  const lines: Record<string, unknown>[] = [];
  let waiters: { pred: (l: Record<string, unknown>) => boolean; from: number; ok: (l: Record<string, unknown>) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (t) => {
    if (process.env.PICO_BENCH_DEBUG) process.stderr.write(t.slice(0, 160) + '\n');
    try {
      lines.push(JSON.parse(t) as Record<string, unknown>);
    } catch {
      return;
    }
    const i = lines.length - 1;
    waiters = waiters.filter((w) => (i >= w.from && w.pred(lines[i]!) ? (w.ok(lines[i]!), false) : true));
  });
  return {
    child, lines, traceFile,
    pid: () => Number(lines.find((l) => typeof l.pid === 'number')?.pid),
    waitFor(pred, timeoutMs = 120_000, from = 0) {
      const seen = lines.slice(from).find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((ok, no) => {
        const t = setTimeout(() => no(new Error(`bench/writes: a daemon line was not seen within ${timeoutMs} ms; the last lines: ${lines.slice(-4).map((l) => String(l.msg ?? l.event)).join(' | ')}`)), timeoutMs);
        waiters.push({ pred, from, ok: (l) => (clearTimeout(t), ok(l)) });
      });
    },
  };
}

/** Sync calls in strace's output between two times (seconds since the epoch), by call. */
function syncsBetween(traceFile: string, from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(traceFile, 'utf8').split('\n')) {
    const m = /^\d+\s+(\d+\.\d+)\s+(\w+)\(/.exec(line);
    if (!m || Number(m[1]) < from || Number(m[1]) > to) continue;
    out[m[2]!] = (out[m[2]!] ?? 0) + 1;
  }
  return out;
}

const total = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/** Files under `root` whose mtime is after `since` (epoch seconds), relative. */
function touchedSince(root: string, since: number): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else {
        const st = spawnSync('stat', ['-c', '%Y', p], { encoding: 'utf8' });
        if (Number(st.stdout) >= Math.floor(since)) out.push(`${rel}${e.name}`);
      }
    }
  };
  walk(root, '');
  return out;
}

/** Rename `n` copies of the example job into the inbox (staged beforehand on the same filesystem). */
function stage(root: string, n: number, tag: string): string[] {
  const staging = join(root, 'sessions', '.bench-staging');
  mkdirSync(staging, { recursive: true });
  const job = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'));
  const names = Array.from({ length: n }, (_, i) => `${tag}-${String(i).padStart(4, '0')}.json`);
  for (const name of names) writeFileSync(join(staging, name), job);
  return names;
}

function drop(root: string, name: string): void {
  renameSync(join(root, 'sessions', '.bench-staging', name), join(root, 'sessions', 'inbox', name));
}

export async function benchWrites(): Promise<BenchRow[]> {
  const strace = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  if (strace.error) return [{ group: G, name: 'bytes written per job', value: NaN, unit: 'B', note: 'needs strace (apt install strace)' }];
  const m = mountImage();
  if (typeof m === 'string') return [{ group: G, name: 'bytes written per job', value: NaN, unit: 'B', note: m }];
  const rows: BenchRow[] = [];
  const root = join(m.dir, 'root');
  const traceFile = join(tmpdir(), `pico-writes-${process.pid}.strace`);
  let d: Traced | null = null;
  try {
    initRoot(root);
    const trickle = stage(root, TRICKLE, 'trickle');
    const burst = stage(root, BURST, 'burst');
    d = startTraced(root, traceFile, 1000);
    const daemon = d;
    say('starting the daemon under strace');
    await daemon.waitFor((l) => l.event === 'ready');
    say('ready; one warm-up job');
    // one job first: the one-time costs (the sandbox probe's world.json, the memory index made, the last good set kept)
    const warm = stage(root, 1, 'warm');
    drop(root, warm[0]!);
    await daemon.waitFor((l) => l.event === 'finished');
    await daemon.waitFor((l) => l.event === 'worker_stopped');
    await sleep(3000); // the idle collections and the status write after them

    say(`idle for ${IDLE_S} s`);
    const i0 = settled(m.dir, m.dev);
    await sleep(IDLE_S * 1000);
    const i1 = settled(m.dir, m.dev);
    const idleSyncs = syncsBetween(traceFile, i0.at, i1.at);
    const perHour = 3600 / (i1.at - i0.at);
    const touched = touchedSince(root, i0.at + 1).filter((f) => !f.startsWith('sessions/.bench-staging/'));
    rows.push(
      { group: G, name: 'idle: bytes written per hour', value: (i1.bytes - i0.bytes) * perHour, unit: 'B/h', note: `goal 0 (logs go to journald); over ${IDLE_S} s; files touched: ${touched.join(', ') || 'none'}` },
      { group: G, name: 'idle: syncs per hour', value: total(idleSyncs) * perHour, unit: '/h', note: JSON.stringify(idleSyncs) },
    );

    say(`${TRICKLE} jobs one at a time`);
    const t0 = settled(m.dir, m.dev);
    for (const name of trickle) {
      const from = daemon.lines.length;
      drop(root, name);
      await daemon.waitFor((l) => l.event === 'finished', 60_000, from);
      await daemon.waitFor((l) => l.event === 'worker_stopped', 60_000, from);
    }
    const t1 = settled(m.dir, m.dev);
    const trickleSyncs = syncsBetween(traceFile, t0.at, t1.at);
    const perJob = (t1.bytes - t0.bytes) / TRICKLE;
    rows.push(
      { group: G, name: 'bytes written per job (1,000 a day)', value: perJob, unit: 'B', note: `device bytes over ${TRICKLE} jobs one at a time, each with its worker start, memory ingest and exit` },
      { group: G, name: 'syncs per job (1,000 a day)', value: total(trickleSyncs) / TRICKLE, unit: '', note: `${Object.entries(trickleSyncs).map(([k, v]) => `${k} ${(v / TRICKLE).toFixed(1)}`).join(', ')}; device flushes ${((t1.flushes - t0.flushes) / TRICKLE).toFixed(1)} per job` },
    );

    say(`a burst of ${BURST}`);
    const b0 = settled(m.dir, m.dev);
    const from = daemon.lines.length;
    for (const name of burst) drop(root, name);
    let finished = 0;
    const last = await daemon.waitFor((l) => l.event === "finished" && ++finished >= BURST, 60_000, from);
    await daemon.waitFor((l) => l.event === 'worker_stopped', 60_000, daemon.lines.indexOf(last));
    const b1 = settled(m.dir, m.dev);
    const burstSyncs = syncsBetween(traceFile, b0.at, b1.at);
    rows.push(
      { group: G, name: `bytes written per job (burst of ${BURST})`, value: (b1.bytes - b0.bytes) / BURST, unit: 'B', note: 'ingest batched between bursts' },
      { group: G, name: `syncs per job (burst of ${BURST})`, value: total(burstSyncs) / BURST, unit: '', note: Object.entries(burstSyncs).map(([k, v]) => `${k} ${(v / BURST).toFixed(2)}`).join(', ') },
    );

    // the card
    const perDay = JOBS_PER_DAY * perJob + 24 * (i1.bytes - i0.bytes) * perHour;
    rows.push({ group: G, name: 'card life: 32 GB, 3,000 P/E cycles, 1,000 jobs a day', value: (CARD_BYTES * PE_CYCLES) / perDay / 365, unit: 'years', note: `${(perDay / 1e6).toFixed(1)} MB a day at the device; a card's own write amplification divides this` });

    // the daemon itself, not strace: strace lets its tracee run on when it is signalled
    const exited = new Promise((ok) => daemon.child.once('exit', ok));
    process.kill(daemon.pid(), 'SIGTERM');
    await exited;
    d = null;
    say('the memory index alone, per layout');
    rows.push(...(await ingestRows(root, m)));
  } finally {
    if (d) {
      const exited = new Promise((ok) => d!.child.once('exit', ok));
      try {
        process.kill(d.pid(), 'SIGKILL');
      } catch { /* not started, or gone */ }
      d.child.kill('SIGKILL');
      await exited;
    }
    rmSync(traceFile, { force: true });
    m.done();
  }
  return rows;
}

/**
 * The memory index alone: a fresh index per SQLite layout, fed every session of the run one per
 * transaction (as the daemon does between jobs at 1,000 a day), under strace; bytes and syncs per
 * ledger event. The layouts: what memory-index.ts opens (WAL), and the ones it could.
 */
async function ingestRows(root: string, m: { dir: string; dev: string }): Promise<BenchRow[]> {
  const script = fileURLToPath(new URL('./writes-ingest.js', import.meta.url));
  const sessions = join(root, 'sessions');
  const ids = readdirSync(sessions).filter((n) => /^\d{8}-\d{6}-/.test(n) && existsSync(join(sessions, n, 'events.jsonl')));
  const events = ids.reduce((a, id) => a + readFileSync(join(sessions, id, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).length, 0);
  const rows: BenchRow[] = [];
  for (const layout of ['wal-4k', 'wal-2k', 'wal-1k', 'delete-4k', 'delete-1k']) {
    const db = join(m.dir, `ingest-${layout}`, 'episodic.db');
    const trace = join(tmpdir(), `pico-writes-ingest-${process.pid}.strace`);
    const a = settled(m.dir, m.dev);
    execFileSync('strace', ['-f', '--seccomp-bpf', '-qq', '-ttt', '-e', `trace=${SYNC_CALLS.join(',')}`, '-o', trace, process.execPath, script, db, layout, sessions], { stdio: 'ignore' });
    const b = settled(m.dir, m.dev);
    const syncs = total(syncsBetween(trace, 0, Infinity));
    rmSync(trace, { force: true });
    rows.push({ group: G, name: `memory index: bytes per event (${layout})`, value: (b.bytes - a.bytes) / events, unit: 'B', note: `${ids.length} sessions, ${events} events, one transaction each; ${(syncs / ids.length).toFixed(1)} syncs per session` });
  }
  return rows;
}
