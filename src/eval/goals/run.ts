/**
 * Running a goal file: every goal planned as a goal-only job would be, in a
 * scratch root, and what the agent did read back from each session's ledger.
 *
 * The scratch root is made by `pico init` from the package (or from the root
 * given, so a user's own tools and playbooks are measured), with an empty
 * memory, so no trajectory-cache hit or failure memory colours a plan. Each
 * goal is planned in a plan-only session (no tool runs). A goal that got no
 * plan is run once more as a whole session, which plans again and declines:
 * that is where the words a user would read come from. A plan holding a
 * destructive step is run as a whole session with approvals on: the session
 * must stop and wait, and the ledger's `approval_requested` says for which
 * tool and arguments. Nothing is approved, so nothing is changed.
 *
 * This module only collects; scoring is score.ts.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LedgerEvent } from '../../ledger/events.js';
import { readLedger } from '../../ledger/ledger.js';
import { newSessionId } from '../../ledger/session-id.js';
import { initRoot } from '../../root/init.js';
import { parseJob } from '../../runtime/job.js';
import type { Runtime } from '../../root/runtime.js';
import { retrievedParts } from '../../agent/planning.js';
import { loadPlaybooks } from '../../agent/playbooks.js';
import { folderSource } from '../../registry/load.js';
import { AGENT_DEFAULTS } from '../../agent/settings.js';
import type { EvalGoal } from './file.js';
import { readCause, type CauseRead } from './cause.js';

export interface PlannedStep {
  /** the step's id in the plan */
  id?: string;
  tool: string;
  args: Record<string, unknown>;
  /** the part of the goal the step serves, when the planner tags steps */
  part?: number;
  destructive: boolean;
}

export interface GoalRun {
  id: string;
  /** a plan was made */
  planned: boolean;
  source: string | null;
  playbooks: string[];
  steps: PlannedStep[];
  /** the top-k tools retrieval ranked, per part of the goal as the agent split it (one list when it does not split) */
  retrieved: string[][];
  /** the session's answer when it was run whole (no plan, or a destructive plan) */
  outcome: string | null;
  answer: string | null;
  /** what a person was asked to approve */
  approval: { tool: string; args: Record<string, unknown> } | null;
  /** wall time of the plan-only session */
  plan_ms: number;
  /** a goal that asks why, run whole: what its second look read (cause.ts) */
  cause?: CauseRead;
  /** the plan's parts as recorded (plan_created.parts): who planned each, what it asks of the facts, the act it requests */
  parts: RunPart[];
}

/** One part of a plan as the agent recorded it (seam §1); absent fields are absent in the ledger. */
export interface RunPart {
  text: string;
  steps: string[];
  source?: string;
  ask?: { kind: string; name?: string; noun?: string };
  act?: { verb: string; object: string | null };
  subject?: string;
  matched?: string[];
}

/** The plan's parts as the agent recorded them (plan_created.parts), if it records them. */
interface RecordedPart { text?: string; steps?: string[]; retrieved?: { name: string }[]; source?: string; ask?: RunPart['ask']; act?: RunPart['act']; subject?: string; matched?: string[] }

/** A scratch root: `pico init` from the package, or a copy of a root's manifests and prompts. */
export function scratchRoot(from?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pico-eval-goals-'));
  initRoot(dir);
  if (from) {
    for (const d of ['manifests', 'prompts']) {
      const src = join(from, d);
      if (!existsSync(src)) continue;
      rmSync(join(dir, d), { recursive: true, force: true });
      cpSync(src, join(dir, d), { recursive: true });
    }
  }
  return dir;
}

/** A session of a goal in the scratch root: plan only, or whole with approvals on (a destructive step waits). */
export function session(rt: Runtime, root: string, goal: string, planOnly: boolean) {
  const dir = mkdtempSync(join(root, 'sessions', 'eval-'));
  const job = parseJob({ job: 'job@1', goal, budget_class: 'attended', label: 'pico eval --goals' }, 'pico eval --goals');
  return { dir, run: () => rt.runSession(newSessionId(), { job, sessionDir: dir, ...(planOnly ? { planOnly: true } : { approvals: true }) }) };
}

/** Plan one goal and read back what the agent did. */
export async function runGoal(rt: Runtime, root: string, g: EvalGoal): Promise<GoalRun> {
  const plan = session(rt, root, g.goal, true);
  const t0 = performance.now();
  await plan.run();
  const plan_ms = performance.now() - t0;
  const events = readLedger(plan.dir);
  const created = events.find((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created');
  const steps: PlannedStep[] = (created?.steps ?? []).filter((s) => s.tool).map((s) => ({
    id: s.step, tool: s.tool!, args: s.args, destructive: rt.registry.tools.get(s.tool!)?.effect === 'destructive',
    ...(typeof (s as { part?: unknown }).part === 'number' ? { part: (s as unknown as { part: number }).part } : {}),
  }));
  const parts = (created as { parts?: RecordedPart[] } | undefined)?.parts;
  const retrieved = parts && parts.length > 0
    ? parts.map((p) => (p.retrieved ?? []).map((r) => r.name))
    : created?.retrieved ? [created.retrieved.map((r) => r.name)]
    : retrievedParts(g.goal, rt.registry, loadPlaybooks(folderSource(root), rt.registry.tools).playbooks, AGENT_DEFAULTS.top_k, root).map((p) => p.retrieved.map((r) => r.name));
  const out: GoalRun = {
    id: g.id, planned: !!created, source: created?.source ?? null, playbooks: created?.playbooks ?? [], steps, retrieved,
    outcome: null, answer: null, approval: null, plan_ms,
    parts: (parts ?? []).map((p) => ({
      text: p.text ?? '', steps: p.steps ?? [],
      ...(p.source !== undefined ? { source: p.source } : {}), ...(p.ask ? { ask: p.ask } : {}), ...(p.act ? { act: p.act } : {}),
      ...(p.subject !== undefined ? { subject: p.subject } : {}), ...(p.matched ? { matched: p.matched } : {}),
    })),
  };
  // the words a user reads: a goal with no plan declines; a destructive plan must wait for a person; a why is answered
  const why = g.parts.some((p) => p.why) || readCause(events).asksWhy;
  if (!created || steps.some((s) => s.destructive) || why) {
    const whole = session(rt, root, g.goal, false);
    const r = await whole.run();
    const all = readLedger(whole.dir);
    const sent = all.find((e): e is Extract<LedgerEvent, { type: 'answer_sent' }> => e.type === 'answer_sent');
    const asked = all.find((e): e is Extract<LedgerEvent, { type: 'approval_requested' }> => e.type === 'approval_requested');
    out.outcome = sent?.outcome ?? r.outcome;
    out.answer = sent?.text ?? r.answer;
    if (asked?.tool) out.approval = { tool: asked.tool, args: asked.args ?? {} };
    if (why) out.cause = readCause(all);
  }
  return out;
}
