/**
 * `pico watch JOB --root DIR [--json]` — follow a job's ledger live until it ends.
 *
 * JOB is the id `pico submit` printed (= the session id). Prints one
 * readable line per event (`--json`: the raw ledger lines), a step's end with
 * how long the step took, the answer whole, and while a provider call runs one
 * live line with its tokens so far (read from the worker's side file,
 * src/progress/side-file.ts; rewritten in place on a terminal, a plain line
 * every 2 s otherwise). A value cut on a line says where the rest is. A job still in
 * the inbox or queue is waited for; a job that was rejected prints its
 * reason. Exit 0 when the session ends answered or partial, 1 when declined
 * or rejected, 2 on usage errors and an id the root does not know. The watch ends when the session
 * closes (an answer, or a result.json written without one); while it has
 * not, it checks every second that a daemon serves the root, and when none
 * does it says so and exits 1 instead of waiting for ever. A session that waits for a person
 * (a destructive step, src/approval/) is said to wait, with the commands that decide it, and the
 * watch exits 0.
 */
import { visible } from '../base/log-pretty.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSessionId } from '../ledger/session-id.js';
import { describeLine } from '../daemon/describe.js';
import { findRejection } from '../daemon/reject.js';
import { daemonPaths, sessionFiles } from '../daemon/paths.js';
import { followLedger } from '../daemon/tail.js';
import { whyUnserved as noDaemon, waitingInStatus } from '../daemon/status.js';
import { jsonOption, parse, rootOf, rootOption } from './args.js';
import { watchProgress } from './progress-view.js';

const USAGE = 'pico watch JOB [--root DIR] [--json]';
/** How often a watch checks that a daemon still serves the root. */
const SERVED_CHECK_MS = 1000;

/** Entry point of `pico watch`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption }, USAGE);
  const id = positionals[0];
  if (positionals.length !== 1 || !id || !isSessionId(id)) {
    process.stderr.write(`pico watch: expected one JOB id like 20261129-113512-3fa9c01b2d4e (as printed by pico submit), got ${JSON.stringify(positionals)}\n`);
    return 2;
  }
  const f = await followJob(rootOf(values), id, { raw: !!values.json, out: process.stdout, who: 'pico watch' });
  if (f.end === 'waiting') return 0;
  if (f.end === 'interrupted') return 130;
  if (f.end === 'no_job') return 2;
  return f.outcome === 'answered' || f.outcome === 'partial' ? 0 : 1;
}

/** How a followed job ended: its outcome, or why the following stopped without one. */
export interface Followed {
  end: 'closed' | 'waiting' | 'unserved' | 'interrupted' | 'unknown' | 'no_job';
  outcome: string | null;
}

/**
 * Follow job `id` of `root` to its end, writing to `out` one readable line per event with the
 * live progress (or, `raw`, the ledger lines as they are; `quiet`, nothing): what `pico watch`
 * prints, and what `pico ask --submit` shows while the daemon answers. Problems (no such job, a
 * rejection, no daemon) go to stderr under `who`; a session that waits for a person is said on `out`.
 */
export async function followJob(root: string, id: string, o: { raw?: boolean; quiet?: boolean; out: NodeJS.WriteStream; who: string; skip?: (type: string) => boolean }): Promise<Followed> {
  const paths = daemonPaths(root);
  const files = sessionFiles(paths, id);
  const known = (): boolean => existsSync(files.dir) || existsSync(join(paths.inbox, `${id}.json`));
  if (!known()) {
    const rej = findRejection(paths.rejected, id);
    if (rej) {
      process.stderr.write(`${o.who}: job ${id} was rejected: ${rej.problem}\n  fix: ${rej.fix}\n`);
      return { end: 'unknown', outcome: null };
    }
    // an id the root does not know is the person's mistake, as it is for cancel and retry
    process.stderr.write(`${o.who}: no job ${id} under ${paths.sessions} (not in the inbox, not claimed); check the id and --root\n`);
    return { end: 'no_job', outcome: null };
  }
  const stop = new AbortController();
  const onInt = (): void => stop.abort();
  process.once('SIGINT', onInt);
  let outcome: string | null = null;
  // a claimed job only moves while a daemon serves the root: without one, say so instead of waiting for ever
  let unserved: string | null = null;
  let waits: { step: string; tool: string | null } | null = null;
  const look = (): void => {
    if (existsSync(files.result)) return;
    const w = waitingInStatus(paths, id);
    if (w && !stop.signal.aborted) {
      waits = w;
      return stop.abort();
    }
    const why = noDaemon(paths);
    if (why && !stop.signal.aborted) {
      unserved = why;
      stop.abort();
    }
  };
  look();
  const timer = setInterval(look, SERVED_CHECK_MS);
  const more = `pico show ${id} --root ${paths.root} --full`;
  // a person sees, beside each event, how long its step took, and the live tokens of a call in flight
  const progress = o.raw || o.quiet ? null : watchProgress(o.out, files.dir, id, more);
  try {
    for await (const line of followLedger(files.ledger, files.result, { signal: stop.signal, vanished: () => !known() })) {
      let e: { type?: string; outcome?: string } | null = null;
      try {
        e = JSON.parse(line) as { type?: string; outcome?: string };
      } catch {
        // describeLine shows it as unreadable
      }
      if (e?.type === 'answer_sent') outcome = e.outcome ?? null;
      if (o.quiet) continue;
      if (!progress) o.out.write(`${visible(line)}\n`); // a JSON line holds no raw control character; a torn one is defanged
      else if (!(e?.type && o.skip?.(e.type))) progress.line(`${describeLine(line, more)}${e && typeof e === 'object' ? progress.onEvent(e as Record<string, unknown>) : ''}`);
      else if (e && typeof e === 'object') progress.onEvent(e as Record<string, unknown>);
    }
  } finally {
    progress?.close();
    process.off('SIGINT', onInt);
    clearInterval(timer);
  }
  if (unserved !== null && outcome === null && !existsSync(files.result)) {
    process.stderr.write(`${o.who}: no daemon serves ${paths.root} (${unserved}); job ${id} waits until one runs: start it with \`pico daemon --root ${paths.root}\` (or systemctl start picoharness), then watch again\n`);
    return { end: 'unserved', outcome: null };
  }
  if (waits !== null && outcome === null) {
    const w = waits as { step: string; tool: string | null };
    o.out.write(`session ${id} waits for a person to approve step ${w.step}${w.tool ? ` (${w.tool})` : ''}: pico approve ${id} ${w.step}, or pico deny ${id} ${w.step}; then watch again\n`);
    return { end: 'waiting', outcome: null };
  }
  if (stop.signal.aborted && unserved === null) return { end: 'interrupted', outcome };
  if (outcome === null && !known()) {
    const rej = findRejection(paths.rejected, id);
    process.stderr.write(`${o.who}: job ${id} left the inbox without a session${rej ? `: rejected: ${rej.problem}\n  fix: ${rej.fix}` : ''}\n`);
    return { end: 'unknown', outcome: null };
  }
  if (outcome === null && existsSync(files.result)) {
    outcome = (JSON.parse(readFileSync(files.result, 'utf8')) as { outcome?: string }).outcome ?? null;
    if (!o.raw && !o.quiet) o.out.write(`(session closed without an answer event: outcome ${outcome ?? 'unknown'}; see ${files.result})\n`);
  }
  return { end: 'closed', outcome };
}
