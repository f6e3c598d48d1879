// playbook@1 `followups` (issue 31): how a rule reads a fact, and what a playbook may not say in one.
// The loader is the real one over a real root's folders; a bad rule is a load error naming the
// file, the path in it and the fix, and never loads half a playbook.
import { describe, expect, it } from 'vitest';
import { conditionSchema, holds, valuesAt, type Condition } from '../../src/agent/followup-rules.js';
import { loadPlaybooks } from '../../src/agent/playbooks.js';
import { folderSource, loadRoot } from '../../src/registry/load.js';
import { makeRoot, put, REPO } from '../helpers/root.js';

const cond = (c: Record<string, unknown>): Condition => conditionSchema.parse(c);
const df = { fullest: { mount: '/', used_percent: 94, state: 'critical' }, filesystems: [{ mount: '/boot', used_percent: 15 }, { mount: '/', used_percent: 94 }] };

describe('a follow-up rule reads one field of a fact', () => {
  it('a threshold, a status and a list not empty; a number picks an element and * holds when any element does', () => {
    expect(holds(cond({ fact: 'capture_df.fullest.used_percent', at_least: 80 }), df)).toBe(true);
    expect(holds(cond({ fact: 'capture_df.fullest.used_percent', above: 94 }), df)).toBe(false);
    expect(holds(cond({ fact: 'capture_df.fullest.state', in: ['warning', 'critical'] }), df)).toBe(true);
    expect(holds(cond({ fact: 'capture_df.filesystems', not_empty: true }), df)).toBe(true);
    expect(holds(cond({ fact: 'capture_df.filesystems.0.used_percent', at_least: 80 }), df)).toBe(false);
    expect(holds(cond({ fact: 'capture_df.filesystems.*.used_percent', at_least: 80 }), df)).toBe(true);
    expect(valuesAt(df, ['filesystems', '*', 'mount'])).toEqual(['/boot', '/']);
  });

  it('an absent field, a null or a value of another type never meets a threshold; `is: null` asks for a null that is there', () => {
    expect(holds(cond({ fact: 'network.default_gateway', is: null }), { default_gateway: null })).toBe(true);
    expect(holds(cond({ fact: 'network.default_gateway', is: null }), {})).toBe(false);
    expect(holds(cond({ fact: 'memory_usage.used_percent', at_least: 80 }), { used_percent: null })).toBe(false);
    expect(holds(cond({ fact: 'memory_usage.used_percent', at_least: 80 }), { used_percent: '95' })).toBe(false);
    expect(holds(cond({ fact: 'failed_units.units', not_empty: true }), { units: [] })).toBe(false);
  });

  it('a condition names exactly one comparison', () => {
    expect(() => cond({ fact: 'x.y', at_least: 1, below: 5 })).toThrow(/exactly one of/);
    expect(() => cond({ fact: 'x.y' })).toThrow(/exactly one of/);
    expect(() => cond({ fact: 'x', at_least: 1 })).toThrow(/TOOL\.field/);
  });
});

describe('what a playbook may not say in its follow-ups is a load error naming the file and the fix', () => {
  const registry = loadRoot(REPO).registry;
  const playbook = (followups: unknown[]) => ({
    manifest: 'playbook@1', id: 'probe', description: 'A probe.', intent: ['probe disk'], steps: [{ tool: 'capture_df', args: {} }], followups,
  });
  const load = (doc: Record<string, unknown>) => {
    const root = makeRoot('pico-followup-rules-');
    put(root, 'manifests/playbooks/probe.json', doc);
    const loaded = loadPlaybooks(folderSource(root), registry.tools);
    return { loads: loaded.playbooks.some((p) => p.id === 'probe'), issues: loaded.issues.filter((i) => i.file === 'manifests/playbooks/probe.json') };
  };
  const issues = (followups: unknown[]) => {
    const r = load(playbook(followups));
    expect(r.loads, 'a bad playbook never loads').toBe(false);
    return r.issues;
  };
  const when = { fact: 'capture_df.fullest.used_percent', at_least: 80 };

  it('a follow-up never adds a destructive step', () => {
    expect(issues([{ when, add: { tool: 'prune_archive', args: {} }, why: 'the disk is full' }])).toEqual([expect.objectContaining({
      path: 'followups.0.add.tool', message: expect.stringMatching(/prune_archive" is destructive: a follow-up only looks further/), fix: expect.stringMatching(/read_only tool/),
    })]);
  });

  it('an unknown tool, a fact of a tool the playbook never runs, and an argument naming many values', () => {
    expect(issues([{ when, add: { tool: 'du_tpo', args: {} }, why: 'the disk is full' }])[0]).toMatchObject({ path: 'followups.0.add.tool', message: 'unknown tool "du_tpo"' });
    expect(issues([{ when: { fact: 'memory_usage.used_percent', at_least: 80 }, add: { tool: 'top_memory', args: {} }, why: 'memory is full' }])[0]).toMatchObject({
      message: '"memory_usage" is read, but neither the playbook\'s steps nor an earlier follow-up run it',
    });
    expect(issues([{ when, add: { tool: 'du_top', args: { path: { fact: 'capture_df.filesystems.*.mount' } } }, why: 'the disk is full' }])[0]).toMatchObject({
      path: 'followups.0.add.args.path', message: 'an argument names one value; "*" names many',
    });
  });

  it('a rule may read what an earlier rule adds (the second round), and an unknown key names the keys playbook@1 knows', () => {
    const twoRounds = load(playbook([
      { when, add: { tool: 'du_top', args: { path: { fact: 'capture_df.fullest.mount' } } }, why: 'the disk is full' },
      { when: { fact: 'du_top.largest', not_empty: true }, add: { tool: 'du_top', args: { path: { fact: 'du_top.largest.0.path' } } }, why: 'one folder is big' },
    ]));
    expect(twoRounds).toEqual({ loads: true, issues: [] });
    const typo = load({ ...playbook([{ when, add: { tool: 'du_top', args: {} }, why: 'the disk is full' }]), followup: [] });
    expect(typo.loads).toBe(false);
    expect(typo.issues[0]?.fix).toMatch(/steps, followups/);
  });
});
