/**
 * `npm run soak -- --jobs N`: a box left alone for months, in an afternoon (issue 34, item 3).
 *
 * The real daemon (the systemd unit's node flags) runs on a root of its own
 * with retention on; example jobs are dropped into its inbox in batches with
 * an idle gap after each (retention runs between jobs, as on a box that is
 * not busy all day), until N have finished. Every `--every` jobs it prints a
 * row: the resident memory of the daemon and of its session worker, their
 * open file descriptors, the root's size on disk, the memory index's size,
 * the sessions kept, what retention removed so far, and the job rate over
 * the interval. At the end the table is written as Markdown and drawn as a
 * small chart (vega-lite rendered to SVG, as the report draws its charts)
 * beside the root, with the verdict: after the first retention pass, does
 * anything keep growing, and does the rate fall?
 *
 * Retention: the daemon's own (settings.json `gc`, removing, not archiving),
 * with the age scaled to the soak's pace — a box at 1,000 jobs a day keeping
 * 90 days holds 90,000 sessions, more than a soak makes, so the soak keeps
 * `--keep-minutes` (default 10) and looks every 36 s, to reach the steady
 * state a real box reaches after its first 90 days. Not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../src/report/charts.js';
import { initRoot } from '../src/root/init.js';
import { PACKAGE_DIR } from '../src/base/package.js';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from './daemon.js';

/** Example jobs that answer from the shipped tools in well under a second each. */
const EXAMPLES = ['why-is-the-disk-full.json', 'why-is-the-disk-full-goal-only.json', 'errors-in-the-log.json', 'is-memory-running-low.json'];

const USAGE = `npm run soak -- --jobs N [--minutes M] [--batch B] [--gap-ms MS] [--every K] [--keep-minutes M] [--examples A,B] [--root DIR]
  --jobs N          jobs to run (e.g. 100000)
  --minutes M       stop dropping after M minutes even if fewer than N jobs ran (the report says so)
  --examples A,B    which of examples/jobs/ to drop, in turn (default ${EXAMPLES.join(',')})
  --batch B         jobs dropped at once, then the daemon is left idle for --gap-ms (default 100, 1000)
  --every K         a row every K finished jobs (default N/25, at least 100)
  --keep-minutes M  retention: finished sessions older than this are removed between jobs (default 10)
  --root DIR        where the root is made (default .bench/soak-<time>; PICO_BENCH_DIR moves .bench)`;

interface Row {
  jobs: number;
  minutes: number;
  rate: number;
  daemon_rss_mb: number;
  worker_rss_mb: number | null;
  daemon_fds: number;
  worker_fds: number | null;
  root_mb: number;
  memory_mb: number;
  sessions: number;
  removed: number;
}

const COLS: [keyof Row, string][] = [
  ['jobs', 'jobs'], ['minutes', 'min'], ['rate', 'jobs/s'], ['daemon_rss_mb', 'daemon RSS MB'], ['worker_rss_mb', 'worker RSS MB'],
  ['daemon_fds', 'daemon fds'], ['worker_fds', 'worker fds'], ['root_mb', 'root on disk MB'], ['memory_mb', 'memory index MB'],
  ['sessions', 'sessions kept'], ['removed', 'removed by gc'],
];

const kb = (pid: number, key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const fds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** The daemon's session worker, if one runs. */
function workerOf(pid: number): number | null {
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) {
      if (/worker(-bundled)?\.js\0/.test(readFileSync(`/proc/${c}/cmdline`, 'utf8'))) return c;
    }
  } catch { /* gone meanwhile */ }
  return null;
}

/** Bytes the files under `dir` take on disk (du: blocks, not lengths). */
function onDisk(dir: string): number {
  return Number(execFileSync('du', ['-s', '--block-size=1', dir], { encoding: 'utf8' }).split(/\s/)[0]);
}

function memoryBytes(root: string): number {
  let n = 0;
  for (const f of ['episodic.db', 'episodic.db-wal', 'episodic.db-shm']) {
    try {
      n += statSync(join(root, 'memory', f)).size;
    } catch { /* absent */ }
  }
  return n;
}

const cell = (v: number | null): string => (v === null ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(1));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { jobs: { type: 'string' }, batch: { type: 'string' }, 'gap-ms': { type: 'string' }, every: { type: 'string' }, 'keep-minutes': { type: 'string' }, examples: { type: 'string' }, root: { type: 'string' }, minutes: { type: 'string' }, help: { type: 'boolean' } } });
  const n = Number(values.jobs);
  if (values.help || !Number.isInteger(n) || n <= 0) {
    process.stderr.write(`usage: ${USAGE}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const batch = Number(values.batch ?? 100);
  const gapMs = Number(values['gap-ms'] ?? 1000);
  const every = Number(values.every ?? Math.max(100, Math.round(n / 25)));
  const keepMinutes = Number(values['keep-minutes'] ?? 10);
  const deadline = values.minutes === undefined ? Infinity : Date.now() + Number(values.minutes) * 60_000;
  const base = values.root ?? join(process.env.PICO_BENCH_DIR ?? join(PACKAGE_DIR, '.bench'), `soak-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const root = join(base, 'root');
  mkdirSync(base, { recursive: true });
  initRoot(root);
  const gc = { older_than_days: keepMinutes / 1440, archive: false, every_hours: 0.01 };
  writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', gc }, null, 2) + '\n');
  const jobs = (values.examples?.split(',') ?? EXAMPLES).map((e) => readFileSync(join(root, 'examples', 'jobs', e)));
  const staging = join(root, 'sessions', '.soak-staging');
  mkdirSync(staging, { recursive: true });

  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const daemon = spawn(process.execPath, [...DAEMON_NODE_FLAGS, main, 'daemon', '--root', root], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...DAEMON_ENV, PICO_LOG_LEVEL: 'info' } });
  let finished = 0;
  let removed = 0;
  let ready = false;
  const outcomes: Record<string, number> = {};
  const problems: string[] = [];
  let wake: (() => void) | null = null;
  createInterface({ input: daemon.stdout! }).on('line', (t) => {
    let l: Record<string, unknown>;
    try {
      l = JSON.parse(t) as Record<string, unknown>;
    } catch {
      return;
    }
    if (l.event === 'finished') {
      finished++;
      outcomes[String(l.outcome)] = (outcomes[String(l.outcome)] ?? 0) + 1;
    } else if (l.event === 'gc') removed += Number(l.sessions ?? 0);
    else if (l.event === 'ready') ready = true;
    if (typeof l.level === 'number' && l.level >= 50 && problems.length < 20) problems.push(String(l.msg ?? l.event));
    wake?.();
  });
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await new Promise<void>((w) => { wake = w; setTimeout(w, 1000); });
  };
  await until(() => ready);
  process.stderr.write(`soak: ${n} jobs on ${root} (retention: ${JSON.stringify(gc)}), a row every ${every}\n`);
  const rows: Row[] = [];
  const t0 = Date.now();
  let last = { at: t0, jobs: 0 };
  const header = COLS.map(([, h]) => h).join(' | ');
  process.stdout.write(`| ${header} |\n|${COLS.map(() => '---:').join('|')}|\n`);
  const sample = (): void => {
    const pid = daemon.pid!;
    const w = workerOf(pid);
    const now = Date.now();
    const row: Row = {
      jobs: finished, minutes: (now - t0) / 60_000, rate: (finished - last.jobs) / ((now - last.at) / 1000),
      daemon_rss_mb: kb(pid, 'VmRSS') / 1024, worker_rss_mb: w ? kb(w, 'VmRSS') / 1024 : null,
      daemon_fds: fds(pid), worker_fds: w ? fds(w) : null,
      root_mb: onDisk(root) / 1048576, memory_mb: memoryBytes(root) / 1048576,
      sessions: readdirSync(join(root, 'sessions')).filter((x) => /^\d{8}-\d{6}-/.test(x)).length, removed,
    };
    last = { at: now, jobs: finished };
    rows.push(row);
    process.stdout.write(`| ${COLS.map(([k]) => cell(row[k])).join(' | ')} |\n`);
  };
  let dropped = 0;
  let nextRow = every;
  while (dropped < n && Date.now() < deadline) {
    const k = Math.min(batch, n - dropped);
    for (let i = 0; i < k; i++) {
      const name = `soak-${String(dropped + i).padStart(7, '0')}.json`;
      writeFileSync(join(staging, name), jobs[(dropped + i) % jobs.length]!);
      renameSync(join(staging, name), join(root, 'sessions', 'inbox', name));
    }
    dropped += k;
    await until(() => finished >= dropped || daemon.exitCode !== null);
    if (daemon.exitCode !== null) throw new Error(`the daemon exited (${daemon.exitCode}) after ${finished} jobs: ${problems.join('; ')}`);
    if (finished >= nextRow) {
      sample(); // right after a batch: the worker is still there to be measured
      nextRow += every;
    }
    await sleep(gapMs); // idle: ingest, retention
  }
  daemon.kill('SIGTERM');
  const code = await new Promise<number | null>((ok) => daemon.once('exit', (c) => ok(c)));
  if (dropped < n) process.stderr.write(`soak: --minutes reached after ${finished} of ${n} jobs\n`);
  await report(base, rows, { n: finished, asked: n, batch, gapMs, gc, outcomes, problems, code });
}

/** The table as Markdown, the chart as SVG, and the verdict: growth after the first retention pass, and the rate. */
async function report(base: string, rows: Row[], run: { n: number; asked: number; batch: number; gapMs: number; gc: object; outcomes: Record<string, number>; problems: string[]; code: number | null }): Promise<void> {
  const firstGc = rows.findIndex((r) => r.removed > 0);
  const settled = firstGc >= 0 ? rows.slice(firstGc) : [];
  const growth = (k: keyof Row): string => {
    const v = settled.map((r) => r[k]).filter((x): x is number => typeof x === 'number');
    if (v.length < 2) return 'not enough rows after the first retention pass';
    return `${cell(v[0]!)} → ${cell(v[v.length - 1]!)} (max ${cell(Math.max(...v))})`;
  };
  const rate = (part: Row[]): number => part.reduce((a, r) => a + r.rate, 0) / Math.max(1, part.length);
  const q = Math.max(1, Math.floor(rows.length / 4));
  const verdict = [
    `- ${run.n} jobs${run.n < run.asked ? ` (of ${run.asked} asked; stopped by --minutes)` : ''}, batches of ${run.batch} with ${run.gapMs} ms idle after each; retention ${JSON.stringify(run.gc)}; outcomes ${JSON.stringify(run.outcomes)}; daemon exit ${run.code}`,
    `- after the first retention pass (row ${firstGc + 1}): daemon RSS ${growth('daemon_rss_mb')} MB, worker RSS ${growth('worker_rss_mb')} MB, daemon fds ${growth('daemon_fds')}, worker fds ${growth('worker_fds')}, root ${growth('root_mb')} MB, memory index ${growth('memory_mb')} MB, sessions ${growth('sessions')}`,
    `- job rate: first quarter ${rate(rows.slice(0, q)).toFixed(1)}/s, last quarter ${rate(rows.slice(-q)).toFixed(1)}/s`,
    // the rows before the first pass ran without retention's work between batches: the question
    // "does the rate fall?" is asked of the rows after it, its first half against its second
    settled.length >= 2
      ? `- job rate after the first retention pass: first half ${rate(settled.slice(0, Math.floor(settled.length / 2))).toFixed(1)}/s, second half ${rate(settled.slice(Math.floor(settled.length / 2))).toFixed(1)}/s (each row's rate is over its interval, so a row with a large retention pass in it reads lower)`
      : '- job rate after the first retention pass: not enough rows',
    ...(run.problems.length ? [`- error lines: ${run.problems.join('; ')}`] : []),
  ];
  const table = [`| ${COLS.map(([, h]) => h).join(' | ')} |`, `|${COLS.map(() => '---:').join('|')}|`, ...rows.map((r) => `| ${COLS.map(([k]) => cell(r[k])).join(' | ')} |`)];
  writeFileSync(join(base, 'soak.md'), `# Soak\n\n${verdict.join('\n')}\n\n${table.join('\n')}\n\n![soak](soak.svg)\n`);
  const long = rows.flatMap((r) => [
    { jobs: r.jobs, panel: 'resident memory, MB', series: 'daemon', v: r.daemon_rss_mb },
    ...(r.worker_rss_mb !== null ? [{ jobs: r.jobs, panel: 'resident memory, MB', series: 'worker', v: r.worker_rss_mb }] : []),
    { jobs: r.jobs, panel: 'open descriptors', series: 'daemon', v: r.daemon_fds },
    ...(r.worker_fds !== null ? [{ jobs: r.jobs, panel: 'open descriptors', series: 'worker', v: r.worker_fds }] : []),
    { jobs: r.jobs, panel: 'on disk, MB', series: 'root', v: r.root_mb },
    { jobs: r.jobs, panel: 'on disk, MB', series: 'memory index', v: r.memory_mb },
    { jobs: r.jobs, panel: 'jobs per second', series: 'rate', v: r.rate },
  ]);
  const spec: TopLevelSpec = {
    data: { values: long },
    facet: { row: { field: 'panel', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 480, height: 110, mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'jobs', type: 'quantitative', title: 'jobs finished' },
        y: { field: 'v', type: 'quantitative', title: null, scale: { zero: true } },
        color: { field: 'series', type: 'nominal', title: null },
      },
    },
    config: { font: 'sans-serif', view: { stroke: null } },
  };
  writeFileSync(join(base, 'soak.svg'), await renderSvg(spec));
  process.stdout.write(`\n${verdict.join('\n')}\nwritten: ${join(base, 'soak.md')}, ${join(base, 'soak.svg')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
