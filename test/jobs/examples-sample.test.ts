/**
 * Issue 21: "the quick-start job reads canned sample files and says '/ is 94% full (critical)'
 * without saying the data is a sample." Every shipped example job that reads canned files (a plan
 * step whose arguments name the root's copy of `examples/`) declares them in `sample`, and its
 * answer — whatever the outcome — ends by saying the data is a sample and not this machine; a
 * job that reads this machine says nothing of the kind. Each such job runs through the real
 * runtime on a fresh `pico init` root.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { parseJob, type Job } from '../../src/runtime/job.js';
import { makeRoot, newSession, REPO } from '../helpers/root.js';

const JOBS = join(REPO, 'examples', 'jobs');
const jobs = readdirSync(JOBS).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ file: f, job: parseJob(JSON.parse(readFileSync(join(JOBS, f), 'utf8')), f) }));

/** The canned paths a job's plan reads: string arguments inside the root's examples/ folder. */
function cannedPaths(job: Job): string[] {
  return (job.plan ?? []).flatMap((s) => Object.values(s.args ?? {})).filter((v): v is string => typeof v === 'string' && /^examples\//.test(v));
}

let root: string;
let rt: Runtime;
beforeAll(async () => {
  root = makeRoot('pico-examples-sample-');
  rt = await openRuntime(root);
}, 60_000);
afterAll(async () => { await rt?.close(); });

describe('example jobs say when their data is a sample', () => {
  it('finds the shipped example jobs, and some read canned files while others read this machine', () => {
    expect(jobs.length).toBeGreaterThanOrEqual(15);
    expect(jobs.filter((j) => cannedPaths(j.job).length > 0).map((j) => j.file)).toContain('why-is-the-disk-full.json');
    expect(jobs.filter((j) => j.job.plan && cannedPaths(j.job).length === 0).map((j) => j.file)).toContain('live-disk-check.json');
  });

  it('a job declares `sample`, naming each canned path it reads, exactly when it reads canned files', () => {
    const wrong = jobs.flatMap(({ file, job }) => {
      const canned = cannedPaths(job);
      if (canned.length === 0) return job.sample === undefined ? [] : [`${file}: reads this machine but says "sample"`];
      if (job.sample === undefined) return [`${file}: reads ${canned.join(', ')} but has no "sample"`];
      return canned.filter((p) => !job.sample!.includes(p)).map((p) => `${file}: "sample" does not name ${p}`);
    });
    expect(wrong).toEqual([]);
  });

  it('each answer from canned files ends by saying so, whatever its outcome; an answer from this machine does not', async () => {
    const said: Record<string, { outcome: string; answer: string }> = {};
    for (const { file, job } of jobs.filter((j) => j.job.plan)) {
      const r = await rt.runSession(newSession(rt, job));
      said[file] = { outcome: r.outcome, answer: r.answer ?? '' };
    }
    for (const { file, job } of jobs.filter((j) => j.job.plan)) {
      const { answer } = said[file]!;
      if (job.sample) expect(answer.endsWith(`\n(sample data from ${job.sample}, not this machine)`), `${file}: ${answer}`).toBe(true);
      else expect(answer, file).not.toMatch(/sample data/);
    }
    // the quick start's job: the figure, then the plain statement that it is not this machine's
    expect(said['why-is-the-disk-full.json']!.answer).toMatch(/^"\/" is 94% full \(critical[^]*\n\(sample data from examples\/data\/df\.txt and examples\/data\/syslog\.txt, not this machine\)$/);
    // an answer that is not an answer still says it: the prune is denied here (no approver), the long log not made yet
    expect(said['prune-the-log-archive.json']!.outcome).not.toBe('answered');
    expect(said['prune-the-log-archive.json']!.answer).toContain('(sample data from examples/archive');
  }, 120_000);

  it('a job whose sample is not one line of text is refused, naming the field', () => {
    expect(() => parseJob({ job: 'job@1', goal: 'g', budget_class: 'interactive', sample: 'a\nb' }, 'x.json')).toThrow(/sample/);
    expect(() => parseJob({ job: 'job@1', goal: 'g', budget_class: 'interactive', sample: '' }, 'x.json')).toThrow(/sample/);
  });
});
