/**
 * Issue 13 part 2, done when: "The same goal-only job run twice: the second
 * `plan_created` has `source: "cache"`, makes no model call, and the bench
 * shows the planning time of both; bumping the tool manifest's version makes
 * the third plan afresh." (The bench rows are in bench/planning.ts.)
 *
 * Real roots, the real runtime in-process, a real memory database filled by
 * ingest; the tools' outputs are the df capture recorded on a Pi (the journal
 * a fixed line), so the tests do not depend on this machine's disks.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/runtime/provider.js';
import { readLedger } from '../../src/ledger/ledger.js';
import type { LedgerEvent } from '../../src/ledger/events.js';
import { MemoryIndex } from '../../src/memory/memory-index.js';
import { dbPathFor, sessionsDirFor } from '../../src/memory/paths.js';
import { entryOf, intentKey, matching, toolDigests, type CachedStep, type ToolSide } from '../../src/memory/trajectory.js';
import { describe as describeEvent } from '../../src/cli/show.js';
import { parseJob } from '../../src/runtime/job.js';
import { openRuntime } from '../../src/root/runtime.js';
import { replaySession } from '../../src/replay/replay.js';
import type { ToolRunner } from '../../src/runtime/step.js';
import { makeRoot, newSession, REPO } from '../helpers/root.js';

const DF = readFileSync(join(REPO, 'test/fixtures/disk_usage/df-P-pi-root-full.input'), 'utf8');
const JOURNAL = 'Mar  3 14:21:57 pi5 systemd-journald[201]: Failed to write entry, ignoring: No space left on device\n';
const JOB = parseJob({ job: 'job@1', goal: 'Why is the disk full?', budget_class: 'interactive' });

/** Recorded tool outputs; `dfFails` makes capture_df (the plan's first step) fail. */
function recorded(dfFails = false): ToolRunner {
  return async (tool) => {
    if (tool.name === 'capture_df') {
      if (dfFails) throw new ProviderError('tool_failed', 'df: cannot read table of mounted file systems', { exitCode: 1 });
      return { output: DF, exitCode: 0, durationMs: 3, truncated: false };
    }
    return { output: JOURNAL, exitCode: 0, durationMs: 3, truncated: false };
  };
}

/** Run the job once in a fresh runtime over `root`, then ingest memory as the daemon does after a job. */
async function runOnce(root: string, runTool: ToolRunner): Promise<LedgerEvent[]> {
  const rt = await openRuntime(root);
  try {
    const id = newSession(rt, JOB);
    await rt.runSession(id, { runTool });
    const ix = MemoryIndex.open(dbPathFor(root));
    try {
      ix.ingestDir(sessionsDirFor(root));
    } finally {
      ix.close();
    }
    return readLedger(rt.sessionDir(id));
  } finally {
    await rt.close();
  }
}

const rt0Dir = (root: string, events: LedgerEvent[]) => join(sessionsDirFor(root), events[0]!.session_id);
const plans = (events: LedgerEvent[]) => events.filter((e): e is Extract<LedgerEvent, { type: 'plan_created' }> => e.type === 'plan_created');
const plannerCalls = (events: LedgerEvent[]) => events.filter((e) => e.type === 'provider_called' && e.step.startsWith('@'));
const outcome = (events: LedgerEvent[]) => events.findLast((e) => e.type === 'answer_sent');

describe('trajectory cache keys', () => {
  const composition = (): ToolSide => JSON.parse(JSON.stringify({
    tools: { capture_df: { name: 'capture_df', fact_schema: 'disk_usage@1', reducer: 'extract@1', limits: { timeout_ms: 5000 } } },
    schemas: { 'disk_usage@1': { type: 'object', properties: { mounts: { type: 'array' } } } },
    capabilities: { 'extract@1': { id: 'extract@1', schemas: ['disk_usage@1'] } },
  })) as ToolSide;
  const steps: CachedStep[] = [{ step: 'capture_df', tool: 'capture_df', args: {}, capability: 'extract@1', schema: 'disk_usage@1', from: [] }];

  it('the same intent terms in other words and order match; other terms do not', () => {
    expect(intentKey('Why is the disk full?')).toBe(intentKey('the DISK: why full'));
    expect(intentKey('Why is the disk full?')).not.toBe(intentKey('Why is the memory full?'));
  });

  it('an entry hits under the same tools, and misses once the tool manifest, its fact schema or its reducer changed', () => {
    const entry = entryOf('Why is the disk full?', steps, composition())!;
    const candidate = { session: 's1', key: entry.key, tools: entry.tools, steps: entry.steps };
    expect(matching([candidate], composition())?.session).toBe('s1');
    const tool = composition();
    (tool.tools.capture_df as { limits: { timeout_ms: number } }).limits.timeout_ms = 6000;
    expect(matching([candidate], tool)).toBeNull();
    const schema = composition();
    (schema.schemas['disk_usage@1'] as { required?: string[] }).required = ['mounts'];
    expect(matching([candidate], schema)).toBeNull();
    const reducer = composition();
    (reducer.capabilities['extract@1'] as { schemas: string[] }).schemas.push('other@1');
    expect(matching([candidate], reducer)).toBeNull();
    const gone = composition();
    delete gone.tools.capture_df;
    expect(matching([candidate], gone)).toBeNull();
    expect(toolDigests(gone, ['capture_df'])).toBeNull();
  });

  it('a plan without tool steps makes no entry', () => {
    expect(entryOf('Why is the disk full?', [{ step: 'answer', tool: null, args: {}, capability: 'answer@1', schema: 'answer@1', from: [] }], composition())).toBeNull();
  });
});

describe('the trajectory cache in the runtime (design §9.4)', () => {
  it('the second run of a goal reuses the first plan with no planner call; a changed tool manifest plans afresh', async () => {
    const root = makeRoot('pico-cache-');
    const first = await runOnce(root, recorded());
    expect(plans(first).map((p) => p.source)).toEqual(['playbook']);
    expect(outcome(first)).toMatchObject({ outcome: 'answered' });
    expect(plannerCalls(first).length).toBeGreaterThan(0);

    const second = await runOnce(root, recorded());
    const [plan] = plans(second);
    expect(plan).toMatchObject({ source: 'cache', provider: null, cache: { entry: first[0]!.session_id } });
    expect(plan!.steps).toEqual(plans(first).at(-1)!.steps);
    expect(plannerCalls(second)).toEqual([]);
    expect(second.some((e) => e.type === 'step_started' && e.step.startsWith('@'))).toBe(false);
    expect(outcome(second)).toMatchObject({ outcome: 'answered' });
    const snap = second.find((e) => e.type === 'policy_snapshot');
    expect(snap).toMatchObject({ plan_cache: { entry: first[0]!.session_id } });
    // a replay plans on what the run saw: the cache hit of the second, the fresh plan of the first
    // (memory now holds an entry for its goal, which the replay must not read)
    const rt = await openRuntime(root);
    try {
      for (const run of [first, second]) {
        const replay = await replaySession(rt, run[0]!.session_id);
        expect(replay.firstDifference).toBeNull();
        expect(replay.identical).toBe(true);
      }
    } finally {
      await rt.close();
    }

    // a new version of a tool the plan uses: its old entries never hit
    const path = join(root, 'manifests/tools/capture_df.json');
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { limits: { timeout_ms: number } };
    manifest.limits.timeout_ms += 1000;
    writeFileSync(path, JSON.stringify(manifest, null, 2));
    const third = await runOnce(root, recorded());
    expect(plans(third).map((p) => p.source)).toEqual(['playbook']);
    expect(third.find((e) => e.type === 'policy_snapshot')).toMatchObject({ plan_cache: null });
    expect(plannerCalls(third).length).toBeGreaterThan(0);

    // memory is derived: a rebuild restores the entry the third run made
    const ix = MemoryIndex.open(dbPathFor(root));
    try {
      ix.rebuild(sessionsDirFor(root));
    } finally {
      ix.close();
    }
    const fourth = await runOnce(root, recorded());
    expect(plans(fourth)[0]).toMatchObject({ source: 'cache', cache: { entry: third[0]!.session_id } });
  }, 90_000);

  it('a session whose composition.json is not the composition its ledger cites makes no entry', async () => {
    const root = makeRoot('pico-cache-doc-');
    const first = await runOnce(root, recorded());
    const doc = join(rt0Dir(root, first), 'composition.json');
    const text = readFileSync(doc, 'utf8');
    rmSync(doc); // a hard link to the shared copy: replace it, never write through it
    writeFileSync(doc, text.replace(/"timeout_ms": 5000/, '"timeout_ms": 5001'));
    const ix = MemoryIndex.open(dbPathFor(root));
    try {
      ix.rebuild(sessionsDirFor(root));
      expect(ix.db.prepare('SELECT COUNT(*) AS n FROM trajectory').get()).toEqual({ n: 0 });
    } finally {
      ix.close();
    }
    const second = await runOnce(root, recorded());
    expect(plans(second).map((p) => p.source)).toEqual(['playbook']);
  }, 90_000);

  it('a cached plan whose first step gives up drops the entry and plans afresh; the next run is not served from it', async () => {
    const root = makeRoot('pico-cache-drop-');
    const first = await runOnce(root, recorded());
    expect(outcome(first)).toMatchObject({ outcome: 'answered' });

    const second = await runOnce(root, recorded(true));
    const ps = plans(second);
    // the cached plan, then a fresh one from the playbook (whose own failed df may be replanned after)
    expect(ps.slice(0, 2).map((p) => p.source)).toEqual(['cache', 'playbook']);
    expect(ps.slice(2).every((p) => !!p.replan)).toBe(true);
    const dropped = second.find((e) => e.type === 'cache_dropped');
    expect(dropped).toMatchObject({ entry: first[0]!.session_id, key: ps[0]!.cache!.key, step: ps[0]!.steps[0]!.step });
    // the rest of the cached plan never ran: the first step after the drop is the planner
    const after = second.slice(second.indexOf(dropped!) + 1).find((e) => e.type === 'step_started');
    expect(after).toMatchObject({ step: '@plan' });
    expect(ps[1]!.steps.some((s) => s.step === ps[0]!.steps[0]!.step)).toBe(false);
    // pico show names both
    expect(describeEvent(ps[0]!)).toContain(`cache: the plan that answered ${first[0]!.session_id}`);
    expect(describeEvent(dropped!)).toMatch(/capture_df gave up: the cached plan of \S+ is dropped and the goal planned afresh \(.*df: cannot read/);

    const third = await runOnce(root, recorded());
    expect(plans(third).map((p) => p.source)).toEqual(['playbook']);
    expect(third.find((e) => e.type === 'policy_snapshot')).toMatchObject({ plan_cache: null });
  }, 90_000);

  it('a session that stopped between cache_dropped and its fresh plan plans afresh when it resumes', async () => {
    const root = makeRoot('pico-cache-resume-');
    await runOnce(root, recorded());
    const second = await runOnce(root, recorded(true));
    const dir = rt0Dir(root, second);
    const cut = second.findIndex((e) => e.type === 'cache_dropped');
    const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.length > 0);
    writeFileSync(join(dir, 'events.jsonl'), lines.slice(0, cut + 1).join('\n') + '\n');
    rmSync(join(dir, 'result.json'), { force: true });
    const rt = await openRuntime(root);
    try {
      await rt.runSession(second[0]!.session_id, { runTool: recorded() });
    } finally {
      await rt.close();
    }
    const resumed = readLedger(dir);
    expect(resumed.some((e) => e.type === 'resumed')).toBe(true);
    expect(plans(resumed).map((p) => p.source)).toEqual(['cache', 'playbook']);
    expect(outcome(resumed)).toMatchObject({ outcome: 'answered' });
  }, 90_000);
});
