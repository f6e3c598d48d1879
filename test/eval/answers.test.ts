// pico eval --goals measures what a person reads (issue 30): every goal answered as a whole
// session in a scratch root, the answers' sentences counted with their sources, and the parts both
// answered and not checked. A real goal file, real sessions; and an answer of an older ledger,
// which has no sentences, counts as a sentence without a source.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateGoals, renderGoalTable } from '../../src/eval/goals/index.js';
import { readAnswer } from '../../src/eval/goals/answers.js';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { tempDir } from '../helpers/temp.js';

describe('pico eval --goals: the answers', () => {
  it('counts every sentence with a source and no part both answered and not checked, and prints both', async () => {
    const dir = tempDir('pico-eval-answers-');
    const file = join(dir, 'goals.json');
    writeFileSync(file, JSON.stringify({ format: 'goals@1', goals: [
      { id: 'mem', goal: 'how much ram is free', kind: 'answerable', parts: [{ tools: ['memory_usage'] }] },
      { id: 'mixed', goal: 'how much ram is free and whats the weather tomorrow', kind: 'answerable', parts: [{ tools: ['memory_usage'] }, { tools: [], not: 'out of scope' }] },
      { id: 'joke', goal: 'tell me a joke', kind: 'unanswerable', parts: [{ tools: [], not: 'out of scope' }] },
    ] }));
    const e = await evaluateGoals(file, { answers: true });
    const a = e.answers!;
    expect(a.runs.map((r) => r.outcome)).toEqual(['answered', 'partial', 'declined']);
    expect(a.score.sentences_sourced.of).toBeGreaterThan(4);
    expect(a.score.sentences_sourced.n).toBe(a.score.sentences_sourced.of);
    expect(a.score.parts_answered_and_unchecked).toBe(0);
    const table = renderGoalTable(e);
    expect(table).toMatch(/sentences with a source \(goal 100 %\)\s+(\d+)\/\1 \(100\.0 %\)/);
    expect(table).toMatch(/parts both answered and not checked \(goal 0\)\s+0/);
    // without answers, the planning figures alone
    expect(renderGoalTable(await evaluateGoals(file, { limit: 1 }))).not.toMatch(/sentences with a source/);
  }, 120_000);

  it('an answer without sentences (an older ledger) is one sentence without a source; a fragment of an answered part is counted', () => {
    const g = { id: 'x', goal: 'list my network interfaces and their ips', kind: 'answerable' as const, parts: [{ tools: ['network'] }] };
    const base = { t: '', session_id: 's' };
    const old = readAnswer(g, [{ ...base, seq: 0, type: 'answer_sent', outcome: 'answered', text: 'Default route via "192.0.2.1".', missing: [], trust: 'T1', spent: { wall_ms: 1, model_calls: 0, cpu_ms: 1 } }] as LedgerEvent[]);
    expect(old).toMatchObject({ sentences: 1, sourced: 0 });
    const fragment = readAnswer(g, [
      { ...base, seq: 0, type: 'coverage', parts: [
        { text: 'list my network interfaces', status: 'answered', steps: ['network'], from: [{ step: 'network', seq: 9 }] },
        { text: 'their ips', status: 'unchecked', steps: [], from: [], said: 'I could not check "their ips".' },
      ] },
      { ...base, seq: 1, type: 'answer_sent', outcome: 'partial', text: 'I could not check "their ips".', missing: [], trust: 'T1', spent: { wall_ms: 1, model_calls: 0, cpu_ms: 1 }, sentences: [{ text: 'I could not check "their ips".', part: 1, from: [], fixed: 'unchecked' }] },
    ] as LedgerEvent[]);
    expect(fragment.both).toEqual(['their ips']);
    // a source that names no fact of the session is not a source
    const wrong = readAnswer(g, [{ ...base, seq: 0, type: 'answer_sent', outcome: 'answered', text: 'x', missing: [], trust: 'T1', spent: { wall_ms: 1, model_calls: 0, cpu_ms: 1 }, sentences: [{ text: 'x', from: [{ step: 'network', seq: 0 }] }] }] as LedgerEvent[]);
    expect(wrong).toMatchObject({ sentences: 1, sourced: 0 });
  });
});
