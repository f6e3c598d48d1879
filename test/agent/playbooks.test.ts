// The shipped playbooks (manifests/playbooks/): each is chosen for the goals an admin types for its
// intent and for no other intent's goals, and the plan it makes is one the tools accept. "Chosen"
// is what the planner does: the matches in matchPlaybooks' order, the first whose required slots
// the goal fills (providers/playbook-planner). The goals are in fixtures/playbook-goals.json, many
// written after the intents were, to hold them to phrasings they were not tuned on.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { folderSource, loadRoot } from '../../src/registry/load.js';
import { loadPlaybooks, matchPlaybooks, type Playbook } from '../../src/agent/playbooks.js';
import { terms } from '../../src/memory/terms.js';
import { checkArgs } from '../../src/tools/args.js';
import { codeProviders } from '../../providers/index.js';
import { REPO } from '../helpers/root.js';

const registry = loadRoot(REPO).registry;
const loaded = loadPlaybooks(folderSource(REPO), registry.tools);
const playbooks = loaded.playbooks;
const goals = JSON.parse(readFileSync(new URL('./fixtures/playbook-goals.json', import.meta.url), 'utf8')) as Record<string, string[]>;

type Call = { name: string; arguments: Record<string, unknown> };

/** What the planner makes of a goal: the playbook it fills (by the calls it returns) and the calls. */
function plan(goal: string): { id: string | null; calls: Call[] } {
  const matched = matchPlaybooks(goal, playbooks).map((m) => playbooks.find((p) => p.id === m.id)!);
  const calls = codeProviders['playbook-planner']!({ text: JSON.stringify({ goal, playbooks: matched, avoid: [] }), capability: 'plan@1', schemaId: 'plan@1' }) as Call[];
  const id = matched.find((p) => p.steps.length === calls.length && p.steps.every((s, i) => s.tool === calls[i]!.name))?.id ?? null;
  return { id, calls };
}

describe('the shipped playbooks', () => {
  it('all load against the shipped tools with no issue, one per family', () => {
    expect(loaded.issues).toEqual([]);
    expect(playbooks.map((p) => p.id).sort()).toEqual([
      'audio_details', 'disk_full', 'failed_units', 'file_details', 'health_check', 'image_details', 'kernel_messages', 'listening', 'log_errors',
      'memory_pressure', 'network', 'oom_kills', 'overheating', 'prune_archive', 'read_log', 'service_status', 'since_boot', 'slow_load', 'updates',
    ]);
  });

  it('every intent phrase keeps a word after stemming, and no two phrases of one playbook stem alike (each would count twice)', () => {
    for (const p of playbooks) {
      const seen = new Map<string, string>();
      for (const phrase of p.intent) {
        const key = [...new Set(terms(phrase))].sort().join(' ');
        expect(key, `${p.id}: "${phrase}" is all stop words`).not.toBe('');
        expect(seen.get(key), `${p.id}: "${phrase}" stems like "${seen.get(key)}"`).toBeUndefined();
        seen.set(key, phrase);
      }
    }
  });

  for (const [family, list] of Object.entries(goals).filter(([f]) => f !== '(none)')) {
    it(`${family} is chosen for its own goals, and no other playbook is`, () => {
      const wrong = list.map((g) => ({ g, got: plan(g).id })).filter((x) => x.got !== family);
      expect(wrong).toEqual([]);
    });
  }

  it('a goal of no admin intent matches no playbook', () => {
    for (const g of goals['(none)']!) expect(matchPlaybooks(g, playbooks), g).toEqual([]);
  });

  it('every plan made for a fixture goal passes each tool\'s input_schema', () => {
    for (const g of Object.values(goals).flat()) {
      for (const c of plan(g).calls) expect(() => checkArgs(registry.tool(c.name), c.arguments), `${g}: ${JSON.stringify(c)}`).not.toThrow();
    }
  });

  it('every slot that can be empty leaves its argument out, or takes a default the tool accepts', () => {
    const pb = (id: string): Playbook => playbooks.find((p) => p.id === id)!;
    const bare = (id: string) => codeProviders['playbook-planner']!({ text: JSON.stringify({ goal: 'x', playbooks: [pb(id)], avoid: [] }), capability: 'plan@1', schemaId: 'plan@1' }) as Call[];
    for (const p of playbooks) {
      const required = Object.values(p.slots).some((s) => s.required);
      const calls = bare(p.id);
      if (required) { expect(calls, p.id).toEqual([]); continue; }
      expect(calls.map((c) => c.name)).toEqual(p.steps.map((s) => s.tool));
      for (const c of calls) expect(() => checkArgs(registry.tool(c.name), c.arguments), `${p.id}: ${JSON.stringify(c)}`).not.toThrow();
    }
  });
});

describe('what a playbook plan holds', () => {
  it('a named service gets its unit status, its processes, its sockets and its own journal window', () => {
    expect(plan('Why does mosquitto keep crashing since yesterday?').calls).toEqual([
      { name: 'unit_status', arguments: { unit: 'mosquitto.service' } },
      { name: 'process_find', arguments: { name: 'mosquitto.service' } },
      { name: 'listening_sockets', arguments: { name: 'mosquitto.service' } },
      { name: 'journal_window', arguments: { unit: 'mosquitto.service', since: 'yesterday' } },
    ]);
  });

  it('a service goal that names no unit falls to the next matching playbook rather than guessing one', () => {
    const g = 'Which services failed to start after the reboot?';
    expect(matchPlaybooks(g, playbooks).map((m) => m.id)).toContain('failed_units');
    expect(plan(g).calls.map((c) => c.name)).toEqual(['failed_units', 'journal_window']);
    expect(plan('is it running?').calls).toEqual([]); // only service_status matches, and it has no unit
  });

  it('memory pressure sorts the processes by memory; a slow machine by CPU unless the goal speaks of memory', () => {
    expect(plan('are we running low on RAM?').calls[1]).toEqual({ name: 'load_top', arguments: { sort: 'mem' } });
    expect(plan('why is the pi so slow').calls[0]).toEqual({ name: 'load_top', arguments: { sort: 'cpu' } });
    expect(plan('the pi is slow and hogging ram').calls.map((c) => c.name)).toContain('load_top');
  });

  it('the log window takes the time, priority and unit the goal names, else today\'s errors', () => {
    expect(plan('errors from the nginx service in the last 2 hours').calls).toEqual([{ name: 'journal_window', arguments: { since: '2 hours ago', priority: 'err', unit: 'nginx.service' } }]);
    expect(plan('what happened?').calls).toEqual([{ name: 'journal_window', arguments: { since: 'today', priority: 'err' } }]);
    expect(plan('any warnings since the reboot?').calls).toEqual([{ name: 'journal_window', arguments: { boot: 0, priority: 'warning' } }]);
  });

  it('a file\'s, an image\'s or a recording\'s details need a path in the goal; without one no file is guessed', () => {
    expect(plan('Who owns /etc/hostname?').calls).toEqual([{ name: 'file_stat', arguments: { path: '/etc/hostname' } }]);
    expect(plan('who owns this file?').calls).toEqual([]);
    expect(plan('What are the dimensions of /home/pi/photo.png?').calls).toEqual([{ name: 'image_info', arguments: { path: '/home/pi/photo.png' } }]);
    expect(plan('take a photo with the camera').calls).toEqual([]);
    expect(plan('how long is the recording /home/pi/voice.wav?').calls).toEqual([{ name: 'audio_info', arguments: { path: '/home/pi/voice.wav' } }]);
  });

  it('the health check runs five tools, none twice', () => {
    const calls = plan('run a quick health check').calls.map((c) => c.name);
    expect(calls).toEqual(['capture_df', 'memory_usage', 'load_top', 'thermal', 'failed_units']);
  });
});
