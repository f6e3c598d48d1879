/**
 * What a person reads, measured (issue 30): every goal of a goal file answered
 * as a whole session on this machine, and two figures taken from the ledgers —
 *
 * - sentences with a source: of every sentence of every answer, those that
 *   name facts of their own session (each `from` a `fact_added` line with
 *   that step) or name the fixed phrase they are; an answer written without
 *   sentences counts as one sentence without a source. Goal: 100 %.
 * - parts both answered and not checked: a part the coverage counts as
 *   answered that also carries a "not checked" sentence, and a part said to
 *   be not checked that is only a fragment of a question answered beside it —
 *   more parts than the goal file's own, the extra ones unchecked with no
 *   check planned, in an answer that answered something. Goal: 0.
 *
 * Why beside the planning measures and not in them: these read the answer's
 * own sentences, so the tools run; they are taken only when asked
 * (`answers`), and a goal whose plan changes the machine is left at its wait
 * for approval (nothing is approved, so nothing is changed).
 */
import type { LedgerEvent } from '../../ledger/events.js';
import { readLedger } from '../../ledger/ledger.js';
import type { Runtime } from '../../root/runtime.js';
import type { EvalGoal } from './file.js';
import { session, type GoalRun } from './run.js';
import type { Ratio } from './score.js';

export interface AnswerRun {
  id: string;
  outcome: string | null;
  sentences: number;
  sourced: number;
  /** the parts counted as both answered and not checked, by their words */
  both: string[];
  /** the answer's text, as the person reads it */
  text: string | null;
}

export interface AnswerScore {
  sentences_sourced: Ratio;
  parts_answered_and_unchecked: number;
  outcomes: Record<string, number>;
}

/** Answer one goal as a whole session and read what the person would read. */
export async function answerGoal(rt: Runtime, root: string, g: EvalGoal, run: GoalRun): Promise<AnswerRun> {
  // a plan that changes the machine stops at its approval, and runGoal ran that session already
  if (run.steps.some((s) => s.destructive)) return { id: g.id, outcome: run.outcome, sentences: 0, sourced: 0, both: [], text: run.answer };
  const whole = session(rt, root, g.goal, false);
  await whole.run();
  return readAnswer(g, readLedger(whole.dir));
}

/** The figures of one finished session. */
export function readAnswer(g: EvalGoal, events: readonly LedgerEvent[]): AnswerRun {
  const sent = events.findLast((e) => e.type === 'answer_sent');
  if (sent?.type !== 'answer_sent') return { id: g.id, outcome: null, sentences: 0, sourced: 0, both: [], text: null };
  const said = sent.sentences ?? [{ text: sent.text, from: [] }];
  const sourced = said.filter((s) => (s.from.length === 0 ? !!s.fixed : s.from.every((f) => {
    const e = events[f.seq];
    return e?.type === 'fact_added' && e.step === f.step;
  }))).length;
  const both: string[] = [];
  const coverage = events.findLast((e) => e.type === 'coverage');
  if (coverage?.type === 'coverage') {
    coverage.parts.forEach((p, i) => {
      if (p.status === 'answered' && said.some((s) => s.part === i && (s.fixed === 'unchecked' || s.fixed === 'not-checked'))) both.push(p.text);
    });
    const answered = coverage.parts.some((p) => p.status !== 'unchecked');
    const extra = coverage.parts.length - g.parts.length;
    const fragments = coverage.parts.filter((p) => p.status === 'unchecked' && p.steps.length === 0 && !p.act);
    if (answered && extra > 0) both.push(...fragments.slice(0, extra).map((p) => p.text));
  }
  return { id: g.id, outcome: sent.outcome, sentences: said.length, sourced, both, text: sent.text };
}

/** The two figures over a goal file's answers. */
export function scoreAnswers(runs: readonly AnswerRun[]): AnswerScore {
  const outcomes: Record<string, number> = {};
  for (const r of runs) outcomes[r.outcome ?? 'none'] = (outcomes[r.outcome ?? 'none'] ?? 0) + 1;
  return {
    sentences_sourced: { n: runs.reduce((n, r) => n + r.sourced, 0), of: runs.reduce((n, r) => n + r.sentences, 0) },
    parts_answered_and_unchecked: runs.reduce((n, r) => n + r.both.length, 0),
    outcomes,
  };
}
