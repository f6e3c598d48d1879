/**
 * The shape limits of a job document, checked before the schema is.
 *
 * A job file is operator input, but it flows into code that recurses over
 * values (canonical JSON, schema checks, the ledger), so a value that is
 * too deep, too large or not text would fail far from the intake, as an
 * internal error, after the job was accepted. These limits turn each of
 * those into a plain refusal at the door, naming the field. The walk is
 * iterative, so a 100,000-level document cannot overflow the check itself.
 * This module knows nothing of steps or tools (job.ts, job-check.ts), nor of
 * bytes: a job file is checked as UTF-8 before it is parsed (src/utf8.ts).
 */

/** Nesting levels a job document may have (the job object is level 1; args sit at level 4). */
export const MAX_JOB_DEPTH = 32;
/** Bytes of one step's `args`, serialized. */
export const MAX_ARGS_BYTES = 64 * 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with the shape of `value`, as "path: problem", or null when it is fine. */
export function jobShapeProblem(value: unknown): string | null {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '(top level)', depth: 1 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return `${path}: the text holds a lone UTF-16 surrogate (a \\ud800-style escape), which is not Unicode text`;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JOB_DEPTH) return `${path}: nested deeper than ${MAX_JOB_DEPTH} levels`;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (const [k, x] of entries) {
      if (LONE_SURROGATE.test(k)) return `${path}: a key holds a lone UTF-16 surrogate, which is not Unicode text`;
      stack.push({ v: x, path: path === '(top level)' ? k : `${path}.${k}`, depth: depth + 1 });
    }
  }
  const plan = (value as { plan?: unknown } | null)?.plan;
  if (Array.isArray(plan)) {
    for (const [i, s] of plan.entries()) {
      const args = (s as { args?: unknown } | null)?.args;
      if (args === undefined) continue;
      const bytes = Buffer.byteLength(JSON.stringify(args) ?? '');
      if (bytes > MAX_ARGS_BYTES) return `plan.${i}.args: ${bytes} bytes, over the ${MAX_ARGS_BYTES}-byte limit for one step's arguments`;
    }
  }
  return null;
}
