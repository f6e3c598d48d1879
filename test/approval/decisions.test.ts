/**
 * The approval decision store and the runtime's gate, on real folders and the real runtime: a
 * decision file is private and final, a damaged one or a bad setting is named with its fix; a
 * session waits (no result, one request however often it resumes) until a person's file grants
 * or denies the step, or the expiry setting denies it by timeout; without an approver the step is
 * denied as before; write_paths belong to destructive tools only.
 */
import { existsSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalError, decide, decisionPath, pendingApprovals, readApprovalSettings, readDecision, writeDecision } from '../../src/approval/decisions.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { runTool } from '../../src/tools/run.js';
import { userName } from '../../src/base/user-name.js';
import { makeRoot, newSession, put } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const job = parseJob({
  job: 'job@1', goal: 'read the log, then prune the archive', budget_class: 'interactive',
  plan: [
    { step: 'read', tool: 'read_file', args: { path: 'examples/data/syslog.txt' }, capability: 'extract@1', schema: 'log_summary@2' },
    { step: 'prune', tool: 'prune_archive', args: { dir: 'examples/archive', keep: 2 }, capability: 'extract@1', schema: 'log_summary@2' },
  ],
});
const grant = (step = 'prune') => ({ decision: 'granted' as const, step, by: 'alice', at: '2026-12-01T10:00:00.000Z', reason: null });
/** Who a decision names: the owner of its file (this process's user), never what the file says. */
const me = userName(process.geteuid!()) ?? `uid ${process.geteuid!()}`;
/** A session folder in a root of its own (a decision file is judged by the root's owner and mode). */
function sessionDir(): string {
  const dir = join(tempDir('pico-approval-'), 'sessions', 's');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

describe('decision files', () => {
  it('are written 0600 and read back, naming the file\'s owner as who decided; a second decision for the step is refused', () => {
    const dir = sessionDir();
    const path = writeDecision(dir, grant());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readDecision(dir, 'prune')).toEqual({ ...grant(), by: me });
    expect(readDecision(dir, 'other')).toBeNull();
    expect(() => writeDecision(dir, { ...grant(), decision: 'denied' })).toThrow(/already decided .*final/);
  });

  it('a damaged decision file or one for another step is an error naming the file and the fix', () => {
    const dir = sessionDir();
    mkdirSync(join(dir, 'approvals'), { mode: 0o700 });
    writeFileSync(decisionPath(dir, 'prune'), '{"decision": "yes"', { mode: 0o600 });
    expect(() => readDecision(dir, 'prune')).toThrow(ApprovalError);
    expect(() => readDecision(dir, 'prune')).toThrow(/prune\.json: not a decision file.*remove it and decide again/);
    writeFileSync(decisionPath(dir, 'x'), JSON.stringify(grant('prune')), { mode: 0o600 });
    expect(() => readDecision(dir, 'x')).toThrow(/decides step "prune", not "x"/);
  });

  it('a request waits for ever by default; expire_after_s denies it by timeout once passed; a bad setting names approval.json', () => {
    const root = tempDir('pico-approval-');
    expect(readApprovalSettings(root)).toEqual({ expire_after_s: null });
    expect(decide(root, 'prune', '2000-01-01T00:00:00.000Z', readApprovalSettings(root))).toBeNull();
    writeFileSync(join(root, 'approval.json'), JSON.stringify({ expire_after_s: 60 }));
    const s = readApprovalSettings(root);
    const since = '2026-12-01T10:00:00.000Z';
    expect(decide(root, 'prune', since, s, Date.parse(since) + 59_000)).toBeNull();
    expect(decide(root, 'prune', since, s, Date.parse(since) + 60_000)).toMatchObject({ decision: 'denied', by: 'timeout' });
    writeFileSync(join(root, 'approval.json'), JSON.stringify({ expire_after_s: 'soon' }));
    expect(() => readApprovalSettings(root)).toThrow(/approval\.json: .*expire_after_s/);
  });
});

describe('the runtime gate', () => {
  it('stops waiting (no result, one request however often it resumes), then a grant runs the step and records who', async () => {
    const root = makeRoot('pico-approval-rt-');
    rt = await openRuntime(root);
    const id = newSession(rt, job);
    const dir = rt.sessionDir(id);
    const files = readdirSync(join(root, 'examples', 'archive')).length;
    for (let i = 0; i < 2; i++) {
      const r = await rt.runSession(id, { approvals: true });
      expect(r.outcome).toBe('waiting');
      expect(r.waitingStep).toBe('prune');
    }
    expect(existsSync(join(dir, 'result.json'))).toBe(false);
    const waiting = readLedger(dir);
    expect(waiting.filter((e) => e.type === 'approval_requested')).toHaveLength(1);
    expect(pendingApprovals(waiting)).toMatchObject([{ step: 'prune', tool: 'prune_archive', args: { dir: 'examples/archive', keep: 2 } }]);
    expect(readdirSync(join(root, 'examples', 'archive')).length).toBe(files);
    writeDecision(dir, grant());
    const r = await rt.runSession(id, { approvals: true });
    expect(r.outcome).toBe('answered');
    const events = readLedger(dir);
    expect(events.find((e) => e.type === 'approval_granted')).toMatchObject({ step: 'prune', by: me, decided_at: grant().at });
    expect(pendingApprovals(events)).toEqual([]);
    expect(readdirSync(join(root, 'examples', 'archive')).length).toBe(2);
  });

  it('an expired request is denied by timeout and the plan goes on without the step (partial, naming it)', async () => {
    const root = makeRoot('pico-approval-rt-');
    put(root, 'approval.json', { expire_after_s: 1 });
    rt = await openRuntime(root);
    const id = newSession(rt, job);
    expect((await rt.runSession(id, { approvals: true })).outcome).toBe('waiting');
    await new Promise((r) => setTimeout(r, 1100));
    const r = await rt.runSession(id, { approvals: true });
    expect(r.outcome).toBe('partial');
    const denied = readLedger(rt.sessionDir(id)).find((e) => e.type === 'approval_denied');
    expect(denied).toMatchObject({ step: 'prune', by: 'timeout', tool: 'prune_archive' });
    expect(r.answer).toContain('prune');
    expect(r.answer).toContain('approval expired');
  });

  it('without an approver (pico run) a destructive step is denied, never run', async () => {
    const root = makeRoot('pico-approval-rt-');
    rt = await openRuntime(root);
    const id = newSession(rt, job);
    const r = await rt.runSession(id);
    expect(r.outcome).toBe('partial');
    const events = readLedger(rt.sessionDir(id));
    expect(events.find((e) => e.type === 'approval_denied')).toMatchObject({ step: 'prune', error: expect.stringMatching(/no approver is configured/) });
    expect(events.some((e) => e.type === 'tool_output' && e.step === 'prune')).toBe(false);
  });
});

describe('write_paths', () => {
  it('a read_only tool that names write_paths is refused before it runs', async () => {
    const root = makeRoot('pico-approval-wp-');
    rt = await openRuntime(root);
    const tool = { ...rt.registry.tool('read_file'), write_paths: ['examples'] };
    await expect(runTool(tool, { path: 'examples/data/syslog.txt' }, { root, workDir: root })).rejects.toThrow(/write_paths is only for a destructive tool/);
  });
});
