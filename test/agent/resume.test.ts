/**
 * Design §11 for goal-only jobs: a session that stopped between a failed
 * planned step and its replan (a crash) replans when it resumes, and a
 * session that stopped after planning does not plan again.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/runtime/provider.js';
import { readLedger } from '../../src/ledger/ledger.js';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime } from '../../src/root/runtime.js';
import type { ToolRunner } from '../../src/runtime/step.js';
import { makeRoot, newSession, REPO } from '../helpers/root.js';

const DF = readFileSync(join(REPO, 'test/fixtures/disk_usage/df-P-pi-root-full.input'), 'utf8');
const failingJournal: ToolRunner = async (tool) => {
  if (tool.name === 'capture_df') return { output: DF, exitCode: 0, durationMs: 2, truncated: false };
  throw new ProviderError('tool_failed', 'journalctl: no journal files were found', { exitCode: 1 });
};

/** Cut the ledger back to just after the event at `seq` and drop result.json: what a crash there leaves. */
function crashAfter(dir: string, seq: number): void {
  const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
  writeFileSync(join(dir, 'events.jsonl'), lines.slice(0, seq + 1).join('\n') + '\n');
  rmSync(join(dir, 'result.json'), { force: true });
}

describe('goal-only sessions resume', () => {
  it('a crash between a failed planned step and its replan replans on resume; planning is not repeated', async () => {
    const root = makeRoot('pico-resume-plan-');
    const rt = await openRuntime(root);
    try {
      const id = newSession(rt, parseJob({ job: 'job@1', goal: 'Why is the disk full?', budget_class: 'interactive' }));
      await rt.runSession(id, { runTool: failingJournal });
      const dir = rt.sessionDir(id);
      const first = readLedger(dir);
      const failed = first.find((e) => e.type === 'step_failed' && e.step === 'journal_window')!;
      // the replan is asked for: a planner step, the retrieval planner's plan for it (no model step),
      // or the agent's own record that nothing new covers the part
      const replanned = (e: LedgerEvent) => (e.type === 'plan_created' && !!e.replan) || ('step' in e && e.step === '@replan' && (e.type === 'step_started' || e.type === 'capability_gap'));
      expect(first.some(replanned)).toBe(true);
      crashAfter(dir, failed.seq);
      await rt.runSession(id, { runTool: failingJournal });
      const after = readLedger(dir);
      const resumedAt = after.findIndex((e) => e.type === 'resumed');
      expect(resumedAt).toBeGreaterThan(failed.seq);
      const tail = after.slice(resumedAt);
      expect(tail.some(replanned)).toBe(true);
      expect(tail.some((e) => e.type === 'step_started' && e.step === '@plan')).toBe(false);
      expect(after.filter((e) => e.type === 'plan_created' && !e.replan)).toHaveLength(1);
      expect(after.at(-1)?.type).toBe('answer_sent');
    } finally {
      await rt.close();
    }
  }, 60_000);
});
