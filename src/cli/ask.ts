/**
 * `pico ask "QUESTION" [--submit] [--budget-class CLASS] [--root DIR] [--json]`:
 * the front door — a question typed on the command line, answered.
 *
 * The words become the job a job file would hold (src/jobs/goal.ts: the goal,
 * budget class `attended` unless --budget-class names another), so a question asked
 * here is planned and answered exactly as one submitted by file or over the
 * API. Without --submit it runs in the foreground through the code `pico run`
 * uses: live progress on stderr, the answer alone on stdout. With --submit it
 * is handed to the daemon serving the root and followed to its answer as
 * `pico watch` follows a job (progress on stderr, the answer on stdout); with
 * no daemon serving the root it is not submitted at all. `--json` prints only
 * the result document (result.json). The words after `ask` are the question,
 * quoted or not.
 *
 * Exit codes (the shared table of args.ts): 0 answered; 1 partial, declined
 * or cancelled, or (--submit) a job that waits for a person's approval or
 * whose daemon stopped serving; 2 no question, a question too long, an
 * unknown budget class, or --submit with no daemon serving the root; 3 the
 * root's manifests do not load; 4 a bug.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { readLedger } from '../ledger/ledger.js';
import { resultFromEvents, type SessionResultDoc } from '../runtime/result.js';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { whyUnserved } from '../daemon/status.js';
import { dropIntoInbox } from '../daemon/submit.js';
import { goalJob } from '../jobs/goal.js';
import { parseJob, type Job } from '../runtime/job.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';
import { runForeground } from './run.js';
import { followJob } from './watch.js';

/** How long to wait for the daemon's result.json once the answer is in the ledger, before it is read from the ledger itself. */
const RESULT_WAIT_MS = 10_000;

const USAGE = 'pico ask "QUESTION" [--submit] [--budget-class interactive|attended|background|batch] [--root DIR] [--json]';

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, submit: { type: 'boolean' }, 'budget-class': { type: 'string' } }, USAGE);
  const goal = positionals.join(' ').trim();
  if (!goal) throw new UsageError(`ask a question, e.g. pico ask "Why is the disk full?"\nusage: ${USAGE}`);
  const job = parseJob(goalJob(goal, { label: values.submit ? 'pico ask --submit' : 'pico ask', ...(values['budget-class'] ? { budget_class: values['budget-class'] } : {}) }), 'pico ask');
  const root = rootOf(values);
  if (!values.submit) return runForeground(root, job, { json: !!values.json, source: 'pico ask' });
  return submitAndFollow(root, job, !!values.json);
}

/** Hand the job to the daemon serving `root` and follow it to its answer. */
async function submitAndFollow(root: string, job: Job, json: boolean): Promise<number> {
  const paths = daemonPaths(root);
  const unserved = whyUnserved(paths);
  if (unserved) {
    throw new UsageError(`no daemon serves ${root} (${unserved}), so nothing would answer; start one with \`pico daemon --root ${root}\` (npm start in a checkout, systemctl start picoharness when installed), or ask without --submit to answer in the foreground`);
  }
  // the daemon may be another user of the root's group: the job file is group-readable whatever the umask
  process.umask(0o027);
  const { id } = await dropIntoInbox(Buffer.from(JSON.stringify(job)), root);
  if (!json) process.stderr.write(`job ${id} submitted; following it (pico watch ${id} --root ${root})\n`);
  // progress on stderr; the answer, whole, on stdout at the end
  const f = await followJob(root, id, { quiet: json, out: process.stderr, who: 'pico ask', skip: (type) => type === 'answer_sent' });
  if (f.end === 'waiting' && json) emit(true, { job: id, session: id, state: 'waiting' }, () => '');
  if (f.end !== 'closed') return f.end === 'interrupted' ? 130 : EXIT.negative;
  // the answer is in the ledger first; the daemon writes result.json from it a moment later
  const files = sessionFiles(paths, id);
  for (let waited = 0; !existsSync(files.result) && waited < RESULT_WAIT_MS; waited += 50) await sleep(50);
  const doc = existsSync(files.result) ? JSON.parse(readFileSync(files.result, 'utf8')) as SessionResultDoc : resultFromEvents(id, readLedger(files.dir));
  emit(json, doc, () => `${doc.answer}\n\n[${doc.outcome}] session ${id} — pico show ${id} --root ${root}`);
  return doc.outcome === 'answered' ? EXIT.ok : EXIT.negative;
}
