// What the answer says about the checks (src/agent/goal/explain.ts): a check left undone is named
// by what it reads and the values it was given, never by a tool id, and the window a journal was
// read for is said in words even when a playbook's default chose it. Real manifests: the words
// come from the shipped tools' descriptions through the agent's planner seam.
import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { loadRoot } from '../../src/registry/load.js';
import { agentPlanner } from '../../src/agent/session-plan.js';
import { JARGON } from '../../src/eval/goals/score.js';
import { REPO } from '../helpers/root.js';

const registry = loadRoot(REPO).registry;
const planner = agentPlanner([]);

/** The plain words for a session whose plan ran `steps`, of which `failed` failed with a tool error. */
function words(goal: string, steps: { tool: string; args: Record<string, unknown> }[], failed: string[]) {
  const events = [
    { type: 'user_input', text: goal, trust: 'T0' },
    { type: 'plan_created', source: 'playbook', provider: 'playbook-planner', retrieved: [], playbooks: [], steps: [...steps.map((s) => ({ step: s.tool, ...s, capability: 'extract@1', schema: 'x@1' })), { step: 'answer', tool: null, args: {}, capability: 'answer@1', schema: 'answer@1' }] },
    ...failed.map((step) => ({ type: 'tool_failed', step, error: `tool ${step}: exit 1` })),
  ] as unknown as LedgerEvent[];
  const held = new Set(steps.map((s) => s.tool).filter((t) => !failed.includes(t)));
  return planner.explain!({ all: events } as unknown as Ledger, held, true, registry);
}

describe('what the answer says about its checks', () => {
  it('a check left undone is named by what it reads and the values it was given, not by its tool id', () => {
    const w = words('is mosquitto still alive', [{ tool: 'unit_status', args: { unit: 'mosquitto.service' } }, { tool: 'journal_window', args: { unit: 'mosquitto.service', since: 'today' } }], ['unit_status']);
    const text = w.notes.join(' ');
    expect(text).toContain("one systemd unit's state (mosquitto.service) (the tool failed)");
    expect(text).not.toMatch(/unit_status/);
    expect(text).not.toMatch(JARGON);
  });

  it('an argument the description names reads as its value: "delete all but the newest 5 files of a log archive folder (examples/archive)"', () => {
    const w = words('prune the archive, keep 5', [{ tool: 'prune_archive', args: { dir: 'examples/archive', keep: 5 } }], ['prune_archive']);
    expect(w.notes.join(' ')).toContain('delete all but the newest 5 files of a log archive folder (examples/archive)');
  });

  it('the window a playbook chose is said in words: "today", "the last 2 hours", "since the last boot"', () => {
    const say = (args: Record<string, unknown>) => words('what happened', [{ tool: 'journal_window', args }], []).notes;
    expect(say({ since: 'today' })).toEqual(['Time window read: today.']);
    expect(say({ since: '2 hours ago' })).toEqual(['Time window read: the last 2 hours.']);
    expect(say({ since: '30 min ago' })).toEqual(['Time window read: the last 30 minutes.']);
    expect(say({ boot: 0, priority: 'err' })).toEqual(['Time window read: since the last boot.']);
    expect(say({ priority: 'err' })).toEqual([]);
  });
});
