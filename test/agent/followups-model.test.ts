/**
 * Issue 31: "a model planner provisioned for plan@1 may pick follow-ups from the same menu, and its
 * choice is recorded the same way" — and P7: a provider that read outside (T1) data cannot emit a
 * control decision. A part a model planned (no playbook fits it) gets its second look from a menu:
 * the rules of the playbooks whose facts it holds, evaluated by code; the model sees the goal and
 * the menu's tool names and reasons only, never a fact, and its answer is held to the menu.
 *
 * No llama-server can run here, so the model planner is an `http` provider on a scripted loopback
 * server (test/helpers/chat-server.ts) that records what it was sent. The tools and the session are
 * real: load_top reads this machine's processes.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { replaySession } from '../../src/replay/replay.js';
import { menuSchema } from '../../src/agent/followup-model.js';
import { gbnfFor } from '../../src/adapters/gbnf.js';
import { plannerManifest, startChatServer, type ChatReply, type ChatServer } from '../helpers/chat-server.js';
import { makeRoot, newSession, put } from '../helpers/root.js';

let chat: ChatServer;
let script: ChatReply[] = [];
let rt: Runtime;
const root = makeRoot('pico-followups-model-');

beforeAll(async () => {
  chat = await startChatServer(() => script.shift() ?? { text: '[]' });
  // no shipped playbook may plan first: the part is the model's
  rmSync(join(root, 'manifests', 'playbooks'), { recursive: true, force: true });
  put(root, 'manifests/providers/scripted-planner.json', plannerManifest(chat.endpoint));
  // the menu's source: a playbook no goal here matches, whose rules read load_top's facts
  put(root, 'manifests/playbooks/holders.json', {
    manifest: 'playbook@1', id: 'holders', description: 'A test playbook that only carries follow-ups.', intent: ['quux frobnicate'],
    steps: [{ tool: 'load_top', args: { sort: 'mem' } }],
    followups: [
      { when: { fact: 'load_top.processes', not_empty: true }, add: { tool: 'top_memory', args: {} }, why: 'to see which programs hold the memory' },
      { when: { fact: 'load_top.tasks', at_least: 1 }, add: { tool: 'pressure', args: {} }, why: 'to see whether tasks wait' },
    ],
  });
  rt = await openRuntime(root);
});
afterAll(async () => {
  await rt?.close();
  await chat.close();
});

const of = <T extends LedgerEvent['type']>(events: LedgerEvent[], type: T) => events.filter((e) => e.type === type) as Extract<LedgerEvent, { type: T }>[];
const PLAN = { text: '[{"name": "load_top", "arguments": {"sort": "mem"}}]' };
// round 1: first a tool off the menu (refused, retried with the error), then one on it; round 2 offers nothing new
const SCRIPT = () => [PLAN, { text: '[{"name": "apt_upgradable", "arguments": {}}]' }, { text: '[{"name": "top_memory", "arguments": {}}]' }];

describe('a model planner picks follow-ups from the menu', () => {
  it('it reads the goal and the menu, never a fact; off-menu picks are refused; its pick is recorded as plan_extended from the model and replays identical', async () => {
    script = SCRIPT();
    const id = newSession(rt, parseJob({ job: 'job@1', goal: 'rank the processes by resident memory', budget_class: 'attended' }));
    await rt.runSession(id);
    const events = readLedger(rt.sessionDir(id));
    expect(of(events, 'plan_created')[0]).toMatchObject({ source: 'model' });
    const [ext, ...more] = of(events, 'plan_extended');
    expect(more).toEqual([]);
    expect(ext).toMatchObject({ round: 1, source: 'model', part: null, steps: [{ step: 'top_memory', tool: 'top_memory', args: {} }] });
    expect(ext!.provider).toMatch(/^scripted-planner/);
    expect(ext!.because).toEqual([{ step: 'load_top', seq: of(events, 'fact_added').find((f) => f.step === 'load_top')!.seq, field: 'load_top.processes', why: 'to see which programs hold the memory', adds: 'top_memory' }]);
    // the off-menu tool was refused by the schema narrowed to the menu, and the model asked again
    expect(of(events, 'validation_failed').some((f) => f.step === '@followups.1' && /apt_upgradable/.test(f.error))).toBe(true);
    expect(of(events, 'fact_added').some((f) => f.schema === 'memory_holders@1')).toBe(true);

    // what the model read: the goal, the tools looked at and the menu — nothing of the facts (T1)
    const sent = chat.requests.slice(1).map((r) => r.messages.map((m) => m.content).join('\n'));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain('Goal: rank the processes by resident memory');
    expect(sent[0]).toContain('- top_memory: to see which programs hold the memory');
    expect(sent[0]).toContain('- pressure: to see whether tasks wait');
    const load = of(events, 'fact_added').find((f) => f.step === 'load_top')!.fact as { processes: { pid: number; command: string }[]; load_1m: number };
    for (const text of sent) {
      for (const p of load.processes) expect(text).not.toContain(`${p.command} `.trim().length > 3 ? p.command : `pid ${p.pid}`);
      expect(text).not.toContain(String(load.load_1m));
    }
    const started = of(events, 'step_started').find((s) => s.step === '@followups.1')!;
    expect(started.trust).toBe('T0');

    // round 2: no rule reads what round 1 added, so the model is not asked again (pressure, passed over, is not offered twice)
    expect(of(events, 'step_started').some((s) => s.step === '@followups.2')).toBe(false);

    script = SCRIPT();
    expect((await replaySession(rt, id)).identical).toBe(true);
  }, 60_000);

  it('the grammar a local model decodes under holds the menu\'s tools only, with no arguments', () => {
    const g = gbnfFor(menuSchema(['pressure', 'top_memory']).json as Record<string, unknown>);
    expect(g).toContain('top_memory');
    expect(g).toContain('pressure');
    expect(g).not.toContain('apt_upgradable');
    expect(g).not.toMatch(/sort|unit|path/);
  });
});

