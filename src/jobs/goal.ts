/**
 * A question typed by a person as a job: `pico ask "…"` and `POST /jobs`
 * with `{"goal": "…"}` both make the job@1 document a job file would hold —
 * the goal, the budget class (attended unless named: a goal is planned and
 * its checks read the machine, which takes seconds, not the one to five of
 * `interactive`) and a label saying where it came from. Why one place: the
 * command line and the API must make the same job from the same words, so a
 * question asked either way is planned and answered the same.
 */

/** The budget class a typed goal runs in when none is named. */
export const GOAL_BUDGET_CLASS = 'attended';

/** The job@1 document for a typed goal (parseJob judges it as it judges any job). */
export function goalJob(goal: string, o: { budget_class?: string; label?: string } = {}): Record<string, unknown> {
  return { job: 'job@1', goal, budget_class: o.budget_class ?? GOAL_BUDGET_CLASS, ...(o.label ? { label: o.label } : {}) };
}

/** The fields a goal-only body may carry besides its goal. */
const GOAL_FIELDS = new Set(['goal', 'budget_class', 'label']);

/**
 * A request body that holds only a goal (`{"goal": "…"}`, with `budget_class` and `label` at
 * most) as the job@1 body it stands for; any other body as it came, for the inbox's inspector
 * to judge and name what is wrong.
 */
export function goalBody(bytes: Buffer): Buffer {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return bytes;
  const d = doc as Record<string, unknown>;
  if ('job' in d || typeof d.goal !== 'string' || !Object.keys(d).every((k) => GOAL_FIELDS.has(k))) return bytes;
  const budget = typeof d.budget_class === 'string' ? d.budget_class : undefined;
  const label = typeof d.label === 'string' ? d.label : 'POST /jobs';
  return Buffer.from(JSON.stringify(goalJob(d.goal, { ...(budget ? { budget_class: budget } : {}), label })));
}
