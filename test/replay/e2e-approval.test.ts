/**
 * Issue 21: "every run can be replayed" holds for sessions a person decided. On the real compiled
 * daemon, the shipped prune job stops for approval twice; `pico approve` lets one run and
 * `pico deny --reason` stops the other; then `pico replay` of each (a separate process) says
 * identical and exits 0. Replay runs such a session as the daemon did — once up to the request,
 * then once more per decision, each run told only the decision its original run read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { openRuntime } from '../../src/root/runtime.js';
import { replaySession } from '../../src/replay/replay.js';
import { parseJob } from '../../src/runtime/job.js';
import { newSession } from '../helpers/root.js';
import { tempRoot } from '../daemon/helpers.js';
import { picoAsync, startDaemon, type LogLine } from '../daemon/spawn.js';

const finished = (id: string) => (l: LogLine) => l.event === 'finished' && l.session === id;
const waits = (id: string) => (l: LogLine) => l.event === 'waiting_approval' && l.session === id;
const types = (root: string, id: string) => readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8')
  .split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type);

describe('replay of sessions that waited for a person', () => {
  it('on the real daemon, pico replay says identical (exit 0) for a session approved with pico approve and one denied with pico deny', async () => {
    const root = tempRoot('pico-e2e-replay-approval-');
    initRoot(root);
    const job = readFileSync(join(root, 'examples', 'jobs', 'prune-the-log-archive.json'));
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const yes = (await dropIntoInbox(job, root)).id;
    const no = (await dropIntoInbox(job, root)).id;
    await d.waitFor(waits(yes));
    await d.waitFor(waits(no));
    const approve = await picoAsync(['approve', yes, 'prune', '--root', root]);
    expect(approve.code, approve.stderr).toBe(0);
    await d.waitFor(finished(yes));
    const deny = await picoAsync(['deny', no, 'prune', '--reason', 'not today: the archive is audited', '--root', root]);
    expect(deny.code, deny.stderr).toBe(0);
    await d.waitFor(finished(no));
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    // each waited, was resumed by its decision, and ended as the decision says
    expect(types(root, yes)).toEqual(expect.arrayContaining(['approval_requested', 'resumed', 'approval_granted', 'tool_output', 'answer_sent']));
    expect(types(root, no)).toEqual(expect.arrayContaining(['approval_requested', 'resumed', 'approval_denied', 'answer_sent']));
    for (const id of [yes, no]) {
      const r = await picoAsync(['replay', id, '--root', root]);
      expect(r.stdout + r.stderr).toMatch(/^identical: \d+ events replayed byte for byte/);
      expect(r.code).toBe(0);
    }
  }, 120_000);

  it('a request that expired unanswered (approval.json; the runtime, two runs as the daemon makes them) replays identically: the wait, the resume, the denial by "timeout"', async () => {
    const root = tempRoot('pico-replay-expired-');
    initRoot(root);
    writeFileSync(join(root, 'approval.json'), JSON.stringify({ expire_after_s: 1 }));
    const rt = await openRuntime(root);
    try {
      const id = newSession(rt, parseJob(JSON.parse(readFileSync(join(root, 'examples', 'jobs', 'prune-the-log-archive.json'), 'utf8'))));
      expect((await rt.runSession(id, { approvals: true })).outcome).toBe('waiting');
      await new Promise((r) => setTimeout(r, 1_200));
      expect((await rt.runSession(id, { approvals: true })).outcome).not.toBe('waiting');
      expect(readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8')).toContain('"type":"approval_denied","by":"timeout"');
      const r = await replaySession(rt, id);
      expect(r.identical, JSON.stringify(r.firstDifference)).toBe(true);
    } finally {
      await rt.close();
    }
  }, 60_000);
});
