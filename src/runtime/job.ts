/**
 * job@1 — what an operator submits (T0).
 *
 * A job names a goal, a budget class and, optionally, a plan: steps that
 * each run a tool and reduce its output with a capability into a schema, or
 * (with `from`) reduce earlier steps' facts, as the final `answer@1` step
 * does. An operator's plan runs as written; a job with only a goal is planned
 * by the `plan@1` control capability from trusted input alone (src/agent/).
 * Strict: an unknown field is an error naming the field, never ignored.
 */
import { z } from 'zod';
import { budgetClassSchema, capabilityId, schemaId } from '../base/ids.js';
import { jobShapeProblem } from './job-limits.js';
import { nearest } from '../base/near.js';

const stepName = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, '1-40 letters, digits, "_" or "-"');

export const jobStepSchema = z
  .strictObject({
    step: stepName,
    /** the tool whose output this step reduces; omit to reduce earlier facts (see `from`) */
    tool: z.string().min(1).optional(),
    args: z.record(z.string(), z.unknown()).default({}),
    capability: capabilityId,
    schema: schemaId,
    /** earlier steps whose facts are this step's input; default: all earlier steps */
    from: z.array(stepName).optional(),
  })
  .refine((s) => !(s.tool && s.from), { message: 'a step takes its input from a tool or from earlier steps, not both' });

export const jobSchema = z
  .strictObject({
    job: z.literal('job@1'),
    goal: z.string().min(1).max(2000),
    budget_class: budgetClassSchema,
    /** the operator's plan; leave it out and the plan@1 capability plans the goal (a playbook, else a model) */
    plan: z.array(jobStepSchema).min(1).max(8).optional(),
    /** optional operator label; the session id is assigned by picoharness */
    label: z.string().max(200).optional(),
    /** the job reads canned files, not this machine: which ones; the answer says so (a shipped example) */
    sample: z.string().min(1).max(200).regex(/^[^\u0000-\u001f\u007f]*$/, 'one line of text').optional(),
  })
  .superRefine((job, ctx) => {
    const seen = new Set<string>();
    (job.plan ?? []).forEach((s, i) => {
      if (seen.has(s.step)) ctx.addIssue({ code: 'custom', path: ['plan', i, 'step'], message: `step name "${s.step}" is used twice` });
      for (const f of s.from ?? []) {
        if (!seen.has(f)) ctx.addIssue({ code: 'custom', path: ['plan', i, 'from'], message: `"${f}" is not an earlier step` });
      }
      seen.add(s.step);
    });
  });

export type Job = z.infer<typeof jobSchema>;
export type JobStep = z.infer<typeof jobStepSchema>;

export class JobError extends Error {
  override name = 'JobError';
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

/** Parse a job document; errors name the field path and say how to fix it. */
export function parseJob(value: unknown, where = 'job'): Job {
  const shape = jobShapeProblem(value);
  if (shape) throw new JobError(`${where}: not a valid job@1: ${shape}`, 'a job names its inputs (paths, short values) in args; it does not carry data: keep args flat and small, and the file UTF-8 text; see docs/asking.md, "Jobs"');
  const r = jobSchema.safeParse(value);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => issueLine(i, value));
  throw new JobError(
    `${where}: not a valid job@1: ${lines.join('; ')}`,
    'a job is {"job":"job@1","goal":"…","budget_class":"interactive|attended|background|batch"} with an optional "plan":[{"step":"s1","tool":"read_file","args":{"path":"…"},"capability":"extract@1","schema":"log_summary@2"}, …]; see docs/asking.md, "Jobs"',
  );
}

/** The fields a job may have at a path: the top level's, or a plan step's. */
function fieldsAt(path: readonly PropertyKey[]): string[] {
  return Object.keys(path.length === 0 ? jobSchema.shape : jobStepSchema.shape);
}

/** The value at `path` in the document as given (undefined when absent). */
function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** One problem in words: an unknown field with its did-you-mean, a missing field by name, a value not allowed, else zod's message. */
function issueLine(i: z.core.$ZodIssue, value: unknown): string {
  const path = i.path.join('.') || '(top level)';
  if (i.code === 'unrecognized_keys') {
    const known = fieldsAt(i.path);
    return `${path}: unknown field(s) ${i.keys.map((k) => {
      const near = nearest(k, known);
      return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
    }).join(', ')}`;
  }
  if (i.path.length > 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')) {
    const given = at(value, i.path);
    const values = i.code === 'invalid_value' ? ` (one of ${i.values.map((v) => JSON.stringify(v)).join(', ')})` : '';
    if (given === undefined) return `${i.path.slice(0, -1).join('.') || '(top level)'}: the required field "${String(i.path.at(-1))}" is missing${values}`;
    const near = i.code === 'invalid_value' ? nearest(String(given), i.values.map(String)) : null;
    if (i.code === 'invalid_value') return `${path}: ${JSON.stringify(given).slice(0, 60)} is not allowed${near ? ` (did you mean "${near}"?)` : ''}${values}`;
  }
  return `${path}: ${i.message}`;
}
