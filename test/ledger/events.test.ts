// The ledger's event check: a compiled (ajv) check made from the zod schemas lets valid
// events through; zod stays the definition. These tests hold the two to the same verdicts
// and the same output, on the events of a real session and on broken ones.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { eventSchemas, parseEvent, type LedgerEvent } from '../../src/ledger/events.js';
import { openRuntime } from '../../src/root/runtime.js';
import { makeRoot } from '../helpers/root.js';
import { newSessionId } from '../../src/ledger/session-id.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** The events of one real run of the example job (every type a normal session writes). */
async function realEvents(): Promise<LedgerEvent[]> {
  const root = makeRoot('pico-events-');
  roots.push(root);
  const id = newSessionId();
  mkdirSync(join(root, 'sessions', id));
  writeFileSync(join(root, 'sessions', id, 'job.json'), readFileSync(join(root, 'examples/jobs/why-is-the-disk-full.json')));
  const rt = await openRuntime(root);
  try {
    await rt.runSession(id);
  } finally {
    await rt.close();
  }
  return readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LedgerEvent);
}

/** zod's own verdict, as parseEvent reported it before the compiled check existed. */
function zodVerdict(value: Record<string, unknown>): { ok: true; json: string } | { ok: false; message: string } {
  const r = (eventSchemas as unknown as Record<string, ZodType>)[value.type as string]!.safeParse(value);
  if (r.success) return { ok: true, json: JSON.stringify(r.data) };
  const i = r.error.issues[0]!;
  return { ok: false, message: `ledger event ${String(value.type)}: ${i.path.join('.') || '(root)'}: ${i.message}` };
}

function verdict(value: Record<string, unknown>): { ok: true; json: string } | { ok: false; message: string } {
  try {
    return { ok: true, json: JSON.stringify(parseEvent(value)) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

const failure = { seq: 3, t: '2026-11-29T00:00:00.000Z', session_id: 's', step: 'disk', provider: null, capability: 'extract@1', schema: 'disk_usage@1', error: 'boom', attempt: 1 };

describe('ledger event check', () => {
  it('passes every event of a real session unchanged, with the same line zod writes', async () => {
    const events = await realEvents();
    expect(new Set(events.map((e) => e.type)).size).toBeGreaterThanOrEqual(8);
    for (const e of events) {
      const shuffled = Object.fromEntries(Object.entries(e).reverse()); // key order of the input does not matter
      expect(verdict(shuffled)).toEqual(zodVerdict(e as unknown as Record<string, unknown>));
      expect(Object.keys(parseEvent(shuffled)).slice(0, 4)).toEqual(['seq', 't', 'session_id', 'type']);
    }
  });

  it('refuses what zod refuses, with zod\'s message', async () => {
    const [composition, userInput, policy, plan, started] = await realEvents();
    const broken: Record<string, unknown>[] = [
      { ...composition, extra: 1 }, // unknown field
      { ...composition, seq: -1 },
      { ...composition, seq: 1.5 },
      { ...composition, session_id: '' },
      { ...userInput, trust: 'trusted' },
      { ...userInput, budget_class: 'urgent' },
      { ...userInput, job: [] },
      { ...policy, measurements: { p: { s: { pass_rate: 2, n: 1, p50_ms: null, p90_ms: null, source: 'measured' } } } },
      { ...plan, steps: [{ step: 'x' }] },
      { ...started, spent: { wall_ms: Infinity, model_calls: 0, cpu_ms: 0 } },
      { ...started, spent: { wall_ms: NaN, model_calls: 0, cpu_ms: 0 } },
      { ...started, tool: undefined },
      { ...failure, type: 'tool_failed', attempt: 'one' },
      { ...failure, type: 'capability_gap', rejected: [{ provider: 'p', filter: 'f' }] },
      { ...failure, type: 'hook_rejected', phase: 'commit' }, // hook missing
    ];
    for (const b of broken) {
      const want = zodVerdict(b);
      expect(want.ok, JSON.stringify(b)).toBe(false);
      expect(verdict(b)).toEqual(want);
    }
  });

  it('takes the optional fields a failure event may carry, and refuses an unknown type by name', () => {
    const ok = { ...failure, type: 'tool_failed', detail_trust: 'T1', tool: 'read_file', fixes: ['strip_fences'] };
    expect(verdict(ok)).toEqual(zodVerdict(ok));
    expect(() => parseEvent({ ...failure, type: 'tool_exploded' })).toThrow(/unknown ledger event type "tool_exploded"/);
  });
});
