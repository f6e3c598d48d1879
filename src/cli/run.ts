/**
 * `pico run JOB.json [--root DIR] [--json]`: run one job in the foreground
 * through exactly the code the daemon uses, print the answer, exit 0 when
 * answered (1 when partial or declined). A job this root cannot run (bad
 * JSON, not UTF-8, too deep, a tool, capability or schema it does not know)
 * is the user's error: exit 2 with the problem and the fix, before any
 * session is made. While it runs, each step's start, attempts and end (committed, or failed
 * and why) go to stderr, and during a provider call one live line with the tokens generated so
 * far (rewritten in place on a terminal, a plain line every 2 s otherwise; src/cli/progress-view.ts).
 * `--json` prints only the result document. The finished session is then ingested into the
 * root's memory exactly as the daemon's worker does between jobs (src/daemon/seams.ts), so
 * failure memory, the cost model and the trajectory cache learn from foreground runs too; a
 * failed ingest is a warning (the ledger is safe, `pico memory rebuild` reads it again).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newSessionId } from '../ledger/session-id.js';
import { createLogger } from '../base/log.js';
import { JobError, parseJob, type Job } from '../runtime/job.js';
import { checkJobAgainstRegistry, describeProblems } from '../runtime/job-check.js';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { readNamedJson } from '../base/named-file.js';
import { DEFAULT_MAX_JOB_BYTES } from '../daemon/inspect.js';
import { openRuntime } from '../root/runtime.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';
import { runProgress } from './progress-view.js';
import { openRealMemory } from '../daemon/memory-seam.js';

const USAGE = 'pico run JOB.json [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`name one job file\nusage: ${USAGE}`);
  const file = resolve(positionals[0]!);
  const read = readNamedJson(file, 'job file', DEFAULT_MAX_JOB_BYTES);
  if ('problem' in read) throw new UsageError(`${read.problem}\nfix: ${read.fix}`);
  const raw = read.value;
  const job = parseJob(raw, file);
  return runForeground(rootOf(values), job, { json: !!values.json, source: file });
}

/**
 * Run one job in the foreground (pico run, pico ask): its progress on stderr, the answer (or with
 * `json` the result document) on stdout, the session ingested into memory; exit 0 when answered,
 * 1 when partial, declined or cancelled. `source` names where the job came from in an error.
 */
export async function runForeground(root: string, job: Job, o: { json: boolean; source: string }): Promise<number> {
  const log = createLogger({ to: 'stderr', level: 'warn' });
  // Ctrl-C or SIGTERM: exit through process.exit, so the execution world's exit hook kills the
  // running tool's process group instead of leaving it behind (the session can be resumed).
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(128 + (sig === 'SIGINT' ? 2 : 15)));
  const rt = await openRuntime(root, { log });
  try {
    // names this root does not know are the user's mistake, not a session to decline
    const problems = checkJobAgainstRegistry(job, rt.registry);
    if (problems.length > 0) throw new JobError(`${o.source}: ${describeProblems(problems)}`, problems.map((p) => p.fix).join('; '));
    const id = newSessionId();
    const dir = rt.sessionDir(id);
    mkdirSync(dir, { recursive: true });
    writeFileAtomicSync(join(dir, 'job.json'), JSON.stringify(job, null, 2) + '\n');
    // progress goes to stderr, so the answer alone is on stdout; --json prints the result document only
    const progress = o.json ? null : runProgress(process.stderr, `pico show ${id} --root ${root} --full`);
    let result: Awaited<ReturnType<typeof rt.runSession>>;
    try {
      result = await rt.runSession(id, { job, ...(progress ? { onEvent: progress.onEvent, onProgress: progress.onProgress } : {}) });
    } finally {
      progress?.close();
    }
    await ingest(root, dir, log);
    const doc = result.resultPath ? JSON.parse(readFileSync(result.resultPath, 'utf8')) : result;
    emit(o.json, doc, () => `${result.answer ?? '(no answer)'}\n\n[${result.outcome}] session ${id} — pico show ${id} --root ${root}`);
    return result.outcome === 'answered' ? EXIT.ok : EXIT.negative;
  } finally {
    await rt.close();
  }
}

/** Ingest one finished session into the root's memory, as the daemon's worker does (a failure is a warning). */
async function ingest(root: string, dir: string, log: ReturnType<typeof createLogger>): Promise<void> {
  const memory = await openRealMemory(root, log);
  if (!memory) return;
  try {
    await memory.ingestSessions([dir]);
  } catch (err) {
    log.warn({ event: 'memory', session: dir, err }, `memory ingest of the session failed (${(err as Error).message}); it is safe on disk and can be ingested again later (pico memory rebuild)`);
  } finally {
    await memory.close?.();
  }
}
