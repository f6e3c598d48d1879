/**
 * The daemon bench's reference: the same example jobs run one after another by
 * the runtime alone (no daemon, no inbox, no worker hand-over), on a root of
 * its own whose sessions are claimed by hand before the clock starts.
 *
 * `node dist/bench/runtime-alone.js ROOT JOBS` prints `{"jobs_per_s": …}`. The
 * daemon bench runs it as a fresh process each time, so its code starts as
 * cold as a new session worker's (one warm-up job, then the timed ones); run
 * in the bench's own process, later rounds would run on warm code and make the
 * daemon look slower against it than it is.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { newSessionId } from '../src/ledger/session-id.js';
import { initRoot } from '../src/root/init.js';
import { openRuntime } from '../src/root/runtime.js';

/** Make ROOT like `pico init`, claim JOBS + 1 example jobs by hand, run them; jobs/s of all but the first. */
export async function runtimeAlone(root: string, jobs: number): Promise<number> {
  initRoot(root);
  const job = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'));
  const ids = Array.from({ length: jobs + 1 }, () => {
    const id = newSessionId();
    const dir = join(root, 'sessions', id);
    mkdirSync(dir);
    writeFileSync(join(dir, 'job.json'), job);
    return id;
  });
  // watching the manifest folders as the session worker does (worker.ts), so a job does not stat them all
  const rt = await openRuntime(root, { log: pino({ level: 'silent' }), watchManifests: true });
  try {
    await rt.runSession(ids.shift()!); // warm-up, as the daemon's first job
    const t0 = performance.now();
    for (const id of ids) await rt.runSession(id);
    return (jobs / (performance.now() - t0)) * 1000;
  } finally {
    await rt.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [root, jobs] = [process.argv[2], Number(process.argv[3])];
  if (!root || !Number.isInteger(jobs) || jobs < 1) {
    process.stderr.write('usage: node dist/bench/runtime-alone.js ROOT JOBS   (ROOT: an empty folder)\n');
    process.exitCode = 2;
  } else {
    runtimeAlone(root, jobs).then(
      (rate) => process.stdout.write(`${JSON.stringify({ jobs_per_s: rate })}\n`),
      (err: unknown) => {
        process.stderr.write(`runtime-alone: ${(err as Error).stack ?? String(err)}\n`);
        process.exitCode = 1;
      },
    );
  }
}
