/**
 * `pico eval --goals FILE` as a function, and its table: read the goal file
 * against the root's tools, plan every goal in a scratch root (run.ts),
 * score the runs (score.ts) and render the result for a person or, with
 * `--json`, for a script. The table holds no clock or host name except the
 * planning times, which are labelled as measured.
 */
import { openRuntime } from '../../root/runtime.js';
import { createLogger } from '../../base/log.js';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { readGoalFile, type EvalGoal } from './file.js';
import { runGoal, scratchRoot, type GoalRun } from './run.js';
import { scoreGoals, type GoalScore, type Ratio } from './score.js';
import { answerGoal, scoreAnswers, type AnswerRun, type AnswerScore } from './answers.js';

export interface GoalEval {
  file: string;
  digest: string;
  score: GoalScore;
  runs: GoalRun[];
  goals: EvalGoal[];
  /** what a person reads, when every goal was answered too (`answers`) */
  answers?: { score: AnswerScore; runs: AnswerRun[] };
}

/** Plan and score every goal of a file in a scratch root made from the package (or from `from`). */
export async function evaluateGoals(file: string, o: { from?: string; limit?: number; only?: RegExp; answers?: boolean } = {}): Promise<GoalEval> {
  const root = scratchRoot(o.from);
  const rt = await openRuntime(root, { log: createLogger({ to: 'stderr', level: 'error' }) });
  try {
    const read = readGoalFile(path.resolve(file), new Set(rt.registry.tools.keys()));
    let goals = read.goals.filter((g) => !o.only || o.only.test(g.id));
    if (o.limit) goals = goals.slice(0, o.limit);
    const runs: GoalRun[] = [];
    const answered: AnswerRun[] = [];
    for (const g of goals) {
      const run = await runGoal(rt, root, g);
      runs.push(run);
      if (o.answers) answered.push(await answerGoal(rt, root, g, run));
    }
    return { file, digest: read.digest, score: scoreGoals(goals, runs), runs, goals, ...(o.answers ? { answers: { score: scoreAnswers(answered), runs: answered } } : {}) };
  } finally {
    await rt.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const show = (r: Ratio) => `${r.n}/${r.of}${r.of ? ` (${((100 * r.n) / r.of).toFixed(1)} %)` : ''}`;

const counts = (m: Record<string, number>) => Object.keys(m).length ? Object.entries(m).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, v]) => `${k} ${v}`).join(', ') : '-';

/** The table a person reads. */
export function renderGoalTable(e: GoalEval, o: { misses?: boolean } = {}): string {
  const s = e.score;
  const rows: [string, string][] = [
    ['goals', String(s.goals)],
    ['retrieval recall@3 (answerable parts)', s.recall_at_3 === null ? '-' : s.recall_at_3.toFixed(3)],
    ['plans holding every expected tool', show(s.full_plans)],
    ['  … and every expected argument', show(s.with_args)],
    ['parts covered', show(s.parts_covered)],
    ['right declines (out of scope, unsupported acts)', show(s.declines)],
    ['  … in plain words', show(s.plain_declines)],
    ['destructive steps gated with the asked arguments', show(s.gated)],
    ['acts no tool makes, declined (goals and parts)', show(s.acts_declined)],
    ['units read from a quantity or a time', show(s.units_from_quantities)],
    ['plans by source', counts(s.plans_by_source)],
    ['parts by source', counts(s.parts_by_source)],
    ['selections asked (parts, by kind)', counts(s.selections)],
    ['why goals whose answer names a cause (this machine)', show(s.why_causes)],
    ['planning per goal p50 / p90 (measured)', `${s.p50_ms.toFixed(1)} / ${s.p90_ms.toFixed(1)} ms`],
    ...(e.answers ? [
      ['sentences with a source (goal 100 %)', show(e.answers.score.sentences_sourced)],
      ['parts both answered and not checked (goal 0)', String(e.answers.score.parts_answered_and_unchecked)],
      ['answers by outcome', Object.entries(e.answers.score.outcomes).sort().map(([k, v]) => `${k} ${v}`).join(', ')],
    ] as [string, string][] : []),
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  const lines = [`pico eval --goals ${e.file}`, ...rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`)];
  if (o.misses !== false && s.misses.length) {
    lines.push('', `misses (${s.misses.length}):`);
    for (const m of s.misses) lines.push(`  ${m.id.padEnd(10)} ${m.what.padEnd(7)} ${m.detail}`);
  }
  const both = e.answers?.runs.filter((r) => r.both.length > 0) ?? [];
  if (o.misses !== false && both.length) {
    lines.push('', 'parts both answered and not checked:');
    for (const r of both) lines.push(`  ${r.id.padEnd(10)} ${r.both.map((t) => `"${t}"`).join(', ')}`);
  }
  return lines.join('\n');
}

/** The document `--json` prints. */
export function goalJson(e: GoalEval): Record<string, unknown> {
  return {
    file: e.file, digest: e.digest, ...e.score,
    ...(e.answers ? { answers: e.answers.score } : {}),
    goals: e.runs.map((r, i) => ({
      id: r.id, goal: e.goals[i]!.goal, kind: e.goals[i]!.kind, planned: r.planned, source: r.source, playbooks: r.playbooks, steps: r.steps, retrieved: r.retrieved, outcome: r.outcome, answer: r.answer, approval: r.approval, ...(r.cause ? { cause: r.cause } : {}), parts: r.parts, plan_ms: Math.round(r.plan_ms * 10) / 10,
      ...(e.answers ? { answered: e.answers.runs[i] } : {}),
    })),
  };
}
