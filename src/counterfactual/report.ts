/**
 * The counterfactual report: totals per policy over the compared steps (pass
 * rate, p90 cost), and the side-by-side table a person reads. Only steps both
 * policies can be judged on count toward the totals' pass rates; the ones
 * "not available here" or not run are counted apart, never as failures.
 */
import type { PolicyFile } from './policy-file.js';
import { NOT_CORRECTNESS, type SessionComparison, type StepRun } from './replay.js';

export interface PolicyTotals {
  steps: number;
  passed: number;
  /** passed / steps judged, or null when none was */
  pass_rate: number | null;
  /** nearest-rank p90 of the steps' provider cost, ms */
  p90_cost_ms: number | null;
  /** steps with no verdict here (not run, or the provider not available here) */
  unjudged: number;
}

export interface CounterfactualReport {
  policy: { file: string; doc: PolicyFile };
  note: string;
  sessions: SessionComparison[];
  /** sessions that could not be compared, with why */
  skipped: { session: string; reason: string }[];
  totals: { original: PolicyTotals; replayed: PolicyTotals; changed_provider: number; level4_steps: number };
}

function p90(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(0.9 * s.length) - 1)]!;
}

function totalsOf(runs: StepRun[]): PolicyTotals {
  const judged = runs.filter((r) => r.passed !== null);
  const passed = judged.filter((r) => r.passed).length;
  return {
    steps: judged.length, passed, pass_rate: judged.length ? passed / judged.length : null,
    p90_cost_ms: p90(runs.flatMap((r) => (r.cost_ms === null ? [] : [r.cost_ms]))), unjudged: runs.length - judged.length,
  };
}

/** Put the sessions' comparisons together with totals for each policy. */
export function buildReport(file: string, doc: PolicyFile, sessions: SessionComparison[], skipped: CounterfactualReport['skipped']): CounterfactualReport {
  const steps = sessions.flatMap((s) => s.steps);
  return {
    policy: { file, doc }, note: NOT_CORRECTNESS, sessions, skipped,
    totals: {
      original: totalsOf(steps.map((s) => s.original)), replayed: totalsOf(steps.map((s) => s.replayed)),
      changed_provider: steps.filter((s) => s.replayed.provider !== null && s.replayed.provider !== s.original.provider).length,
      level4_steps: steps.filter((s) => s.level4).length,
    },
  };
}

const pct = (x: number | null) => (x === null ? '-' : `${Math.round(x * 100)}%`);
const ms = (x: number | null) => (x === null ? '-' : `${x} ms`);
const cell = (r: StepRun) => `${r.provider ?? '(none)'} ${r.passed === null ? (r.note ?? 'no verdict') : r.passed ? 'pass' : 'FAIL'} ${ms(r.cost_ms)}`;

/** The side-by-side table and the totals, for a person. */
export function renderReport(r: CounterfactualReport, opts: { perStep: boolean }): string {
  const lines: string[] = [`policy ${r.policy.file}${r.policy.doc.label ? ` (${r.policy.doc.label})` : ''} against the original runs`];
  if (opts.perStep) {
    for (const s of r.sessions) {
      lines.push('', `session ${s.session} (plan: ${s.plan_source})${s.composition_differs ? ' — recorded under another composition: today\'s providers were replayed' : ''}`);
      const w = Math.max(4, ...s.steps.map((x) => x.step.length));
      const ow = Math.max(8, ...s.steps.map((x) => cell(x.original).length));
      lines.push(`  ${'step'.padEnd(w)}  ${'original'.padEnd(ow)}  under the policy`);
      for (const x of s.steps) {
        lines.push(`  ${x.step.padEnd(w)}  ${cell(x.original).padEnd(ow)}  ${cell(x.replayed)}${x.level4 ? '  [level-4]' : ''}`);
        if (x.replayed.passed === false && x.replayed.note) lines.push(`  ${''.padEnd(w)}  ${''.padEnd(ow)}  ${x.replayed.note}`);
      }
    }
  }
  for (const k of r.skipped) lines.push(`skipped ${k.session}: ${k.reason}`);
  const t = r.totals;
  const row = (name: string, x: PolicyTotals) => `  ${name.padEnd(10)} pass rate ${pct(x.pass_rate)} (${x.passed}/${x.steps})  p90 cost ${ms(x.p90_cost_ms)}${x.unjudged ? `  ${x.unjudged} without a verdict` : ''}`;
  lines.push('', `totals over ${r.sessions.length} session(s), ${r.sessions.reduce((a, s) => a + s.steps.length, 0)} step(s); the provider changed on ${t.changed_provider}:`,
    row('original', t.original), row('policy', t.replayed), '', `note: ${r.note} (${t.level4_steps} step(s) here).`, 'nothing was written into the original sessions.');
  return lines.join('\n');
}
