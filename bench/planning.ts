/**
 * Planning bench rows (issue 12): how long a goal-only job's planning takes,
 * in-process, as `pico plan` runs it (a plan-only session in a scratch
 * folder: retrieval, playbook matching, the planner call, the ladder, the
 * plan check and the ledger writes) — with the playbook planner, and with
 * stories260K as a model planner under the plan grammar (skipped with a note
 * when ../shared/models is absent). The median over several goals is shown.
 * The trajectory cache rows plan one goal afresh and then from the cache
 * (after a full session of it answered and memory ingested it): the second
 * calls no planner, so it costs the memory lookup and the ledger writes.
 * The last row plans every goal of the dev goal set (examples/eval/goals.json)
 * as `pico eval --goals` does, and reports the median per goal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { provisionModel } from '../src/cli/provision.js';
import { newSessionId } from '../src/ledger/session-id.js';
import { readLedger } from '../src/ledger/ledger.js';
import { MemoryIndex } from '../src/memory/memory-index.js';
import { dbPathFor, sessionsDirFor } from '../src/memory/paths.js';
import type { ToolRunner } from '../src/runtime/step.js';
import { parseJob } from '../src/runtime/job.js';
import { initRoot } from '../src/root/init.js';
import { openRuntime, PACKAGE_DIR, type Runtime } from '../src/root/runtime.js';
import { storiesPath } from './models.js';
import type { BenchRow } from './types.js';

const PLAYBOOK_GOALS = ['Why is the disk full?', 'Why is the Pi so slow?', 'Are there security updates available?', 'Is the Pi overheating?', 'Give me a quick health check'];
const MODEL_GOALS = ['How hot is the CPU?', 'Which units failed?', 'Is the network down?', 'What uses the memory?', 'Are there package updates?'];

/** Median ms of planning each goal once (after one warm-up plan). */
async function timePlans(rt: Runtime, goals: string[], onlyProvider?: string): Promise<number> {
  const once = async (goal: string): Promise<number> => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pico-bench-plan-'));
    try {
      const job = parseJob({ job: 'job@1', goal, budget_class: 'attended', label: 'pico plan' });
      const t0 = performance.now();
      await rt.runSession(newSessionId(), { job, sessionDir: dir, planOnly: true, ...(onlyProvider ? { onlyProvider } : {}) });
      return performance.now() - t0;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  await once(goals[0]!);
  const ms: number[] = [];
  for (const g of goals) ms.push(await once(g));
  ms.sort((a, b) => a - b);
  return Math.round(ms[Math.floor(ms.length / 2)]! * 10) / 10;
}

const DF = 'Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/mmcblk0p2 30502944 29889708 0 100% /\n/dev/mmcblk0p1 522230 64248 457982 13% /boot/firmware\n';
const JOURNAL = 'Mar  3 14:21:57 pi5 systemd-journald[201]: Failed to write entry, ignoring: No space left on device\n';
/** Recorded outputs for the disk goal's tools, so the bench does not depend on this machine's disks or journal. */
const recorded: ToolRunner = async (tool) => ({ output: tool.name === 'capture_df' ? DF : JOURNAL, exitCode: 0, durationMs: 1, truncated: false });

/** Planning time of one goal afresh, then from the trajectory cache once a session of it answered. */
async function cacheRows(rt: Runtime, root: string): Promise<BenchRow[]> {
  const goal = 'Why is the disk full?';
  const fresh = await timePlans(rt, [goal, goal, goal, goal, goal]);
  const id = newSessionId();
  const dir = path.join(sessionsDirFor(root), id);
  const r = await rt.runSession(id, { job: parseJob({ job: 'job@1', goal, budget_class: 'attended' }), sessionDir: dir, runTool: recorded });
  if (r.outcome !== 'answered') return [{ group: 'planning', name: 'plan a goal from the trajectory cache', value: 0, unit: 'skipped', note: `the seeding session ended ${r.outcome}` }];
  const ix = MemoryIndex.open(dbPathFor(root));
  try {
    ix.ingestDir(sessionsDirFor(root));
  } finally {
    ix.close();
  }
  const cached = await timePlans(rt, [goal, goal, goal, goal, goal]);
  // the row is only honest if the plans came from the cache: check one
  const probe = path.join(root, 'probe');
  await rt.runSession(newSessionId(), { job: parseJob({ job: 'job@1', goal, budget_class: 'attended' }), sessionDir: probe, planOnly: true });
  const source = readLedger(probe).find((e) => e.type === 'plan_created');
  if (!source || source.type !== 'plan_created' || source.source !== 'cache') return [{ group: 'planning', name: 'plan a goal from the trajectory cache', value: 0, unit: 'skipped', note: 'the goal was not planned from the cache' }];
  return [
    { group: 'planning', name: 'plan "Why is the disk full?" afresh (playbook planner, plan-only session)', value: fresh, unit: 'ms', note: 'median of 5' },
    { group: 'planning', name: 'plan "Why is the disk full?" from the trajectory cache (no planner call)', value: cached, unit: 'ms', note: 'median of 5, memory lookup included' },
  ];
}

/** Planning time per goal over the dev goal set, as `pico eval --goals` measures it (issue 26). */
async function goalSetRows(): Promise<BenchRow[]> {
  const file = path.join(PACKAGE_DIR, 'examples', 'eval', 'goals.json');
  const { evaluateGoals } = await import('../src/eval/goals/index.js');
  const e = await evaluateGoals(file);
  const s = e.score;
  return [{
    group: 'planning', name: `plan each goal of examples/eval/goals.json (goal reader, parts, playbooks; plan-only session)`, value: Math.round(s.p50_ms * 10) / 10, unit: 'ms',
    note: `p50 over ${s.goals} goals; p90 ${Math.round(s.p90_ms)} ms; full plans ${s.full_plans.n}/${s.full_plans.of}, recall@3 ${s.recall_at_3?.toFixed(2) ?? '-'}`,
  }];
}

export async function benchPlanning(): Promise<BenchRow[]> {
  const root = mkdtempSync(path.join(tmpdir(), 'pico-bench-planning-'));
  const rows: BenchRow[] = [];
  try {
    initRoot(root);
    const stories = storiesPath();
    if (stories) await provisionModel({ file: stories, id: 'bench-planner', implements: ['plan@1'], root, threads: 1, probe: false });
    const rt = await openRuntime(root);
    try {
      rows.push({ group: 'planning', name: 'plan a goal with the playbook planner (plan-only session)', value: await timePlans(rt, PLAYBOOK_GOALS), unit: 'ms', note: `median of ${PLAYBOOK_GOALS.length} goals` });
      if (stories) rows.push({ group: 'planning', name: 'plan a goal with stories260K under the plan grammar (model loaded per plan)', value: await timePlans(rt, MODEL_GOALS, 'bench-planner'), unit: 'ms', note: `median of ${MODEL_GOALS.length} goals, 1 thread` });
      else rows.push({ group: 'planning', name: 'plan a goal with stories260K', value: 0, unit: 'skipped', note: '../shared/models/stories260K.gguf is absent' });
      rows.push(...(await cacheRows(rt, root)));
      rows.push(...(await goalSetRows()));
    } finally {
      await rt.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
