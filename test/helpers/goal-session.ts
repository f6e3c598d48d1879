/**
 * Goal-only sessions for planning tests: one scratch root (`pico init` from the package, as
 * `pico eval --goals` makes it) and a runtime opened once per test file, and a function that
 * plans a goal in a plan-only session — or, `whole`, runs it as a whole session with approvals on,
 * which stops at a destructive step — and reads back the ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { readLedger } from '../../src/ledger/ledger.js';
import { newSessionId } from '../../src/ledger/session-id.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime, type Runtime } from '../../src/root/runtime.js';
import { scratchRoot } from '../../src/eval/goals/run.js';

export type PlanCreated = Extract<LedgerEvent, { type: 'plan_created' }>;
export interface GoalSession { events: LedgerEvent[]; created: PlanCreated | undefined; outcome: string; answer: string | null }

/** Register the root's setup and teardown with the test file; the returned function plans (or runs) one goal. */
export function goalSessions(): (goal: string, whole?: boolean) => Promise<GoalSession> {
  let root = '';
  let rt: Runtime | undefined;
  beforeAll(async () => {
    root = scratchRoot();
    rt = await openRuntime(root);
  }, 60_000);
  afterAll(async () => {
    await rt?.close();
    rmSync(root, { recursive: true, force: true });
  });
  return async (goal, whole = false) => {
    const dir = mkdtempSync(join(root, 'sessions', 't-'));
    const job = parseJob({ job: 'job@1', goal, budget_class: 'attended' }, 'test');
    const r = await rt!.runSession(newSessionId(), { job, sessionDir: dir, ...(whole ? { approvals: true } : { planOnly: true }) });
    const events = readLedger(dir);
    return { events, created: events.find((e): e is PlanCreated => e.type === 'plan_created'), outcome: r.outcome, answer: r.answer };
  };
}
