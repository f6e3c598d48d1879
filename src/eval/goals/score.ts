/**
 * Scoring a goal run: how many answerable goals got a plan holding what an
 * admin would run, how many of the tools retrieval ranked were the right
 * ones, whether a question nothing here serves was declined in words a
 * person reads, and whether every asked-for change waits for a person with
 * the arguments asked. Pure: runs in, numbers and misses out.
 *
 * - recall@3: per checkable part of an answerable goal, the share of its
 *   expected tools (at most 3 counted) among the top 3 retrieval ranked for
 *   that part; when the agent split the goal into as many parts as the file
 *   has, part i is compared with the agent's part i, else with everything
 *   the agent retrieved for the goal.
 * - full plans: answerable goals whose plan holds every expected tool of
 *   every checkable part; "with args": and every expected argument.
 * - parts covered: checkable parts whose tools are all in the plan.
 * - right declines: unanswerable and unsupported-action goals that got no
 *   plan and a declined answer; "plain": and the answer carries no jargon.
 * - gated: destructive goals whose session stopped for approval of the
 *   expected tool with the expected arguments.
 * - by source: plans (and the plan's parts) counted by who planned them —
 *   playbook, retrieval, model, cache, or none.
 * - selections: recorded parts that ask something of the facts other than
 *   the subject's state (a list, a count, a membership, lines, a why).
 * - units from quantities: steps whose `unit` argument is a quantifier, a
 *   number, a clock time or a date with a unit suffix (`many.service`,
 *   `10pm.service`) — the judge's own short list, not the agent's.
 * - acts declined: requests to change something no tool changes — whole
 *   goals, and such parts inside an answerable goal — that got no step.
 *
 * An expected argument is a value compared as JSON, or `{"match": REGEX}`
 * for a string whose exact text depends on the day (a date).
 */
import type { EvalGoal, GoalPart } from './file.js';
import type { GoalRun, PlannedStep } from './run.js';

/** Words of the machinery that a person should never have to read in an answer. */
export const JARGON = /@\d|@plan|\bprovider\b|\bschemas?\b|capabilit|\bgguf\b|\bhttp\b|\bT[012]\b|must NOT|\bbytes\b|playbook|planner|retriev|fact_schema|\bstep\b|\bnull\b|[{}]/i;

export interface Miss {
  id: string;
  what: 'plan' | 'args' | 'recall' | 'decline' | 'plain' | 'gate' | 'unit' | 'act';
  detail: string;
}

export interface Ratio { n: number; of: number }

export interface GoalScore {
  goals: number;
  recall_at_3: number | null;
  full_plans: Ratio;
  with_args: Ratio;
  parts_covered: Ratio;
  declines: Ratio;
  plain_declines: Ratio;
  gated: Ratio;
  /** plans by who made them (playbook, retrieval, model, cache, none) */
  plans_by_source: Record<string, number>;
  /** the recorded parts of every plan by who planned them (none: a part no step serves) */
  parts_by_source: Record<string, number>;
  /** recorded parts with an ask other than the subject's state, by kind */
  selections: Record<string, number>;
  /** steps whose unit argument is a quantifier, number, clock time or date, of all steps with a unit argument */
  units_from_quantities: Ratio;
  /** requests to change what no tool changes (goals and parts of answerable goals) that got no step */
  acts_declined: Ratio;
  /** planning time per goal (the plan-only session), ms */
  p50_ms: number;
  p90_ms: number;
  misses: Miss[];
}

const ratio = (n: number, of: number): Ratio => ({ n, of });

/** An expected value `{"match": REGEX}` matches a string by pattern; any other value must be equal as JSON. */
function valueMatches(want: unknown, got: unknown): boolean {
  if (want !== null && typeof want === 'object' && !Array.isArray(want) && Object.keys(want).length === 1 && typeof (want as { match?: unknown }).match === 'string') {
    return typeof got === 'string' && new RegExp((want as { match: string }).match).test(got);
  }
  return JSON.stringify(got) === JSON.stringify(want);
}

function argsMatch(want: Record<string, unknown>, got: Record<string, unknown>): boolean {
  return Object.entries(want).every(([k, v]) => valueMatches(v, got[k]));
}

const bump = (m: Record<string, number>, k: string) => { m[k] = (m[k] ?? 0) + 1; };

/** Words that count things or name a time: never a unit's name (the judge's list, kept apart from the agent's vocabulary). */
const QUANTITY = /^(?:\d[\d:.,-]*(?:am|pm|h|m|s|min|st|nd|rd|th)?|(?:a|an|the|all|any|both|each|every|few|many|more|most|much|several|some|none|no|one|two|three|four|five|six|seven|eight|nine|ten|dozen|lot|lots|half|noon|midnight|morning|evening|night|tonight|today|yesterday|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|things|stuff|anything|something|everything|nothing))$/i;

/** Whether a unit argument is a quantity or a time with a unit suffix. */
export function unitFromQuantity(unit: string): boolean {
  return QUANTITY.test(unit.replace(/\.(?:service|socket|timer|mount|target|path|scope|slice|device|swap|automount)$/i, ''));
}

/** The expected arguments of a part that no step of its tool carries, as "tool.key=value" strings. */
function missingArgs(part: GoalPart, steps: readonly PlannedStep[]): string[] {
  const out: string[] = [];
  for (const [tool, want] of Object.entries(part.args ?? {})) {
    const calls = steps.filter((s) => s.tool === tool);
    if (calls.some((s) => argsMatch(want, s.args))) continue;
    const got = calls.length ? calls.map((s) => JSON.stringify(s.args)).join(' | ') : 'no call';
    out.push(`${tool} ${JSON.stringify(want)} (got ${got})`);
  }
  return out;
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** Score the runs of a goal file (runs in the file's order, one per goal). */
export function scoreGoals(goals: readonly EvalGoal[], runs: readonly GoalRun[]): GoalScore {
  const misses: Miss[] = [];
  const recalls: number[] = [];
  let full = 0, withArgs = 0, answerable = 0, parts = 0, covered = 0;
  let refusable = 0, declined = 0, plain = 0, destructive = 0, gated = 0;
  let unitSteps = 0, quantities = 0, acts = 0, actsDeclined = 0;
  const plansBySource: Record<string, number> = {}, partsBySource: Record<string, number> = {}, selections: Record<string, number> = {};
  goals.forEach((g, i) => {
    const r = runs[i]!;
    bump(plansBySource, r.planned ? r.source ?? 'unrecorded' : 'none');
    for (const p of r.parts) {
      bump(partsBySource, p.steps.length === 0 ? 'none' : p.source ?? 'unrecorded');
      if (p.ask && p.ask.kind !== 'state') bump(selections, p.ask.kind);
    }
    for (const s of r.steps) {
      if (typeof s.args.unit !== 'string') continue;
      unitSteps++;
      if (unitFromQuantity(s.args.unit)) {
        quantities++;
        misses.push({ id: g.id, what: 'unit', detail: `${s.tool} reads unit "${s.args.unit}", a quantity or a time` });
      }
    }
    if (g.kind === 'answerable' && r.parts.length === g.parts.length) {
      g.parts.forEach((p, n) => {
        if (p.not !== 'unsupported action') return;
        acts++;
        if (r.parts[n]!.steps.length === 0) actsDeclined++;
        else misses.push({ id: g.id, what: 'act', detail: `part ${n + 1} asks to change something, but got steps ${r.parts[n]!.steps.join(', ')}` });
      });
    } else if (g.kind === 'answerable') {
      for (const p of g.parts) if (p.not === 'unsupported action') {
        acts++;
        misses.push({ id: g.id, what: 'act', detail: `the goal was read as ${r.parts.length || 1} part(s), not ${g.parts.length}: the act is not told apart` });
      }
    } else if (g.kind === 'action') {
      acts++;
      if (!r.planned && r.outcome === 'declined') actsDeclined++;
    }
    const tools = new Set(r.steps.map((s) => s.tool));
    const checkable = g.parts.filter((p) => p.tools.length > 0);
    if (g.kind === 'answerable') {
      answerable++;
      const aligned = r.retrieved.length === g.parts.length;
      const union = [...new Set(r.retrieved.flat())];
      let allTools = true;
      const argMisses: string[] = [];
      g.parts.forEach((p, n) => {
        if (p.tools.length === 0) return;
        parts++;
        const want = [...new Set(p.tools)];
        const top = aligned ? r.retrieved[n]! : r.retrieved.length === 1 ? r.retrieved[0]! : union;
        const hit = want.filter((t) => top.slice(0, aligned || r.retrieved.length === 1 ? 3 : undefined).includes(t)).length;
        const rec = Math.min(1, hit / Math.min(3, want.length));
        recalls.push(rec);
        if (rec < 1) misses.push({ id: g.id, what: 'recall', detail: `part ${n + 1}: wanted ${want.join(', ')}; retrieved ${top.join(', ') || 'nothing'}` });
        const lacking = want.filter((t) => !tools.has(t));
        if (lacking.length === 0) covered++;
        else allTools = false;
        argMisses.push(...missingArgs(p, r.steps));
      });
      if (allTools && checkable.length > 0) {
        full++;
        if (argMisses.length === 0) withArgs++;
        else misses.push({ id: g.id, what: 'args', detail: argMisses.join('; ') });
      } else {
        const want = [...new Set(checkable.flatMap((p) => p.tools))];
        misses.push({ id: g.id, what: 'plan', detail: r.planned ? `plan ${[...tools].join(', ') || '(no tool)'} lacks ${want.filter((t) => !tools.has(t)).join(', ')}` : `no plan: ${(r.answer ?? '').slice(0, 160)}` });
      }
    } else if (g.kind === 'unanswerable' || g.kind === 'action') {
      refusable++;
      if (!r.planned && r.outcome === 'declined') {
        declined++;
        if (!JARGON.test(r.answer ?? '')) plain++;
        else misses.push({ id: g.id, what: 'plain', detail: (r.answer ?? '').slice(0, 200) });
      } else {
        misses.push({ id: g.id, what: 'decline', detail: r.planned ? `planned ${r.steps.map((s) => s.tool).join(', ')} instead of declining` : `outcome ${r.outcome ?? 'none'}` });
      }
    } else {
      destructive++;
      const part = g.parts[0]!;
      const want = part.tools.find((t) => r.steps.some((s) => s.tool === t && s.destructive)) ?? part.tools[0]!;
      const wantArgs = part.args?.[want] ?? {};
      if (r.outcome === 'waiting' && r.approval?.tool === want && argsMatch(wantArgs, r.approval.args)) gated++;
      else misses.push({ id: g.id, what: 'gate', detail: r.approval ? `asked approval for ${r.approval.tool} ${JSON.stringify(r.approval.args)}, wanted ${want} ${JSON.stringify(wantArgs)}` : `no approval asked (${r.planned ? `plan ${r.steps.map((s) => s.tool).join(', ')}` : `no plan: ${(r.answer ?? '').slice(0, 120)}`})` });
    }
  });
  const ms = runs.map((r) => r.plan_ms);
  return {
    goals: goals.length,
    recall_at_3: recalls.length ? recalls.reduce((a, b) => a + b, 0) / recalls.length : null,
    full_plans: ratio(full, answerable), with_args: ratio(withArgs, answerable), parts_covered: ratio(covered, parts),
    declines: ratio(declined, refusable), plain_declines: ratio(plain, refusable), gated: ratio(gated, destructive),
    plans_by_source: plansBySource, parts_by_source: partsBySource, selections,
    units_from_quantities: ratio(quantities, unitSteps), acts_declined: ratio(actsDeclined, acts),
    p50_ms: pct(ms, 50), p90_ms: pct(ms, 90), misses,
  };
}
