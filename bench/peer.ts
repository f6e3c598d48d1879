/**
 * The Python picoharness beside this one, for the bench rows that compare with it (issues 24, 32).
 *
 * The peer is found by itself: `../shared/anchors/picoharness-py/src` beside the checkout (the
 * shared folder of the development machines) when it exists, or the folder `PICOHARNESS_SRC`
 * names (empty: no peer). Its source folder (the one that holds `picoharness/`) goes on
 * `PYTHONPATH`, and a small driver runs the peer in-process on the same input as ours, printing
 * one JSON line. Two drivers:
 *   - ingest: `EpisodicIndex(db).ingest_dir(sessions)` (the API seed 001 documents) over the
 *     very session folders our memory bench generated, timed inside Python, with the facts and
 *     failures it indexed (the rows say when they differ from ours);
 *   - jobs: the peer runs its own three-step, code-only task in-process. Its package documents
 *     no job runner, so the command is `../shared/tools/peer/jobs_cmd.py` when it exists, or
 *     `PICOHARNESS_JOBS_CMD`: it is run with the root and the job count appended and must print
 *     `{"jobs_per_s": N}`.
 * Without a peer the rows say why instead of a number; the bench never fails because it is absent.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_DIR } from '../src/base/package.js';

/** What the peer measured, or why there is no figure. */
export type PeerFigure = { ok: true; value: number } | { ok: false; why: string };

/** The shared folder of the development machines, beside the checkout (never a user's path). */
const SHARED = join(PACKAGE_DIR, '..', 'shared');
const SHARED_SRC = join(SHARED, 'anchors', 'picoharness-py', 'src');
const SHARED_JOBS_CMD = join(SHARED, 'tools', 'peer', 'jobs_cmd.py');

const INGEST_DRIVER = `
import json, sys, time
from picoharness.memory import EpisodicIndex
db, sessions = sys.argv[1], sys.argv[2]
ix = EpisodicIndex(db)
t0 = time.perf_counter(); c0 = time.process_time()
ix.ingest_dir(sessions)
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
facts = ix.conn.execute("select count(*) from fact").fetchone()[0]
failures = ix.conn.execute("select count(*) from failure").fetchone()[0]
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "facts": facts, "failures": failures}))
`;

/** The peer's source folder, or why there is none. */
export function peerSource(): { src: string } | { why: string } {
  const env = process.env.PICOHARNESS_SRC;
  if (env !== undefined) {
    if (env === '') return { why: 'not compared: PICOHARNESS_SRC is empty (no peer asked for)' };
    const src = resolve(env);
    return existsSync(join(src, 'picoharness')) ? { src } : { why: `not compared: PICOHARNESS_SRC=${env} holds no picoharness/ package` };
  }
  if (existsSync(join(SHARED_SRC, 'picoharness'))) return { src: SHARED_SRC };
  return { why: `not compared: no Python picoharness at ${SHARED_SRC}; set PICOHARNESS_SRC to its source folder` };
}

/** PYTHONPATH with the peer's source first. */
function pythonEnv(src: string): NodeJS.ProcessEnv {
  return { ...process.env, PICOHARNESS_SRC: src, PYTHONPATH: [src, process.env.PYTHONPATH].filter(Boolean).join(':') };
}

/** The last line of a failed command's stderr (or its message). */
function lastLine(err: unknown): string {
  return ((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').pop() ?? '';
}

export interface PeerIngest {
  wall: PeerFigure;
  cpu: PeerFigure;
  /** what the peer indexed, to hold against ours (null: it did not run) */
  counts: { facts: number; failures: number } | null;
}

/** Run the peer's ingest over `sessions` into a new database `db`; events/s by its wall and CPU clocks. */
export function peerIngest(sessions: string, db: string, events: number): PeerIngest {
  const found = peerSource();
  if ('why' in found) return { wall: { ok: false, why: found.why }, cpu: { ok: false, why: found.why }, counts: null };
  try {
    const out = execFileSync('python3', ['-c', INGEST_DRIVER, db, sessions], { encoding: 'utf8', env: pythonEnv(found.src), stdio: ['ignore', 'pipe', 'pipe'] });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { wall_s: number; cpu_s: number; facts: number; failures: number };
    return { wall: { ok: true, value: events / r.wall_s }, cpu: { ok: true, value: events / r.cpu_s }, counts: { facts: r.facts, failures: r.failures } };
  } catch (err) {
    const why = `the Python peer at ${found.src} failed: ${lastLine(err)}`;
    return { wall: { ok: false, why }, cpu: { ok: false, why }, counts: null };
  }
}

/** The peer's jobs/s on its own three-step task, run by the jobs command with ROOT JOBS appended. */
export function peerJobs(root: string, jobs: number): PeerFigure {
  const found = peerSource();
  if ('why' in found) return { ok: false, why: found.why };
  const cmd = process.env.PICOHARNESS_JOBS_CMD || (existsSync(SHARED_JOBS_CMD) ? SHARED_JOBS_CMD : null);
  if (!cmd) return { ok: false, why: `not compared: the Python picoharness documents no job runner and ${SHARED_JOBS_CMD} is not there; set PICOHARNESS_JOBS_CMD to a command that runs a job in-process and prints {"jobs_per_s": N} (ROOT and JOBS are appended)` };
  try {
    const out = execFileSync('sh', ['-c', `${cmd} "$0" "$1"`, root, String(jobs)], { encoding: 'utf8', env: pythonEnv(found.src), stdio: ['ignore', 'pipe', 'pipe'] });
    const rate = (JSON.parse(out.trim().split('\n').pop()!) as { jobs_per_s: number }).jobs_per_s;
    return Number.isFinite(rate) && rate > 0 ? { ok: true, value: rate } : { ok: false, why: `the peer's jobs command printed no positive jobs_per_s (${out.trim().slice(0, 80)})` };
  } catch (err) {
    return { ok: false, why: `the peer's jobs command (${cmd}) failed: ${lastLine(err)}` };
  }
}
