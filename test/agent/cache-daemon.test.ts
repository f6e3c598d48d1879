/**
 * Issue 13 part 2 through the real daemon, with a model planner: "The same
 * goal-only job run twice: the second `plan_created` has `source: "cache"`,
 * makes no model call …; bumping the tool manifest's version makes the third
 * plan afresh."
 *
 * The planner is an http provider on a scripted loopback server (no model
 * runs on this machine in tests); the server counts the requests it gets, so
 * "no model call" is what the server saw, not only what the ledger says.
 * Memory is filled the way it is in production: the daemon ingests finished
 * sessions between jobs.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { readLedger } from '../../src/ledger/ledger.js';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { initRoot } from '../../src/root/init.js';
import { put } from '../helpers/root.js';
import { plannerManifest, startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { tempRoot } from '../daemon/helpers.js';
import { startDaemon } from '../daemon/spawn.js';

let chat: ChatServer;

beforeAll(async () => {
  chat = await startChatServer(() => ({ text: '[{"name": "memory_usage", "arguments": {}}]' }));
});
afterAll(() => chat.close());

/** A pico init root without playbooks (the model planner plans) and with the scripted http planner. */
function modelRoot(): string {
  const root = tempRoot('pico-cache-daemon-');
  initRoot(root);
  rmSync(join(root, 'manifests', 'playbooks'), { recursive: true, force: true });
  put(root, 'manifests/providers/scripted-planner.json', plannerManifest(chat.endpoint));
  return root;
}

const GOAL = 'How much memory is in use?';

/** Run the goal `times` times through one daemon, each after the previous one was ingested. */
async function runGoal(root: string, times: number): Promise<LedgerEvent[][]> {
  const d = startDaemon(root);
  const out: LedgerEvent[][] = [];
  try {
    await d.waitFor((l) => l.event === 'ready');
    for (let n = 0; n < times; n++) {
      const { id } = await dropIntoInbox(Buffer.from(JSON.stringify({ job: 'job@1', goal: GOAL, budget_class: 'interactive' })), root);
      await d.waitFor((l) => l.event === 'finished' && l.session === id, 40_000);
      await d.waitFor((l) => l.event === 'ingested', 20_000);
      out.push(readLedger(join(root, 'sessions', id)));
    }
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
  }
  return out;
}

const plans = (events: LedgerEvent[]) => events.filter((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created');
const answer = (events: LedgerEvent[]) => events.find((e): e is Extract<LedgerEvent, { type: 'answer_sent' }> => e.type === 'answer_sent');

describe('the trajectory cache through the real daemon, with a model planner', () => {
  it('the second run is planned from the cache with no model call; a changed tool manifest makes the third plan afresh', async () => {
    const root = modelRoot();
    const before = chat.requests.length;
    const requests = () => chat.requests.length - before;
    const [first, second] = await runGoal(root, 2);
    expect(plans(first!)[0]).toMatchObject({ source: 'model', provider: expect.stringContaining('scripted-planner') });
    expect(answer(first!)).toMatchObject({ outcome: 'answered' });
    expect(answer(first!)!.spent.model_calls).toBe(1);
    expect(requests()).toBe(1);

    expect(plans(second!)).toHaveLength(1);
    expect(plans(second!)[0]).toMatchObject({ source: 'cache', provider: null, cache: { entry: first![0]!.session_id } });
    expect(plans(second!)[0]!.steps).toEqual(plans(first!)[0]!.steps);
    expect(second!.some((e) => e.type === 'provider_called' && e.step === '@plan')).toBe(false);
    expect(answer(second!)).toMatchObject({ outcome: 'answered' });
    expect(answer(second!)!.spent.model_calls).toBe(0);
    expect(requests()).toBe(1);

    // the tool's manifest changes (a new version): the old entry never hits
    const path = join(root, 'manifests/tools/memory_usage.json');
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { description: string };
    manifest.description += ' (v2)';
    writeFileSync(path, JSON.stringify(manifest, null, 2));
    const [third] = await runGoal(root, 1);
    expect(plans(third!)[0]).toMatchObject({ source: 'model' });
    expect(requests()).toBe(2);
  }, 120_000);
});
