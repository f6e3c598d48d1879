/**
 * Human approval, end to end on the real compiled daemon: a job with a destructive step stops at
 * approval_requested while later jobs finish; nothing of it runs while it waits; a daemon restart
 * changes nothing; `pico approve` resumes it to answered, `pico deny` to partial naming the step.
 */
import { readdirSync, readFileSync, readlinkSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { readLedgerText } from '../../src/ledger/ledger.js';
import { goodJob, pruneJob } from '../daemon/helpers.js';
import { finished, picoAsync as pico, readyDaemon, stopDaemon, waitsForApproval } from '../daemon/spawn.js';
import { makeRoot } from '../helpers/root.js';

const ledger = (root: string, id: string) => readLedgerText(readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8'), id).events;
const ledgerText = (root: string, id: string) => readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8');
const result = (root: string, id: string) => JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { outcome: string; missing: string[]; answer: string };

/** Processes whose working folder or command line belongs to the session. */
function processesOf(root: string, id: string): number[] {
  const dir = join(root, 'sessions', id);
  const out: number[] = [];
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cwd = readlinkSync(`/proc/${p}/cwd`);
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (cwd.startsWith(dir) || cmd.includes(id)) out.push(Number(p));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

describe('approval of destructive steps (real daemon)', () => {
  it('waits without running while later jobs finish, survives a restart, resumes on approve (answered) and on deny (partial naming the step)', async () => {
    const root = makeRoot('pico-e2e-approval-');
    const archive = join(root, 'examples', 'archive');
    const before = readdirSync(archive).length;
    let d = await readyDaemon(root);
    const a = (await dropIntoInbox(pruneJob(), root)).id;
    await d.waitFor(waitsForApproval(a));
    const b = (await dropIntoInbox(Buffer.from(JSON.stringify(goodJob('interactive'))), root)).id;
    const c = (await dropIntoInbox(Buffer.from(JSON.stringify(goodJob('background'))), root)).id;
    await d.waitFor(finished(b));
    await d.waitFor(finished(c));
    const x = (await dropIntoInbox(pruneJob(), root)).id;
    await d.waitFor(waitsForApproval(x));

    // stopped on disk: the request is the last word, no answer, no result, nothing of it runs
    for (const id of [a, x]) {
      const evs = ledger(root, id);
      const req = evs.find((e) => e.type === 'approval_requested');
      expect(req).toMatchObject({ step: 'prune', tool: 'prune_archive', args: { dir: 'examples/archive', keep: 3 } });
      expect(evs.some((e) => e.type === 'answer_sent' || e.type === 'tool_output' && e.step === 'prune')).toBe(false);
      expect(existsSync(join(root, 'sessions', id, 'result.json'))).toBe(false);
      expect(processesOf(root, id)).toEqual([]);
    }
    expect(readdirSync(archive).length).toBe(before);
    // status.json is written coalesced, a moment after the log line: look until it lists both (or 10 s)
    type Status = { running: unknown; waiting?: { session: string; step: string }[] };
    let status: Status = { running: null };
    for (let i = 0; i < 50 && (status.waiting ?? []).length < 2; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      status = (JSON.parse((await pico(['status', '--root', root, '--json'])).stdout) as { status: Status }).status;
    }
    expect((status.waiting ?? []).map((w) => w.session).sort()).toEqual([a, x].sort());
    expect(status.running).toBeNull();
    const watch = await pico(['watch', a, '--root', root]);
    expect(watch.code).toBe(0);
    expect(watch.stdout).toContain(`pico approve ${a} prune`);

    // a restart changes nothing: both still wait, their ledgers untouched
    const texts = [ledgerText(root, a), ledgerText(root, x)];
    await stopDaemon(d);
    d = await readyDaemon(root);
    await d.waitFor(waitsForApproval(a));
    await d.waitFor(waitsForApproval(x));
    await new Promise((r) => setTimeout(r, 1500));
    expect([ledgerText(root, a), ledgerText(root, x)]).toEqual(texts);
    expect(d.lines.some((l) => l.event === 'queued' && (l.session === a || l.session === x))).toBe(false);

    const ok = await pico(['approve', a, '--root', root]);
    expect(ok.code, ok.stderr).toBe(0);
    await d.waitFor(finished(a));
    expect(result(root, a).outcome).toBe('answered');
    const granted = ledger(root, a).find((e) => e.type === 'approval_granted');
    expect(granted).toMatchObject({ step: 'prune' });
    expect(typeof (granted as { by: string }).by).toBe('string');
    expect(readdirSync(archive).length).toBe(3);

    const no = await pico(['deny', x, 'prune', '--reason', 'not today', '--root', root]);
    expect(no.code, no.stderr).toBe(0);
    await d.waitFor(finished(x));
    const rx = result(root, x);
    expect(rx.outcome).toBe('partial');
    expect(rx.missing.join(' ')).toContain('prune');
    expect(rx.missing.join(' ')).toContain('not today');
    expect(ledger(root, x).find((e) => e.type === 'approval_denied')).toMatchObject({ step: 'prune', tool: 'prune_archive' });
    expect(ledger(root, x).some((e) => e.type === 'tool_output' && e.step === 'prune')).toBe(false);
    // a decision is final and for one step only
    expect((await pico(['approve', x, 'prune', '--root', root])).code).toBe(2);
    await stopDaemon(d);
  }, 90_000);

  it('pico approve and pico deny refuse mistakes with exit 2 and say what to do: not an id, no such session, nothing waits', async () => {
    const root = makeRoot('pico-e2e-approval-cli-');
    const bad = await pico(['approve', 'nope', '--root', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a session id');
    const missing = await pico(['deny', '20261201-000000-000000000000', '--root', root]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no session 20261201-000000-000000000000');
    // pico run has no approver: its session ends with the step denied, and then nothing waits
    const run = await pico(['run', join(root, 'examples', 'jobs', 'prune-the-log-archive.json'), '--root', root, '--json']);
    const id = (JSON.parse(run.stdout) as { session_id?: string; sessionId?: string }).session_id ?? (JSON.parse(run.stdout) as { sessionId: string }).sessionId;
    const none = await pico(['approve', id, '--root', root]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`session ${id} waits for no approval`);
    const step = await pico(['deny', id, 'other', '--root', root]);
    expect(step.code).toBe(2);
    expect(step.stderr).toContain('step other of session');
  });
});
