/**
 * `pico run JOB.json [--root DIR] [--json]`: run one job in the foreground
 * through exactly the code the daemon uses, print the answer, exit 0 when
 * answered (1 when partial or declined).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newSessionId } from '../ledger/session-id.js';
import { createLogger } from '../log.js';
import { parseJob } from '../runtime/job.js';
import { writeFileAtomicSync } from '../durable-file.js';
import { describeInvalidUtf8, firstInvalidUtf8 } from '../utf8.js';
import { openRuntime } from '../runtime/runtime.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico run JOB.json [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  if (positionals.length !== 1) throw new UsageError(`name one job file\nusage: ${USAGE}`);
  const root = rootOf(values);
  const file = resolve(positionals[0]!);
  let raw: unknown;
  try {
    const bytes = readFileSync(file);
    const bad = firstInvalidUtf8(bytes);
    if (bad !== null) throw new UsageError(`${file}: ${describeInvalidUtf8(bytes, bad)}; save the job file as UTF-8`);
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file}: cannot read the job as JSON (${(err as Error).message}); a job file is one JSON object, see README "Job files"`);
  }
  const job = parseJob(raw, file);
  const log = createLogger({ to: 'stderr', level: 'warn' });
  // Ctrl-C or SIGTERM: exit through process.exit, so the execution world's exit hook kills the
  // running tool's process group instead of leaving it behind (the session can be resumed).
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(128 + (sig === 'SIGINT' ? 2 : 15)));
  const rt = await openRuntime(root, { log });
  try {
    const id = newSessionId();
    const dir = rt.sessionDir(id);
    mkdirSync(dir, { recursive: true });
    writeFileAtomicSync(join(dir, 'job.json'), JSON.stringify(job, null, 2) + '\n');
    const result = await rt.runSession(id, { job });
    const doc = result.resultPath ? JSON.parse(readFileSync(result.resultPath, 'utf8')) : result;
    emit(!!values.json, doc, () => `${result.answer ?? '(no answer)'}\n\n[${result.outcome}] session ${id} — pico show ${id} --root ${root}`);
    return result.outcome === 'answered' ? EXIT.ok : EXIT.negative;
  } finally {
    await rt.close();
  }
}
