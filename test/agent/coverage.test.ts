// Coverage by parts, decided once (issue 30 item 6, seam §2): the agent's real cover() over a
// real ledger of the shipped manifests, then the shipped renderer over the input the runtime
// would build. A part is answered, partial or not checked, once; the words for what was not
// checked come from the tools' own causes; a named thing is answered only by a read naming it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import type { EventOf, LedgerEvent, NewEvent } from '../../src/ledger/events.js';
import { loadRoot, folderSource } from '../../src/registry/load.js';
import { loadPlaybooks } from '../../src/agent/playbooks.js';
import { loadLexicon } from '../../src/agent/goal/load.js';
import { agentPlanner } from '../../src/agent/session-plan.js';
import { coveredParts } from '../../src/runtime/view.js';
import { renderAnswer, type Answer, type CoveredPart } from '../../providers/answer/index.js';
import { makeRoot } from '../helpers/root.js';

const root = makeRoot('pico-coverage-');
const { registry } = loadRoot(root);
const planner = agentPlanner(loadPlaybooks(folderSource(root), registry.tools).playbooks, loadLexicon(folderSource(root)).lexicon);

type Step = { step: string; tool: string; args?: Record<string, unknown> };
type Part = { text: string; steps: string[]; window?: string; unchecked?: string; offers?: string[]; ask?: { kind: string; name?: string; noun?: string } };

/**
 * A session's ledger as the loop writes it: the goal, the plan (its parts as given), then each
 * step's outcome — a fact, or a failure with the tool's cause — then coverage; returns the
 * coverage parts and the answer the renderer makes from the runtime's input.
 */
function session(goal: string, steps: Step[], parts: Part[] | null, outcome: Record<string, { fact: unknown; schema: string } | { type: 'tool_failed' | 'tool_empty'; cause?: { id: string; plain: string } }>): { parts: CoveredPart[]; answer: Answer; events: LedgerEvent[] } {
  const id = `s${Math.random().toString(36).slice(2, 10)}`;
  const { ledger } = Ledger.open(join(root, 'sessions', id), id);
  const plan = [...steps.map((s) => ({ step: s.step, tool: s.tool, args: s.args ?? {}, capability: 'extract@1', schema: registry.tools.get(s.tool)!.fact_schema!, from: [] })), { step: 'answer', tool: null, args: {}, capability: 'answer@1', schema: 'answer@1', from: steps.map((s) => s.step) }];
  ledger.append({ type: 'user_input', text: goal, trust: 'T0', budget_class: 'attended', job: { job: 'job@1', goal, budget_class: 'attended' } });
  ledger.append({ type: 'plan_created', steps: plan, source: 'playbook', provider: 'playbook-planner', ...(parts ? { parts: parts.map((p) => ({ retrieved: [], playbooks: [], ...p })) } : {}) } as NewEvent);
  for (const s of steps) {
    const o = outcome[s.step];
    if (!o) continue;
    const tool = registry.tools.get(s.tool)!;
    ledger.append({ type: 'step_started', step: s.step, tool: s.tool, trust: 'T1', capability: 'extract@1', schema: tool.fact_schema!, spent: { wall_ms: 0, model_calls: 0, cpu_ms: 0 } });
    if ('fact' in o) ledger.append({ type: 'fact_added', step: s.step, provider: 'p', capability: 'extract@1', schema: o.schema, fact: o.fact, trust: 'T1', confidence: 1, duration_ms: 1, valid_until: null, subject: null, fixes: [] });
    else ledger.append({ type: o.type, step: s.step, provider: null, capability: 'extract@1', schema: tool.fact_schema!, error: `tool ${s.tool}: exit 1`, attempt: 1, ...(o.cause ? { cause: o.cause } : {}) } as NewEvent);
  }
  planner.cover!(ledger, plan, registry);
  const events = [...ledger.all];
  ledger.close();
  const facts = events.filter((e): e is EventOf<'fact_added'> => e.type === 'fact_added').map((e) => ({ step: e.step, seq: e.seq, schema: e.schema, trust: e.trust, fact: e.fact as Record<string, unknown> }));
  const covered = coveredParts(events, events.length) as CoveredPart[];
  return { parts: covered, answer: renderAnswer({ goal, facts, missing: [], parts: covered }), events };
}

const net = { source: 'ip', interfaces: [{ name: 'lo', state: 'UNKNOWN', mac: null, mtu: 65536, ipv4: ['127.0.0.1/8'], ipv6: [] }, { name: 'eth0', state: 'UP', mac: null, mtu: 1500, ipv4: ['192.0.2.2/24'], ipv6: [] }], default_gateway: '192.0.2.1', default_interface: 'eth0', route_count: 2, note: null };
const log = { host: 'pi', error_count: 0, first_error: null, first_error_at: null, service: null, max_severity: 'info', service_restarted: false };
const df = { block_unit: '1024', filesystems: [{ filesystem: '/dev/root', mount: '/', size_bytes: 100, used_bytes: 25, available_bytes: 75, used_percent: 25, free_percent: 75, state: 'ok' }], fullest: { filesystem: '/dev/root', mount: '/', size_bytes: 100, used_bytes: 25, available_bytes: 75, used_percent: 25, free_percent: 75, state: 'ok' }, state: 'ok' };
const noSystemd = { id: 'no-systemd', plain: 'this machine does not run systemd, so unit states cannot be read' };
const unchecked = (a: Answer) => a.sentences.filter((s) => s.fixed === 'unchecked');

describe('coverage of the goal\'s parts, decided once', () => {
  it('an answered part never also says it could not check a fragment of itself', () => {
    for (const [goal, first, fragment] of [['list my network interfaces and their ips', 'list my network interfaces', 'their ips'], ['no errors in the log today, yeah?', 'no errors in the log today', 'yeah']] as const) {
      const steps: Step[] = first.includes('network') ? [{ step: 'network', tool: 'network' }] : [{ step: 'journal_window', tool: 'journal_window', args: { since: 'today', priority: 'err' } }];
      const o: Record<string, { fact: unknown; schema: string }> = first.includes('network') ? { network: { fact: net, schema: 'network@1' } } : { journal_window: { fact: log, schema: 'log_summary@2' } };
      const { parts, answer } = session(goal, steps, [{ text: first, steps: [steps[0]!.step] }, { text: fragment, steps: [], unchecked: `I could not check "${fragment}": nothing on this machine looks at ${fragment}.` }], o);
      expect(parts.map((p) => p.status)).toEqual(['answered']);
      expect(answer.text).not.toMatch(/could not check/);
    }
    // what a story tells before its question is the question's context, not a part left unchecked
    const story = session('So I came home and it was down. SSH timed out. What happened?', [{ step: 'journal_window', tool: 'journal_window', args: { since: 'today' } }], [
      { text: 'So I came home', steps: [], unchecked: 'I could not check "So I came home": nothing on this machine looks at came or home.' },
      { text: 'SSH timed out', steps: [], unchecked: 'I could not check "SSH timed out": nothing on this machine looks at timed.' },
      { text: 'What happened', steps: ['journal_window'] },
    ], { journal_window: { fact: log, schema: 'log_summary@2' } });
    expect(story.parts.map((p) => [p.text, p.status])).toEqual([['What happened', 'answered']]);
    // a request in a sentence of its own still asks, and is said to be unchecked
    const asks = session('check my solar panel. is the disk full?', [{ step: 'capture_df', tool: 'capture_df' }], [
      { text: 'check my solar panel', steps: [], unchecked: 'I could not check "check my solar panel": nothing on this machine looks at solar or panel.' },
      { text: 'is the disk full', steps: ['capture_df'] },
    ], { capture_df: { fact: df, schema: 'disk_usage@1' } });
    expect(asks.parts.map((p) => p.status)).toEqual(['unchecked', 'answered']);
    // a part of its own that nothing serves is still said to be unchecked
    const { parts, answer } = session('is the disk full and whats the weather tomorrow', [{ step: 'capture_df', tool: 'capture_df' }], [{ text: 'is the disk full', steps: ['capture_df'] }, { text: 'whats the weather tomorrow', steps: [], unchecked: 'I could not check "whats the weather tomorrow": nothing on this machine looks at weather.' }], { capture_df: { fact: df, schema: 'disk_usage@1' } });
    expect(parts.map((p) => p.status)).toEqual(['answered', 'unchecked']);
    expect(unchecked(answer).map((s) => s.text)).toEqual(['I could not check "whats the weather tomorrow": nothing on this machine looks at weather.']);
  });

  it('a named service is answered only by a read that names it: the whole journal beside it marks nothing answered', () => {
    const steps: Step[] = [{ step: 'unit_status', tool: 'unit_status', args: { unit: 'nginx.service' } }, { step: 'journal_window', tool: 'journal_window', args: { boot: 0, priority: 'err' } }];
    const { parts, answer } = session('is nginx running', steps, null, { unit_status: { type: 'tool_failed', cause: noSystemd }, journal_window: { fact: log, schema: 'log_summary@2' } });
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ status: 'unchecked', named: 'nginx.service', from: [] });
    expect(answer.text).toContain('I could not check "is nginx running": this machine does not run systemd, so unit states cannot be read.');
    // the journal read is true and said beside it, with its source, but it answers nothing
    expect(answer.sentences.find((s) => s.text.startsWith('The log shows'))!.from).toEqual([{ step: 'journal_window', seq: expect.any(Number) }]);
    // the unit's own log lines do name it
    const own = session('is nginx running', [{ step: 'journal_window', tool: 'journal_window', args: { unit: 'nginx.service', boot: 0 } }], null, { journal_window: { fact: log, schema: 'log_summary@2' } });
    expect(own.parts[0]).toMatchObject({ status: 'answered', named: 'nginx.service' });
  });

  it('absent, unreadable and empty are three different sentences, in the tool\'s own words', () => {
    const said = (o: { type: 'tool_failed' | 'tool_empty'; cause?: { id: string; plain: string } }) =>
      session('any errors today', [{ step: 'journal_window', tool: 'journal_window', args: { since: 'today' } }], null, { journal_window: o }).answer.text;
    const absent = said({ type: 'tool_failed', cause: { id: 'no-journal', plain: 'there is no journal on this machine' } });
    const denied = said({ type: 'tool_failed', cause: { id: 'no-permission', plain: 'you may not read the journal (join the group systemd-journal or adm)' } });
    const empty = said({ type: 'tool_empty', cause: { id: 'empty-window', plain: 'the log for that window is empty' } });
    expect(absent).toBe('I could not check "any errors today": there is no journal on this machine.');
    expect(denied).toBe('I could not check "any errors today": you may not read the journal (join the group systemd-journal or adm).');
    expect(empty).toBe('I could not check "any errors today": the log for that window is empty.');
    // without a cause, the kind of failure in words, never the tool's text
    expect(said({ type: 'tool_failed' })).toBe('I could not check "any errors today": the tool failed.');
    expect(said({ type: 'tool_empty' })).toBe('I could not check "any errors today": what it read was empty.');
  });

  it('checks left for different causes each say their own cause, after "because", never as one more parenthesis', () => {
    const steps: Step[] = [{ step: 'unit_status', tool: 'unit_status', args: { unit: 'nginx.service' } }, { step: 'journal_window', tool: 'journal_window', args: { unit: 'nginx.service', since: 'today' } }];
    const { answer } = session('is nginx running', steps, null, { unit_status: { type: 'tool_failed', cause: noSystemd }, journal_window: { type: 'tool_failed', cause: { id: 'no-journal', plain: 'there is no journal on this machine' } } });
    const text = unchecked(answer).map((s) => s.text).join(' ');
    expect(text).toMatch(/^I could not check "is nginx running": one systemd unit's state \(nginx\.service\), because this machine does not run systemd, so unit states cannot be read; .*, because there is no journal on this machine\.$/);
    expect(text).not.toMatch(/\) \(/);
  });

  it('a time window is said only for a part whose answering checks read one, with that check as its source', () => {
    const steps: Step[] = [{ step: 'capture_df', tool: 'capture_df' }, { step: 'journal_window', tool: 'journal_window', args: { since: 'yesterday', priority: 'err' } }];
    const { answer } = session('disk usage since yesterday, and any errors since yesterday', steps, [
      { text: 'disk usage since yesterday', steps: ['capture_df'], window: 'since yesterday' },
      { text: 'any errors since yesterday', steps: ['journal_window'], window: 'since yesterday' },
    ], { capture_df: { fact: df, schema: 'disk_usage@1' }, journal_window: { fact: log, schema: 'log_summary@2' } });
    const windows = answer.sentences.filter((s) => s.text.startsWith('Time window read'));
    expect(windows).toEqual([{ text: 'Time window read: since yesterday.', part: 1, from: [{ step: 'journal_window', seq: expect.any(Number) }] }]);
  });

  it('a check no plan holds (a replan dropped it, or a name a replan reused) is never named, and no step id is said', () => {
    const { parts, answer } = session('check the disk', [{ step: 'capture_df', tool: 'capture_df' }], [{ text: 'check the disk', steps: ['capture_df', 'capture_df_2', 'journal_window_2'] }], { capture_df: { fact: df, schema: 'disk_usage@1' } });
    expect(parts[0]).toMatchObject({ status: 'answered', steps: ['capture_df'] });
    expect(answer.text).not.toMatch(/_\d\b|capture_df|journal_window/);
  });

  it('a part whose ask the facts cannot select from is partial and says so; one they can is answered by the selection', () => {
    const ps = { load_1m: 0.5, load_5m: 0.4, load_15m: 0.3, cpus: 4, load_per_cpu: 0.13, runnable: 1, tasks: 180, state: 'ok', sorted_by: 'cpu', processes: [{ pid: 1, user: 'root', cpu_percent: 0.1, mem_percent: 0.2, rss_bytes: 100, elapsed_seconds: 10, command: '/usr/sbin/nginx -g daemon on;' }], top: null };
    const steps: Step[] = [{ step: 'load_top', tool: 'load_top', args: { sort: 'cpu' } }];
    const o = { load_top: { fact: ps, schema: 'load_processes@1' } };
    const pkgs = session('which packages can be upgraded', steps, [{ text: 'which packages can be upgraded', steps: ['load_top'], ask: { kind: 'list', noun: 'package' } }], o);
    expect(pkgs.parts[0]!.status, JSON.stringify(pkgs.parts)).toBe('partial');
    expect(pkgs.answer.text).toContain('what was read does not list the packages');
    const is = session('is nginx running', steps, [{ text: 'is nginx running', steps: ['load_top'], ask: { kind: 'member', name: 'nginx', noun: 'process' } }], o);
    expect(is.parts[0]!.status).toBe('answered');
    const yes = is.answer.sentences.find((s) => s.selection)!;
    expect(yes.text).toMatch(/^"nginx" is among the processes read/);
    expect(yes.selection).toMatchObject({ kind: 'member', name: 'nginx', field: 'load_processes@1.processes', result: true });
    // not among a list cut to the busiest: not a no, so the part is partial
    const no = session('is python3 running', steps, [{ text: 'is python3 running', steps: ['load_top'], ask: { kind: 'member', name: 'python3', noun: 'process' } }], o);
    expect(no.parts[0]!.status).toBe('partial');
    expect(no.answer.text).toMatch(/"python3" is not among the 1 process read; the read keeps only those, so it may still be there\./);
  });

  it('a read that holds no list of the things asked about does not answer "is NAME among them", though it holds a fact', () => {
    const { parts } = session('is nginx running', [{ step: 'journal_window', tool: 'journal_window', args: { boot: 0 } }], [{ text: 'is nginx running', steps: ['journal_window'], ask: { kind: 'member', name: 'nginx' } }], { journal_window: { fact: log, schema: 'log_summary@2' } });
    expect(parts[0]!.status).toBe('unchecked');
  });
});

describe('a replan never repeats a step that already ran', () => {
  it('a replan that proposes a check already held reuses its fact, names it in its parts, and never runs it again', async () => {
    const { put } = await import('../helpers/root.js');
    const { openRuntime } = await import('../../src/root/runtime.js');
    const { parseJob } = await import('../../src/runtime/job.js');
    const { newSessionId } = await import('../../src/ledger/session-id.js');
    const { readLedger } = await import('../../src/ledger/ledger.js');
    const r = makeRoot('pico-replan-');
    // a bench probe that is always offline, and two playbooks for it: the second reads without it
    put(r, 'manifests/tools/probe_fail.json', {
      manifest: 'tool@1', name: 'probe_fail', description: 'Read the bench probe of the lab.', when: 'bench probe reading', fact_schema: 'memory_usage@1',
      command: ['/bin/sh', '-c', 'echo probe offline >&2; exit 3'], input_schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {}, additionalProperties: false },
      output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 5000, max_output_bytes: 65536 },
    });
    put(r, 'manifests/playbooks/bench_a.json', { manifest: 'playbook@1', id: 'bench_a', description: 'The bench: memory, then the probe.', intent: ['bench probe'], steps: [{ tool: 'memory_usage', args: {} }, { tool: 'probe_fail', args: {} }] });
    put(r, 'manifests/playbooks/bench_b.json', { manifest: 'playbook@1', id: 'bench_b', description: 'The bench without its probe: memory, then the load.', intent: ['bench probe'], steps: [{ tool: 'memory_usage', args: {} }, { tool: 'load_top', args: { sort: 'cpu' } }] });
    const rt = await openRuntime(r);
    try {
      const id = newSessionId();
      const goal = 'check the bench probe today'; // a window: the parts are recorded
      await rt.runSession(id, { job: parseJob({ job: 'job@1', goal, budget_class: 'attended' }) });
      const events = readLedger(rt.sessionDir(id));
      const plans = events.filter((e): e is EventOf<'plan_created'> => e.type === 'plan_created');
      expect(plans.map((p) => !!p.replan)).toEqual([false, true]);
      // every check started once: the replan's memory read is the one that already ran
      const started = events.filter((e): e is EventOf<'step_started'> => e.type === 'step_started' && e.tool !== null && !e.step.startsWith('@'));
      const calls = started.map((e) => { const st = plans.at(-1)!.steps.find((s) => s.step === e.step)!; return `${st.tool}${JSON.stringify(st.args)}`; });
      expect(new Set(calls).size, calls.join(' | ')).toBe(calls.length);
      // the parts a replan records name only steps its plan holds, so no "memory_usage_2" is ever said;
      // the failed probe stays in the part's history (follow-ups find a playbook's steps there), after the held read
      const partSteps = plans.at(-1)!.parts?.[0]?.steps ?? [];
      expect(partSteps).toEqual(['memory_usage', 'probe_fail', 'load_top']);
      expect(partSteps.every((st) => plans.at(-1)!.steps.some((s) => s.step === st))).toBe(true);
      const sent = events.findLast((e) => e.type === 'answer_sent');
      expect(sent?.type === 'answer_sent' && sent.text).not.toMatch(/_\d\b|memory_usage|probe_fail|load_top/);
    } finally {
      await rt.close();
    }
  }, 60_000);
});
