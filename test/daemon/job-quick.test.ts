/**
 * The daemon's quick job check (src/daemon/job-quick.ts) against job@1 itself
 * (src/runtime/job.ts): over the shipped examples and thousands of variants of
 * them (each field replaced by values either side of its rules, fields dropped,
 * unknown fields added, steps reordered), the quick check accepts exactly the
 * jobs job@1 accepts and returns exactly what its parse returns, fields in the
 * same order. A job it does not accept goes to job@1, whose error is the one the
 * intake reports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptJob, jobErrorOf, parseJobFile } from '../../src/daemon/job-quick.js';
import { jobSchema, parseJob } from '../../src/runtime/job.js';
import { PACKAGE_DIR } from '../../src/root/runtime.js';

const EXAMPLES = join(PACKAGE_DIR, 'examples', 'jobs');
const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(EXAMPLES, f), 'utf8')) as Record<string, unknown>);

/** Values either side of each rule a job field has (types, lengths, patterns, enums). */
const VALUES: unknown[] = [
  undefined, null, true, 0, 1, -1, 1.5, '', 'x', ' ', 'job@1', 'job@2', 'interactive', 'batch', 'Interactive', 'hourly',
  'extract@1', 'Extract@1', 'extract@', 'extract@1.0', 'disk', 'disk usage', 'a'.repeat(40), 'a'.repeat(41), 'x'.repeat(200), 'x'.repeat(201),
  'g'.repeat(2000), 'g'.repeat(2001), 'line\nbreak', 'tab\there', 'del\u007f', [], ['disk'], ['nope'], [1], {}, { path: 'x' }, { nested: { deep: [1, 2] } },
];

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function set(obj: Record<string, unknown>, key: string, v: unknown): Record<string, unknown> {
  const o = clone(obj);
  if (v === undefined) delete o[key];
  else o[key] = clone(v);
  return o;
}

/** Variants of one job: each top-level field and each step field replaced, dropped or joined by an unknown one. */
function variants(job: Record<string, unknown>): unknown[] {
  const out: unknown[] = [job, { ...clone(job), extra: 1 }, { ...clone(job), goa: 'typo' }];
  for (const k of ['job', 'goal', 'budget_class', 'plan', 'label', 'sample']) for (const v of VALUES) out.push(set(job, k, v));
  const plan = job.plan as Record<string, unknown>[] | undefined;
  if (plan) {
    out.push(set(job, 'plan', [...plan].reverse()), set(job, 'plan', [...plan, ...plan]), set(job, 'plan', Array.from({ length: 9 }, (_, i) => ({ ...plan[0], step: `s${i}` }))));
    plan.forEach((step, i) => {
      for (const k of ['step', 'tool', 'args', 'capability', 'schema', 'from', 'fro']) {
        for (const v of VALUES) {
          const p = clone(plan);
          p[i] = set(step, k, v);
          out.push(set(job, 'plan', p));
        }
      }
    });
  }
  return out;
}

const corpus = [...examples.flatMap(variants), null, [], 'job@1', 42, { job: 'job@1', goal: 'g', budget_class: 'batch', plan: [{ step: 'a', capability: 'x@1', schema: 'y@1', args: [] }] }];

describe('the quick job check', () => {
  it('accepts every shipped example, without loading job@1', () => {
    expect(examples.length).toBeGreaterThan(5);
    for (const job of examples) expect(acceptJob(job)).not.toBeNull();
  });

  it(`accepts exactly what job@1 accepts and returns what its parse returns, over ${corpus.length} variants`, () => {
    let accepted = 0;
    for (const value of corpus) {
      const quick = acceptJob(value);
      const real = jobSchema.safeParse(value);
      const shapeOk = (() => {
        try {
          parseJob(value);
          return true;
        } catch {
          return false;
        }
      })();
      if (quick !== null) {
        accepted++;
        expect(shapeOk, JSON.stringify(value).slice(0, 200)).toBe(true);
        expect(JSON.stringify(quick)).toBe(JSON.stringify(real.data));
        expect(quick).toStrictEqual(real.data);
      } else {
        expect(shapeOk, `job@1 takes what the quick check left: ${JSON.stringify(value).slice(0, 200)}`).toBe(false);
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('leaves a bad job to job@1, whose error names the file, the field and the fix', async () => {
    const bad = { ...examples[0], budget_class: 'hourly' };
    let caught: unknown;
    await parseJobFile(bad, 'bad.json').catch((err: unknown) => (caught = err));
    const words = jobErrorOf(caught);
    expect(words?.message).toMatch(/^bad\.json: not a valid job@1: budget_class: "hourly" is not allowed/);
    expect(words?.fix).toMatch(/docs\/asking\.md, "Jobs"/);
    expect(() => parseJob(bad, 'bad.json')).toThrow(words!.message);
  });
});
