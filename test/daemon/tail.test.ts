/**
 * Issue 3 item 7: "`pico watch JOB` follows a job's events live until it
 * ends". A real file appended by this test while the follower reads it.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { describeLine } from '../../src/daemon/describe.js';
import { followLedger } from '../../src/daemon/tail.js';
import { tempRoot } from './helpers.js';

const ev = (seq: number, type: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ seq, t: '2026-11-29T11:35:12.000Z', type, session_id: 's', ...extra }) + '\n';

describe('followLedger', () => {
  it('yields lines as they are appended, waits for a ledger that does not exist yet, and ends at answer_sent', async () => {
    const dir = tempRoot();
    const ledger = join(dir, 'events.jsonl');
    const got: string[] = [];
    const done = (async () => {
      for await (const line of followLedger(ledger, join(dir, 'result.json'), { pollMs: 10 })) got.push(JSON.parse(line).type);
    })();
    await sleep(40);
    writeFileSync(ledger, ev(0, 'composition'));
    await sleep(40);
    appendFileSync(ledger, ev(1, 'user_input') + ev(2, 'answer_sent', { outcome: 'answered', text: 'ok' }) + ev(3, 'never_shown'));
    await done;
    expect(got).toEqual(['composition', 'user_input', 'answer_sent']);
  });

  it('a torn last line is not shown until its newline arrives', async () => {
    const dir = tempRoot();
    const ledger = join(dir, 'events.jsonl');
    const full = ev(1, 'answer_sent', { outcome: 'answered' });
    writeFileSync(ledger, ev(0, 'composition') + full.slice(0, 20));
    const got: string[] = [];
    const done = (async () => {
      for await (const line of followLedger(ledger, join(dir, 'result.json'), { pollMs: 10 })) got.push(line);
    })();
    await sleep(60);
    expect(got).toHaveLength(1);
    appendFileSync(ledger, full.slice(20));
    await done;
    expect(got[1]).toBe(full.trimEnd());
  });

  it('a session closed with result.json and no terminal event ends the follow', async () => {
    const dir = tempRoot();
    writeFileSync(join(dir, 'result.json'), '{"outcome":"declined"}');
    const got: string[] = [];
    for await (const line of followLedger(join(dir, 'events.jsonl'), join(dir, 'result.json'), { pollMs: 10 })) got.push(line);
    expect(got).toEqual([]);
  });

  it('stops when the job vanishes before it has a ledger (rejected)', async () => {
    const dir = tempRoot();
    const got: string[] = [];
    for await (const line of followLedger(join(dir, 'events.jsonl'), join(dir, 'result.json'), { pollMs: 10, vanished: () => true })) got.push(line);
    expect(got).toEqual([]);
  });
});

describe('describeLine', () => {
  it('shows seq, time, type and the fields that matter, never a whole fact', () => {
    const line = describeLine(ev(4, 'fact_added', { step: 's1', provider: 'log-summary', schema: 'log_summary@2', trust: 'T1', confidence: null, fact: { huge: 'x'.repeat(500) } }));
    expect(line).toMatch(/^#  4 11:35:12 fact_added\s+step=s1 provider=log-summary schema=log_summary@2 trust=T1$/);
    expect(describeLine('{broken')).toMatch(/^\(unreadable line\)/);
    expect(describeLine(ev(9, 'some_future_event'))).toMatch(/some_future_event/);
  });
});
