// `pico eval --goals` scoring (src/eval/goals/score.ts) as a pure function over runs: plans and
// parts counted by who planned them, selections by kind, units read from a quantity or a time, acts
// declined, and an expected argument that depends on the day matched by pattern.
import { describe, expect, it } from 'vitest';
import { scoreGoals, unitFromQuantity } from '../../src/eval/goals/score.js';
import type { EvalGoal } from '../../src/eval/goals/file.js';
import type { GoalRun } from '../../src/eval/goals/run.js';

const run = (id: string, o: Partial<GoalRun>): GoalRun => ({
  id, planned: true, source: 'playbook', playbooks: [], steps: [], retrieved: [], outcome: null, answer: null, approval: null, plan_ms: 1, parts: [], ...o,
});

describe('pico eval --goals measures', () => {
  it('plans and parts are counted by who planned them, and selections by kind', () => {
    const goals: EvalGoal[] = [
      { id: 'a', goal: 'stat /etc/passwd', kind: 'answerable', parts: [{ tools: ['file_stat'] }] },
      { id: 'b', goal: 'which services failed', kind: 'answerable', parts: [{ tools: ['failed_units'] }] },
      { id: 'c', goal: 'tell me a joke', kind: 'unanswerable', parts: [{ tools: [], not: 'out of scope', about: 'jokes' }] },
    ];
    const s = scoreGoals(goals, [
      run('a', { source: 'retrieval', steps: [{ id: 'file_stat', tool: 'file_stat', args: { path: '/etc/passwd' }, destructive: false }], parts: [{ text: 'stat /etc/passwd', steps: ['file_stat'], source: 'retrieval' }] }),
      run('b', { steps: [{ tool: 'failed_units', args: {}, destructive: false }], parts: [{ text: 'which services failed', steps: ['failed_units'], source: 'playbook', ask: { kind: 'list', noun: 'unit' } }] }),
      run('c', { planned: false, source: null, outcome: 'declined', answer: 'I could not check "tell me a joke".' }),
    ]);
    expect(s.plans_by_source).toEqual({ retrieval: 1, playbook: 1, none: 1 });
    expect(s.parts_by_source).toEqual({ retrieval: 1, playbook: 1 });
    expect(s.selections).toEqual({ list: 1 });
  });

  it('a unit read from a quantifier, a number, a clock time or a date is counted; a real name is not', () => {
    for (const u of ['many.service', 'two.service', '10pm.service', '2024-05-01.service', 'things.service', '04:15.service']) expect(unitFromQuantity(u), u).toBe(true);
    for (const u of ['nginx.service', 'php8.2-fpm.service', 'zigbee2mqtt.service', 'mnt-data.mount']) expect(unitFromQuantity(u), u).toBe(false);
    const goals: EvalGoal[] = [{ id: 'q', goal: 'are many services failing', kind: 'answerable', parts: [{ tools: ['failed_units'] }] }];
    const s = scoreGoals(goals, [run('q', { steps: [{ tool: 'failed_units', args: {}, destructive: false }, { tool: 'unit_status', args: { unit: 'many.service' }, destructive: false }] })]);
    expect(s.units_from_quantities).toEqual({ n: 1, of: 1 });
    expect(s.misses.some((m) => m.what === 'unit')).toBe(true);
  });

  it('an act inside an answerable goal counts as declined only when its part got no step', () => {
    const goals: EvalGoal[] = [{ id: 'm', goal: 'delete /tmp/x and is the disk full', kind: 'answerable', parts: [{ tools: [], not: 'unsupported action', about: 'deleting' }, { tools: ['capture_df'] }] }];
    const ok = scoreGoals(goals, [run('m', { steps: [{ tool: 'capture_df', args: {}, destructive: false }], parts: [{ text: 'delete /tmp/x', steps: [] }, { text: 'is the disk full', steps: ['capture_df'] }] })]);
    expect(ok.acts_declined).toEqual({ n: 1, of: 1 });
    const read = scoreGoals(goals, [run('m', { steps: [{ tool: 'file_stat', args: {}, destructive: false }, { tool: 'capture_df', args: {}, destructive: false }], parts: [{ text: 'delete /tmp/x', steps: ['file_stat'] }, { text: 'is the disk full', steps: ['capture_df'] }] })]);
    expect(read.acts_declined).toEqual({ n: 0, of: 1 });
  });

  it('an expected argument {"match": REGEX} matches a string by pattern, and nothing else', () => {
    const goals: EvalGoal[] = [{ id: 'r', goal: 'logs from 9 to 11 yesterday', kind: 'answerable', parts: [{ tools: ['journal_window'], args: { journal_window: { since: { match: '^\\d{4}-\\d{2}-\\d{2} 09:00$' } } } }] }];
    const hit = scoreGoals(goals, [run('r', { steps: [{ tool: 'journal_window', args: { since: '2026-03-03 09:00' }, destructive: false }] })]);
    expect(hit.with_args).toEqual({ n: 1, of: 1 });
    const miss = scoreGoals(goals, [run('r', { steps: [{ tool: 'journal_window', args: { since: 'yesterday' }, destructive: false }] })]);
    expect(miss.with_args).toEqual({ n: 0, of: 1 });
  });
});
