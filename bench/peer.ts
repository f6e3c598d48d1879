/**
 * The Python picoharness beside this one, for the bench rows that compare with it (issue 24).
 *
 * `PICOHARNESS_SRC` names the Python package's source folder (the one that holds
 * `picoharness/`); it is put on `PYTHONPATH` and a small driver runs the peer in-process on
 * the same input as ours, printing one JSON line. Two drivers:
 *   - ingest: `EpisodicIndex(db).ingest_dir(sessions)` (the API seed 001 documents) over the
 *     very session folders our memory bench generated, timed inside Python;
 *   - jobs: the peer runs the example job in-process. Its package documents no job runner,
 *     so the command is the operator's: `PICOHARNESS_JOBS_CMD` is run with the root and the
 *     job count appended and must print `{"jobs_per_s": N}`.
 * Without the variables the rows say how to get the comparison instead of a number; the bench
 * never fails because the peer is absent.
 */
import { execFileSync } from 'node:child_process';

/** What the peer measured, or why there is no figure. */
export type PeerFigure = { ok: true; value: number } | { ok: false; why: string };

const INGEST_DRIVER = `
import json, sys, time
from picoharness.memory import EpisodicIndex
db, sessions = sys.argv[1], sys.argv[2]
ix = EpisodicIndex(db)
t0 = time.perf_counter(); c0 = time.process_time()
ix.ingest_dir(sessions)
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
print(json.dumps({"wall_s": wall, "cpu_s": cpu}))
`;

/** The peer's source folder, or the message a row shows when it is not set. */
export function peerSource(): string | null {
  return process.env.PICOHARNESS_SRC || null;
}

export const NO_PEER = 'not compared: set PICOHARNESS_SRC to the Python picoharness source folder';

/** Run the peer's ingest over `sessions` into a new database `db`; events/s by its wall and CPU clocks. */
export function peerIngest(sessions: string, db: string, events: number): { wall: PeerFigure; cpu: PeerFigure } {
  const src = peerSource();
  if (!src) return { wall: { ok: false, why: NO_PEER }, cpu: { ok: false, why: NO_PEER } };
  try {
    const out = execFileSync('python3', ['-c', INGEST_DRIVER, db, sessions], {
      encoding: 'utf8', env: { ...process.env, PYTHONPATH: [src, process.env.PYTHONPATH].filter(Boolean).join(':') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { wall_s: number; cpu_s: number };
    return { wall: { ok: true, value: events / r.wall_s }, cpu: { ok: true, value: events / r.cpu_s } };
  } catch (err) {
    const why = `the Python peer at ${src} failed: ${((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').pop()}`;
    return { wall: { ok: false, why }, cpu: { ok: false, why } };
  }
}

/** The peer's jobs/s on the example job, run by PICOHARNESS_JOBS_CMD ROOT JOBS. */
export function peerJobs(root: string, jobs: number): PeerFigure {
  const src = peerSource();
  if (!src) return { ok: false, why: NO_PEER };
  const cmd = process.env.PICOHARNESS_JOBS_CMD;
  if (!cmd) return { ok: false, why: 'not compared: the Python picoharness documents no job runner; set PICOHARNESS_JOBS_CMD to a command that runs the example job in-process and prints {"jobs_per_s": N} (ROOT and JOBS are appended)' };
  try {
    const out = execFileSync('sh', ['-c', `${cmd} "$0" "$1"`, root, String(jobs)], {
      encoding: 'utf8', env: { ...process.env, PYTHONPATH: [src, process.env.PYTHONPATH].filter(Boolean).join(':') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const rate = (JSON.parse(out.trim().split('\n').pop()!) as { jobs_per_s: number }).jobs_per_s;
    return Number.isFinite(rate) && rate > 0 ? { ok: true, value: rate } : { ok: false, why: `PICOHARNESS_JOBS_CMD printed no positive jobs_per_s (${out.trim().slice(0, 80)})` };
  } catch (err) {
    return { ok: false, why: `PICOHARNESS_JOBS_CMD failed: ${((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').pop()}` };
  }
}
