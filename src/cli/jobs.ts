/**
 * `pico jobs [--state queued|running|waiting|done] [--limit N] [--root DIR] [--json]`:
 * one row per job — id, budget class, state, outcome, age, goal — read from
 * the root's files (src/jobs/list.ts). On a terminal the goal is cut to the
 * window's width with an ellipsis; piped or with --json it is whole.
 */
import { JOB_STATES, listJobs, type JobInfo, type JobState } from '../jobs/list.js';
import { jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico jobs [--state queued|running|waiting|done] [--limit N] [--root DIR] [--json]';

/** "45s", "12m", "3h", "5d": how long ago. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/** The table a person reads; the last column is cut to `width` (null: not cut). */
function table(jobs: readonly JobInfo[], now: number, width: number | null): string {
  const rows = jobs.map((j) => [j.id, j.budget_class ?? '?', j.state + (j.cancel_requested ? '*' : ''), j.outcome ?? (j.step ? `step ${j.step}` : '-'), ago(now - Date.parse(j.submitted_at)), j.goal ?? '(job file does not parse)']);
  const head = ['ID', 'CLASS', 'STATE', 'OUTCOME', 'AGE', 'GOAL'];
  const widths = head.slice(0, 5).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => {
    const left = r.slice(0, 5).map((c, i) => c.padEnd(widths[i]!)).join('  ') + '  ';
    let goal = r[5]!.replace(/\s+/g, ' ');
    if (width !== null) {
      const room = Math.max(10, width - left.length);
      if (goal.length > room) goal = `${goal.slice(0, room - 1)}…`;
    }
    return left + goal;
  };
  const notes = jobs.some((j) => j.cancel_requested) ? '\n* a cancel was asked for and takes effect after the current step' : '';
  return [line(head), ...rows.map(line)].join('\n') + notes;
}

/** Entry point of `pico jobs`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, state: { type: 'string' }, limit: { type: 'string' } }, USAGE);
  if (positionals.length > 0) throw new UsageError(`takes no positional arguments, got ${JSON.stringify(positionals)}\nusage: ${USAGE}`);
  const state = values.state;
  if (state !== undefined && !(JOB_STATES as readonly string[]).includes(state)) throw new UsageError(`--state must be one of ${JOB_STATES.join(', ')}, got "${state}"\nusage: ${USAGE}`);
  const limit = values.limit === undefined ? null : Number(values.limit);
  if (limit !== null && !(Number.isInteger(limit) && limit > 0)) throw new UsageError(`--limit must be a positive whole number, got "${values.limit}"\nusage: ${USAGE}`);
  const root = rootOf(values);
  let jobs = listJobs(root, state ? { state: state as JobState } : {});
  if (limit !== null) jobs = jobs.slice(-limit); // the newest
  if (values.json) {
    process.stdout.write(JSON.stringify({ root, jobs }, null, 2) + '\n');
    return 0;
  }
  if (jobs.length === 0) {
    process.stdout.write(`no ${state ? `${state} ` : ''}jobs in ${root}${state ? '' : ` (submit one: pico submit FILE --root ${root})`}\n`);
    return 0;
  }
  const width = process.stdout.isTTY ? process.stdout.columns ?? 80 : null;
  process.stdout.write(table(jobs, Date.now(), width) + '\n');
  return 0;
}
