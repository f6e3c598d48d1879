/**
 * Issue 21 item 1: "Every run can be replayed" — byte for byte, for every
 * example job and for one job per failure kind: a tool that fails, a tool
 * that times out, a budget cut (a tool whose limit the budget cut, then a
 * step with no budget left), a schema refusal (a provider whose output the
 * ladder refuses), an approval denied (a destructive step with no one to
 * approve it) and a cancel (the operator's close). Each runs through the real
 * runtime — tools through the execution world on this machine, shell
 * providers as subprocesses — and `replaySession` runs it again from its
 * inputs and recorded tool outputs and diffs the ledgers line by line.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { replaySession } from '../../src/replay/replay.js';
import { writeDecision } from '../../src/approval/decisions.js';
import type { Clock } from '../../src/ledger/clock.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob, type Job } from '../../src/runtime/job.js';
import { extractorManifest, startChatServer } from '../helpers/chat-server.js';
import { makeRoot, newSession, put, script, shellProvider } from '../helpers/root.js';

let root: string;
let rt: Runtime;
let parser: string;

/** A tool manifest running `sh -c body` (tests only). */
function shTool(name: string, body: string, timeoutMs = 10_000): Record<string, unknown> {
  return {
    manifest: 'tool@1', name, description: `${name} (tests only)`, command: ['sh', '-c', body, name],
    input_schema: { type: 'object', properties: {}, additionalProperties: false }, output: { media: 'text' }, reducer: 'extract@1',
    effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: timeoutMs, max_output_bytes: 65536 },
  };
}

beforeAll(async () => {
  root = makeRoot('pico-replay-kinds-');
  put(root, 'manifests/tools/fails.json', shTool('fails', 'echo "no such device" >&2; exit 3'));
  put(root, 'manifests/tools/hangs.json', shTool('hangs', 'sleep 30', 400));
  put(root, 'manifests/tools/slow.json', shTool('slow', 'sleep 30'));
  put(root, 'manifests/tools/says.json', shTool('says', 'echo "Mar  3 14:21:57 pi5 app[1]: error: disk full"'));
  // a tool that does part of the work and says what it left out (as du does on a folder it cannot open)
  const part = (name: string, body: string) => ({ ...shTool(name, body), partial_exit_codes: [1] });
  put(root, 'manifests/tools/part.json', part('part', 'echo "Mar  3 14:21:57 pi5 app[1]: error: disk full"; echo "part: cannot read /srv/x" >&2; exit 1'));
  put(root, 'manifests/tools/part_worse.json', part('part_worse', 'echo "Mar  3 14:21:57 pi5 app[1]: error: disk full"; exit 2'));
  put(root, 'manifests/tools/part_empty.json', part('part_empty', 'echo "part: cannot read anything" >&2; exit 1'));
  // a provider whose every answer breaks the schema: the ladder refuses it, twice
  script(root, 'providers/wrong.sh', `cat >/dev/null; printf '%s' '{"host": 5, "nonsense": true}'`);
  put(root, 'manifests/providers/wrong.json', shellProvider('wrong', ['providers/wrong.sh'], { schemas: ['log_summary@2'], priority: 0 }));
  parser = readFileSync(join(root, 'manifests/providers/log-summary-parser.json'), 'utf8');
  rt = await openRuntime(root);
}, 60_000);
afterAll(async () => { await rt?.close(); });

/** Run a job to its end, replay it, and return the report with the session's failure event types. */
async function runAndReplay(job: Job, close?: { reason: string }): Promise<{ id: string; identical: boolean; diff: string; types: string[]; outcome: string }> {
  const id = newSession(rt, job);
  const result = close ? await rt.runSession(id, { closeReason: close.reason, cancelled: true }) : await rt.runSession(id);
  const report = await replaySession(rt, id);
  const types = readLedger(rt.sessionDir(id)).map((e) => e.type);
  const d = report.firstDifference;
  return { id, identical: report.identical, diff: d ? `line ${d.line}:\n- ${d.original}\n+ ${d.replayed}` : JSON.stringify(report.compositionDiffers), types, outcome: result.outcome };
}

const step = (tool: string, over: Record<string, unknown> = {}) => ({ step: tool, tool, args: {}, capability: 'extract@1', schema: 'log_summary@2', ...over });
const job = (budget: string, ...plan: Record<string, unknown>[]) => parseJob({ job: 'job@1', goal: 'what does the log say?', budget_class: budget, plan });

describe('replay is byte-identical for every failure kind', () => {
  it('a tool that fails: the error names the tool once and carries no budget note', async () => {
    const r = await runAndReplay(job('attended', step('fails')));
    expect(r.types).toContain('tool_failed');
    expect(r.identical, r.diff).toBe(true);
    const failed = readLedger(rt.sessionDir(readdirSync(join(root, 'sessions')).filter((n) => /^\d{8}-/.test(n)).sort().at(-1)!)).find((e) => e.type === 'tool_failed')!;
    expect((failed as { error: string }).error).toMatch(/^tool fails: (?!tool fails: )/);
    expect((failed as { error: string }).error).not.toContain('its limit was cut');
  }, 60_000);

  it('a tool that did part of the work (a declared partial exit code): its output and stderr kept, the answer partial in words', async () => {
    const r = await runAndReplay(job('attended', step('part'), { step: 'answer', capability: 'answer@1', schema: 'answer@1', from: ['part'] }));
    expect(r.identical, r.diff).toBe(true);
    expect(r.outcome).toBe('partial');
    expect(r.types).not.toContain('tool_failed');
    const events = readLedger(rt.sessionDir(r.id));
    const out = events.find((e) => e.type === 'tool_output')!;
    expect(out).toMatchObject({ exit_code: 1 });
    expect((out as { text?: string }).text).toBe('Mar  3 14:21:57 pi5 app[1]: error: disk full\n--- stderr (exit 1: part of the work was not done) ---\npart: cannot read /srv/x\n');
    const answer = events.find((e) => e.type === 'answer_sent') as { text: string; missing: string[] };
    expect(answer.missing).toEqual([]);
    expect(answer.text).toMatch(/^The log shows 1 failure line[^]*\nThis answer is partial: a check could not read everything it was asked to, so it covers only what it could read\.$/);
  }, 60_000);

  it('an exit code not declared partial, or a partial one with nothing printed, is still a failure', async () => {
    for (const tool of ['part_worse', 'part_empty']) {
      const r = await runAndReplay(job('attended', step(tool)));
      expect(r.types, tool).toContain('tool_failed');
      expect(r.identical, r.diff).toBe(true);
    }
  }, 60_000);

  it('a tool that times out', async () => {
    const r = await runAndReplay(job('attended', step('hangs')));
    expect(r.types).toContain('tool_timeout');
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);

  it('a budget cut: the tool\'s limit cut to the budget (the note said once), then a step with no budget left', async () => {
    const r = await runAndReplay(job('interactive', step('slow'), step('says')));
    expect(r.types).toContain('tool_timeout');
    expect(r.types.some((t) => t === 'budget_exhausted' || t === 'step_failed')).toBe(true);
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);

  it('a schema refusal: a provider whose output the ladder refuses', async () => {
    // the shipped log parser would be chosen first (code first): without it, the wrong provider serves
    rmSync(join(root, 'manifests/providers/log-summary-parser.json'));
    await rt.refresh();
    const r = await runAndReplay(job('attended', { ...step('says'), step: 'log' }));
    put(root, 'manifests/providers/log-summary-parser.json', parser);
    await rt.refresh();
    expect(r.types.some((t) => t === 'validation_failed' || t === 'grammar_failed')).toBe(true);
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);

  it('an approval denied: a destructive step with no one to approve it', async () => {
    const prune = parseJob(JSON.parse(readFileSync(join(root, 'examples/jobs/prune-the-log-archive.json'), 'utf8')));
    const r = await runAndReplay(prune);
    expect(r.types).toContain('approval_denied');
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);

  it('a cancel: the operator closes the session before its steps run', async () => {
    const r = await runAndReplay(job('attended', step('says')), { reason: 'cancelled by pi with pico cancel' });
    expect(r.outcome).toBe('cancelled');
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);
});

describe('a destructive step a person decided while the session waited', () => {
  // as under the daemon: the first run stops at the request, a person writes the decision (what
  // pico approve / pico deny do), and the session runs again from its ledger (`resumed`)
  async function decidedAndReplayed(decision: 'granted' | 'denied', reason: string | null): Promise<{ types: string[]; outcome: string; identical: boolean; diff: string }> {
    put(root, 'examples/archive/app.log.9', 'old\n');
    const prune = parseJob(JSON.parse(readFileSync(join(root, 'examples/jobs/prune-the-log-archive.json'), 'utf8')));
    const id = newSession(rt, prune);
    await rt.runSession(id, { approvals: true });
    expect(readLedger(rt.sessionDir(id)).at(-1)!.type).toBe('approval_requested');
    writeDecision(rt.sessionDir(id), { decision, step: 'prune', by: 'pi', at: new Date().toISOString(), reason });
    const result = await rt.runSession(id, { approvals: true });
    const report = await replaySession(rt, id);
    const d = report.firstDifference;
    return { types: readLedger(rt.sessionDir(id)).map((e) => e.type), outcome: result.outcome, identical: report.identical, diff: d ? `line ${d.line}:\n- ${d.original}\n+ ${d.replayed}` : '' };
  }

  it('approved: the replay waits where the original waited, resumes, and runs the step on the recorded grant', async () => {
    const r = await decidedAndReplayed('granted', null);
    expect(r.types).toEqual(expect.arrayContaining(['approval_requested', 'resumed', 'approval_granted', 'tool_output']));
    expect(r.outcome).toBe('answered');
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);

  it('cancelled while it waited: the replay waits where the original waited, then closes the steps as the cancel did', async () => {
    const prune = parseJob(JSON.parse(readFileSync(join(root, 'examples/jobs/prune-the-log-archive.json'), 'utf8')));
    const id = newSession(rt, prune);
    await rt.runSession(id, { approvals: true });
    const closed = await rt.runSession(id, { approvals: true, closeReason: 'cancelled by pi with pico cancel', cancelled: true });
    expect(closed.outcome).toBe('cancelled');
    expect(readLedger(rt.sessionDir(id)).map((e) => e.type)).toEqual(expect.arrayContaining(['approval_requested', 'resumed', 'step_failed']));
    const report = await replaySession(rt, id);
    expect(report.identical, JSON.stringify(report.firstDifference)).toBe(true);
  }, 60_000);

  it('denied with a reason: the replay gives the step up with the same words', async () => {
    const r = await decidedAndReplayed('denied', 'not today');
    expect(r.types).toEqual(expect.arrayContaining(['approval_requested', 'resumed', 'approval_denied']));
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);
});

describe('a cancel in the middle', () => {
  it('a cancel after a step ran: the first run stops between steps, the close run resumes and closes the rest', async () => {
    const id = newSession(rt, job('attended', step('says'), { ...step('says'), step: 'again' }));
    const stop = new AbortController();
    await rt.runSession(id, { signal: stop.signal, onEvent: (e) => { if (e.type === 'fact_added') stop.abort(); } });
    const closed = await rt.runSession(id, { closeReason: 'cancelled by pi with pico cancel', cancelled: true });
    expect(closed.outcome).toBe('cancelled');
    const types = readLedger(rt.sessionDir(id)).map((e) => e.type);
    expect(types.indexOf('resumed')).toBeGreaterThan(types.indexOf('fact_added'));
    const report = await replaySession(rt, id);
    expect(report.identical, JSON.stringify(report.firstDifference)).toBe(true);
  }, 60_000);
});

describe('a model call that ran out of time', () => {
  // an http provider on loopback (test/helpers/chat-server.ts: no model server runs on the build
  // machines) that answers its first request too late and every later one at once
  async function slowFirst(budget: string, timeoutMs: number, firstDelayMs: number): Promise<{ outcomes: string[]; identical: boolean; diff: string; calls: number; errors: string[] }> {
    const clean = '{"host": "pi5", "error_count": 1, "first_error": "error: disk full", "first_error_at": "Mar  3 14:21:57", "service": "app", "max_severity": "error", "service_restarted": false}';
    let calls = 0;
    const chat = await startChatServer(() => ({ text: clean, delayMs: calls++ === 0 ? firstDelayMs : 0 }));
    const own = makeRoot('pico-replay-model-timeout-');
    put(own, 'manifests/providers/local.json', extractorManifest(chat.endpoint, { limits: { timeout_ms: timeoutMs, max_output_bytes: 8192 } }));
    const ownRt = await openRuntime(own);
    try {
      const call = parseJob({ job: 'job@1', goal: 'what does the log say?', budget_class: budget, label: 'pico call --provider local', plan: [{ step: 'call', capability: 'extract@1', schema: 'log_summary@2', from: [] }] });
      const id = newSession(ownRt, call);
      await ownRt.runSession(id, { job: call, inputs: { call: { text: 'Mar  3 14:21:57 pi5 app[1]: error: disk full\n', trust: 'T1', label: 'input:log' } }, onlyProvider: 'local' });
      const events = readLedger(ownRt.sessionDir(id));
      const report = await replaySession(ownRt, id);
      const d = report.firstDifference;
      return {
        outcomes: events.filter((e) => e.type === 'provider_called').map((e) => (e as { outcome: string }).outcome),
        errors: events.filter((e) => e.type === 'tool_timeout').map((e) => (e as { error: string }).error),
        identical: report.identical, diff: d ? `line ${d.line}:\n- ${d.original}\n+ ${d.replayed}` : '', calls,
      };
    } finally {
      await ownRt.close();
      await chat.close();
    }
  }

  it('a limit cut to the budget: the note keeps the figure of the day it was cut', async () => {
    const r = await slowFirst('interactive', 10_000, 7000);
    expect(r.outcomes[0]).toBe('timeout');
    expect(r.errors[0]).toMatch(/its limit was cut to the \d+ ms left of the interactive budget/);
    expect(r.identical, r.diff).toBe(true);
  }, 60_000);

  it('the replay takes the timeout from the record instead of racing the limit again: the retry and its fact replay byte for byte', async () => {
    const r = await slowFirst('attended', 500, 3000);
    expect(r.outcomes).toEqual(['timeout', 'ok']);
    expect(r.identical, r.diff).toBe(true);
    expect(r.calls).toBe(3); // the replay asked the server once: for the retry, not for the call that timed out
  }, 60_000);
});

describe('a fact that stays true for a while (x-valid-for-s)', () => {
  it('its valid_until is counted from the event\'s own time, so a clock that ticks between two readings still replays byte for byte', async () => {
    const own = makeRoot('pico-replay-valid-');
    const schemaFile = join(own, 'manifests/schemas/log_summary@2.json');
    put(own, 'manifests/schemas/log_summary@2.json', { ...JSON.parse(readFileSync(schemaFile, 'utf8')), 'x-valid-for-s': 300 });
    put(own, 'manifests/tools/says.json', shTool('says', 'echo "Mar  3 14:21:57 pi5 app[1]: error: disk full"'));
    const ownRt = await openRuntime(own);
    try {
      // every reading of this clock is 1 ms later than the one before, as a busy machine's may be
      let ms = Date.parse('2026-12-02T03:00:00.000Z');
      const ticking: Clock = { stamp: () => new Date(ms++).toISOString(), measured: (_seq, _key, live) => live };
      const id = newSession(ownRt, job('attended', step('says')));
      expect((await ownRt.runSession(id, { clock: ticking })).outcome).toBe('answered');
      const fact = readLedger(ownRt.sessionDir(id)).find((e) => e.type === 'fact_added' && e.step === 'says') as { t: string; valid_until: string };
      expect(Date.parse(fact.valid_until) - Date.parse(fact.t)).toBe(300_000);
      const report = await replaySession(ownRt, id);
      expect(report.identical, JSON.stringify(report.firstDifference)).toBe(true);
    } finally {
      await ownRt.close();
    }
  }, 60_000);
});

describe('replay is byte-identical for every example job, run on this machine', () => {
  const files = () => readdirSync(join(root, 'examples/jobs')).filter((f) => f.endsWith('.json')).sort();
  it('every shipped example job, each within its budget class', async () => {
    const differ: string[] = [];
    const cut: string[] = [];
    for (const f of files()) {
      const r = await runAndReplay(parseJob(JSON.parse(readFileSync(join(root, 'examples/jobs', f), 'utf8'))));
      if (!r.identical) differ.push(`${f}: ${r.diff}`);
      if (r.types.includes('budget_exhausted')) cut.push(f);
    }
    expect(files().length).toBeGreaterThanOrEqual(15);
    expect(differ, differ.join('\n\n')).toEqual([]);
    // a class that fits the shipped tools: no example runs out of its budget on this machine
    expect(cut).toEqual([]);
  }, 300_000);
});
