/**
 * Issue 15 item 2: "`pico jobs [--state queued|running|waiting|done]
 * [--json]` (id, class, state, outcome, age, goal)". The state comes from the
 * files alone: real inbox entries, claimed session folders and results.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialStatus } from '../../src/daemon/status.js';
import { jobInfo, listJobs } from '../../src/jobs/list.js';
import { newSessionId } from '../../src/ledger/session-id.js';
import { goodJob, tempRoot } from '../daemon/helpers.js';
import { MAIN_JS, picoAsync as pico } from '../daemon/spawn.js';

const LONG_GOAL = `why is the disk full ${'and what fills it '.repeat(20)}END`;

/** A claimed session: job.json, an empty ledger, and (done) a result. */
function session(root: string, id: string, o: { goal?: string; outcome?: string; cls?: string } = {}): void {
  const dir = join(root, 'sessions', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'job.json'), JSON.stringify({ ...goodJob(o.cls ?? 'attended'), goal: o.goal ?? 'a goal' }));
  writeFileSync(join(dir, 'events.jsonl'), '');
  if (o.outcome) writeFileSync(join(dir, 'result.json'), JSON.stringify({ session_id: id, outcome: o.outcome, answer: 'x' }, null, 2) + '\n');
}

describe('listing jobs from the files', () => {
  it('inbox entries are queued, claimed sessions without a result are queued, results are done with their outcome; --state filters', () => {
    const root = tempRoot('pico-jobs-');
    const t = Date.parse('2026-11-01T10:00:00Z');
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => newSessionId(new Date(t + i * 1000)));
    session(root, a!, { outcome: 'answered' });
    session(root, b!, { outcome: 'cancelled', cls: 'batch' });
    session(root, c!);
    writeFileSync(join(root, 'sessions', 'inbox', `${d}.json`), JSON.stringify({ ...goodJob('interactive'), goal: LONG_GOAL }));
    writeFileSync(join(root, 'sessions', 'inbox', '.partial.json'), '{'); // a dot-name: a writer's temp file, not a job
    const all = listJobs(root);
    expect(all.map((j) => [j.id, j.state, j.outcome, j.budget_class])).toEqual([
      [a, 'done', 'answered', 'attended'], [b, 'done', 'cancelled', 'batch'], [c, 'queued', null, 'attended'], [d, 'queued', null, 'interactive'],
    ]);
    expect(all[0]!.submitted_at).toBe('2026-11-01T10:00:00.000Z');
    expect(listJobs(root, { state: 'done' }).map((j) => j.id)).toEqual([a, b]);
    expect(listJobs(root, { state: 'queued' }).map((j) => j.id)).toEqual([c, d]);
    expect(listJobs(root, { state: 'running' })).toEqual([]);
    expect(jobInfo(root, d!)).toMatchObject({ where: 'inbox', goal: LONG_GOAL });
    expect(jobInfo(root, '20200101-000000-000000000000')).toBeNull();
  });

  it('the running job and the waiting ones are those the live daemon\'s status.json names (here this test process plays the daemon)', () => {
    const root = tempRoot('pico-jobs-');
    const [run, wait, q] = [newSessionId(), newSessionId(), newSessionId()];
    for (const id of [run!, wait!, q!]) session(root, id);
    const s = initialStatus(root);
    s.state = 'running';
    s.running = { session: run!, label: null, budget_class: 'attended', step: 's1', started_at: new Date().toISOString() };
    s.waiting = [{ session: wait!, step: 'prune', tool: 'prune_archive', since: new Date().toISOString() }];
    mkdirSync(join(root, 'sessions', '.daemon'), { recursive: true });
    writeFileSync(join(root, 'sessions', '.daemon', 'status.json'), JSON.stringify(s));
    expect(jobInfo(root, run!)).toMatchObject({ state: 'running', step: 's1' });
    expect(jobInfo(root, wait!)).toMatchObject({ state: 'waiting', step: 'prune' });
    expect(jobInfo(root, q!)).toMatchObject({ state: 'queued' });
  });

  it('pico jobs prints one row per job with the goal whole when piped and in --json; a bad --state is a usage error (exit 2)', async () => {
    const root = tempRoot('pico-jobs-');
    const id = newSessionId();
    writeFileSync(join(root, 'sessions', 'inbox', `${id}.json`), JSON.stringify({ ...goodJob('interactive'), goal: LONG_GOAL }));
    const human = await pico(['jobs', '--root', root]);
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+CLASS\s+STATE\s+OUTCOME\s+AGE\s+GOAL$/);
    expect(lines[1]).toMatch(new RegExp(`^${id}\\s+interactive\\s+queued\\s+-\\s+\\d+[smhd]\\s+why is the disk full`));
    expect(lines[1]).toContain('END'); // not a terminal: nothing is cut
    const json = JSON.parse((await pico(['jobs', '--root', root, '--json'])).stdout) as { jobs: { goal: string }[] };
    expect(json.jobs[0]!.goal).toBe(LONG_GOAL);
    // on a terminal (a real pty made by util-linux `script`, 100 columns wide) the goal is cut to fit, with an ellipsis
    if (existsSync('/usr/bin/script')) {
      const tty = spawnSync('/usr/bin/script', ['-qc', `stty cols 100; ${process.execPath} ${MAIN_JS} jobs --root ${root}`, '/dev/null'], { encoding: 'utf8' });
      const row = tty.stdout.split(/\r?\n/).find((l) => l.startsWith(id))!;
      expect(row.length).toBeLessThanOrEqual(100);
      expect(row.endsWith('…')).toBe(true);
    }
    const bad = await pico(['jobs', '--state', 'finished', '--root', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--state must be one of queued, running, waiting, done');
  });
});
