/**
 * The daemon's intake reads job files without loading zod when it can.
 *
 * zod and the job@1 schema cost the daemon process about 8 MB of resident
 * memory for as long as it runs (its idle goal is 50 MB, a bare node is 42),
 * and the host has to read every job to queue it by budget class. So the
 * host first asks `acceptJob`, a plain check that accepts only what job@1
 * (src/runtime/job.ts) accepts and returns what its parse returns (the
 * default `args: {}` included, fields in the schema's order). Anything it does
 * not accept outright — a job with any problem, or one it is unsure of — goes
 * to the real parse, loaded then, which decides and words the error. So no
 * job is judged by this file alone: it can only say "certainly valid", and
 * the rules it repeats are held to the schema's by test/daemon/job-quick.test.ts.
 * The session worker, which loads the runtime anyway, parses with job.ts as before.
 */
import type { Job, JobStep } from '../runtime/job.js';
import { jobShapeProblem } from '../runtime/job-limits.js';
import { BUDGET_CLASSES } from '../base/budget-classes.js';

const STEP_NAME = /^[A-Za-z0-9_-]{1,40}$/;
const VERSIONED = /^[a-z][a-z0-9_]*@[0-9]+$/;
const ONE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const JOB_KEYS = new Set(['job', 'goal', 'budget_class', 'plan', 'label', 'sample']);
const STEP_KEYS = new Set(['step', 'tool', 'args', 'capability', 'schema', 'from']);

function plainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

function onlyKeys(v: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  return Object.keys(v).every((k) => keys.has(k));
}

const str = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.length >= min && v.length <= max;

/** One plan step as job@1 returns it, or null when it is not certainly valid. */
function acceptStep(s: unknown): JobStep | null {
  if (!plainObject(s) || !onlyKeys(s, STEP_KEYS)) return null;
  const { step, tool, args, capability, schema, from } = s;
  if (typeof step !== 'string' || !STEP_NAME.test(step)) return null;
  if (tool !== undefined && !str(tool, 1, Infinity)) return null;
  if (args !== undefined && !plainObject(args)) return null;
  if (typeof capability !== 'string' || !VERSIONED.test(capability)) return null;
  if (typeof schema !== 'string' || !VERSIONED.test(schema)) return null;
  if (from !== undefined && !(Array.isArray(from) && from.every((f) => typeof f === 'string' && STEP_NAME.test(f)))) return null;
  if (tool !== undefined && from !== undefined) return null;
  const out: Record<string, unknown> = { step };
  if (tool !== undefined) out.tool = tool;
  out.args = args === undefined ? {} : { ...args };
  out.capability = capability;
  out.schema = schema;
  if (from !== undefined) out.from = [...(from as string[])];
  return out as JobStep;
}

/** The job as job@1's parse returns it when `value` is certainly a valid job@1; null when the real parse must decide. */
export function acceptJob(value: unknown): Job | null {
  if (jobShapeProblem(value) !== null) return null;
  if (!plainObject(value) || !onlyKeys(value, JOB_KEYS)) return null;
  const { job, goal, budget_class, plan, label, sample } = value;
  if (job !== 'job@1' || !str(goal, 1, 2000)) return null;
  if (typeof budget_class !== 'string' || !(BUDGET_CLASSES as readonly string[]).includes(budget_class)) return null;
  if (label !== undefined && !str(label, 0, 200)) return null;
  if (sample !== undefined && !(str(sample, 1, 200) && ONE_LINE.test(sample))) return null;
  let steps: JobStep[] | undefined;
  if (plan !== undefined) {
    if (!Array.isArray(plan) || plan.length < 1 || plan.length > 8) return null;
    steps = [];
    const seen = new Set<string>();
    for (const raw of plan) {
      const s = acceptStep(raw);
      if (!s || seen.has(s.step) || (s.from ?? []).some((f) => !seen.has(f))) return null;
      seen.add(s.step);
      steps.push(s);
    }
  }
  const out: Record<string, unknown> = { job, goal, budget_class };
  if (steps !== undefined) out.plan = steps;
  if (label !== undefined) out.label = label;
  if (sample !== undefined) out.sample = sample;
  return out as Job;
}

/** The job in `value` (a parsed job file named `where`): the quick check, else job@1's parse, loaded now; a JobError when it is not one. */
export async function parseJobFile(value: unknown, where: string): Promise<Job> {
  const quick = acceptJob(value);
  if (quick) return quick;
  const { parseJob } = await import('../runtime/job.js');
  return parseJob(value, where);
}

/** The message and fix of a JobError (from job.ts, which this module does not load to ask), else null. */
export function jobErrorOf(err: unknown): { message: string; fix: string } | null {
  if (!(err instanceof Error) || err.name !== 'JobError') return null;
  const fix = (err as Error & { fix?: unknown }).fix;
  return typeof fix === 'string' ? { message: err.message, fix } : null;
}
