/**
 * Issue 3, "Done when": "An end-to-end test spawns the real daemon, drops 30
 * jobs, kills it with SIGKILL mid-run, restarts it, and asserts every job
 * finished exactly once with valid ledgers."
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { isSessionId } from '../../src/ledger/session-id.js';
import { readLedgerText } from '../../src/ledger/ledger.js';
import { initRoot } from '../../src/root/init.js';
import { slowExampleJob, tempRoot } from './helpers.js';
import { startDaemon } from './spawn.js';

const JOBS = 30;

describe('crash recovery, end to end', () => {
  it('30 jobs, SIGKILL mid-run, restart: every job finishes exactly once with a valid ledger', async () => {
    const root = tempRoot('pico-e2e-crash-');
    initRoot(root);
    // tool steps that take a moment, so the kill lands while a step is in flight
    const job = slowExampleJob(root, 0.15);
    const first = startDaemon(root);
    await first.waitFor((l) => l.event === 'ready');
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) ids.push((await dropIntoInbox(job, root)).id);

    // kill it right after a step has started, a few jobs in: a session is in flight
    let finished = 0;
    await first.waitFor((l) => {
      if (l.event === 'finished') finished++;
      return finished >= 3 && l.event === 'step' && l.phase === undefined;
    }, 60_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const unfinishedAtKill = ids.filter((id) => !existsSync(join(root, 'sessions', id, 'result.json')));
    expect(unfinishedAtKill.length).toBeGreaterThan(0);

    const second = startDaemon(root);
    await second.waitFor((l) => l.event === 'ready');
    const resumedIds = second.lines.filter((l) => l.event === 'queued' && l.resumed === true).map((l) => l.session);
    expect(resumedIds.length).toBeGreaterThan(0);
    for (const id of unfinishedAtKill) await second.waitFor((l) => l.event === 'finished' && l.session === id, 60_000);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // exactly one session per job, nothing left behind, nothing rejected
    const sessions = readdirSync(join(root, 'sessions')).filter(isSessionId).sort();
    expect(sessions).toEqual([...ids].sort());
    expect(readdirSync(join(root, 'sessions', 'inbox')).filter((n) => !n.startsWith('.'))).toEqual([]);
    expect(readdirSync(join(root, 'sessions', 'rejected'))).toEqual([]);

    for (const id of ids) {
      const path = join(root, 'sessions', id, 'events.jsonl');
      const text = readFileSync(path, 'utf8');
      const { events, intactBytes } = readLedgerText(text, path); // throws unless every line is a valid event and seq is dense
      expect(intactBytes, `${id}: ledger has a torn tail`).toBe(Buffer.byteLength(text));
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      expect(events.filter((e) => e.type === 'answer_sent'), id).toHaveLength(1);
      expect(events.filter((e) => e.type === 'user_input'), id).toHaveLength(1);
      const factsPerStep = new Map<string, number>();
      for (const e of events) if (e.type === 'fact_added') factsPerStep.set(e.step, (factsPerStep.get(e.step) ?? 0) + 1);
      for (const [step, n] of factsPerStep) expect(n, `${id} step ${step} committed ${n} facts`).toBe(1);
      const result = JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { outcome: string };
      expect(result.outcome).toBe('answered');
    }
    // the session that was in flight at the kill carries a resumed event
    const inFlight = unfinishedAtKill.filter((id) => existsSync(join(root, 'sessions', id, 'events.jsonl')) && readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8').includes('"type":"resumed"'));
    expect(inFlight.length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
