/**
 * What running a session needs beyond the manifests: the adapters (and through them the shipped
 * code providers), the loop, the ladder, the planner, the tools and the world, and the measured
 * pass rates from memory.
 *
 * runtime.ts imports this module only when it is warmed, so a session worker can read its
 * manifests and say it is ready before it has loaded the code a session runs on (issue 24: a
 * worker's cold start was two thirds module loading and schema compiling). Nothing here is
 * optional: every session awaits the warm-up, and `pico run` and the other commands warm at open.
 * It also owns the check that every manifest schema compiles, which a deferred open leaves to the
 * warm-up and which fails it the way a broken manifest fails a load (a ManifestError naming the
 * file and the fix).
 */
import type { Logger } from 'pino';
import { createAdapters, disposeAdapters, type Adapters } from '../adapters/index.js';
import type { ProviderAdapter } from '../runtime/provider.js';
import type { Clock } from '../ledger/clock.js';
import { systemClock } from '../ledger/clock.js';
import { lookupPlan } from '../agent/cache.js';
import { compactForModel } from '../agent/compact.js';
import { agentPlanner } from '../agent/session-plan.js';
import type { Composition } from '../ledger/composition.js';
// loading the cross-checks puts them in the ladder's level-4 table (src/ladder/crosschecks.ts)
import '../crosschecks/index.js';
import type { LedgerEvent } from '../ledger/events.js';
import { MeasurementReader } from '../memory/runtime-api.js';
import { readPlannerMemory } from '../memory/planner-memory.js';
import { compiledOf } from '../ladder/schemas.js';
import { ManifestError, type LoadedRoot } from '../registry/load.js';
import type { ManifestIssue } from '../registry/boundary.js';
import type { Playbook } from '../agent/playbooks.js';
import type { Lexicon } from '../agent/goal/lexicon.js';
import type { ProviderManifest } from '../registry/manifest.js';
import { runTool } from '../tools/index.js';
import { withProgress, type ProgressListener } from '../adapters/progress.js';
import { isBuiltin } from '../world/builtin.js';
import { makeWorkDir } from '../world/workdir.js';
import type { Hook } from '../runtime/hooks.js';
import type { Job } from '../runtime/job.js';
import { checkJobAgainstRegistry, describeProblems } from '../runtime/job-check.js';
import { runLoop, type LoopResult, type Measure } from '../runtime/loop.js';
import { decide, readApprovalSettings, type ApprovalSettings } from '../approval/decisions.js';
import type { ApprovalDecider, DirectInput, ToolRunner } from '../runtime/step.js';

/** The options of one session run (runtime.ts's RunSessionOptions adds where its folder and job come from). */
export interface RunOptions {
  signal?: AbortSignal;
  onEvent?: (e: LedgerEvent) => void;
  /** replay: the recorded clock and tool outputs */
  clock?: Clock;
  runTool?: ToolRunner;
  inputs?: Record<string, DirectInput>;
  onlyProvider?: string;
  /** return the result document instead of writing result.json (the daemon writes it), and leave the answer's fdatasync to the caller, which does it first (daemon/settle.ts) */
  deferResult?: boolean;
  /** close the session with this reason instead of running its remaining steps (LoopDeps.closeReason) */
  closeReason?: string;
  /** the close is an operator's cancel: the answer's outcome is `cancelled` (LoopDeps.cancelled) */
  cancelled?: boolean;
  /** plan the goal and stop before the first step (LoopDeps.planOnly; pico plan) */
  planOnly?: boolean;
  /** a destructive step waits for a person's decision file (src/approval/; the daemon) instead of being denied */
  approvals?: boolean;
  /** the decisions on destructive steps, given by the caller (replay: the ones the ledger recorded); wins over `approvals` */
  approval?: ApprovalDecider;
  /** told of every provider call in flight (src/adapters/progress.ts); never written to the ledger */
  onProgress?: ProgressListener;
}

/** What one session run is given: its options, with the session's id, folder and job read. */
export interface PathRun extends RunOptions {
  sessionId: string;
  dir: string;
  job: Job;
}

/** The runtime's state a run reads (owned by runtime.ts, current as of this session's refresh). */
export interface PathState {
  root: string;
  loaded: LoadedRoot;
  composition: Composition;
  compositionText: string;
  hash: string;
  machine: string;
  playbooks: Playbook[];
  lexicon: Lexicon | undefined;
  hooks: Hook[];
  measure: Measure;
  log: Logger;
}

/** Every schema of a loaded set compiled now (cached by digest); the ones that do not are a ManifestError, as at load. */
export function checkSchemas(loaded: LoadedRoot): void {
  const issues: ManifestIssue[] = [];
  for (const [id, h] of loaded.registry.schemas) {
    try {
      compiledOf(h);
    } catch (err) {
      issues.push({ file: loaded.files[`schema:${id}`] ?? `schema ${id}`, path: '', message: `not a usable JSON Schema: ${(err as Error).message}`, fix: 'fix the schema so it compiles (draft 2020-12 or draft-07)' });
    }
  }
  if (issues.length > 0) throw new ManifestError(issues);
}

/** The adapters and the measurement reader of one runtime, and the run itself. */
export class SessionPath {
  readonly adapters: Adapters = createAdapters();
  readonly measurements: MeasurementReader;

  constructor(root: string) {
    this.measurements = new MeasurementReader(root);
  }

  adapterFor = (p: ProviderManifest): ProviderAdapter => this.adapters[p.kind] as ProviderAdapter;

  /** Run, or resume, one session on the runtime's current state. */
  run(s: PathState, o: PathRun): Promise<LoopResult> {
    const { root, loaded } = s;
    const { dir, job, sessionId } = o;
    // names the registry does not know end the session as declined, with them as the reason
    const problems = checkJobAgainstRegistry(job, loaded.registry);
    const closeReason = o.closeReason ?? (problems.length > 0 ? `the job cannot run on this root: ${describeProblems(problems)}` : undefined);
    const liveTool: ToolRunner = async (tool, args, step, run) => {
      // A world built-in (a confined read) starts no program, so it needs no directory of its own.
      const workDir = isBuiltin(tool.command) ? dir : await makeWorkDir(root, sessionId, step);
      // Not the session's stop signal: shutdown lets the step in flight finish (tools have their own limits).
      return runTool(tool, args, { root, workDir, ...(run?.approved ? { approved: true } : {}) });
    };
    // read at the first destructive step, not for every session: most never reach one
    let approvals: ApprovalSettings | null = null;
    const decideStep = (step: string, since: string) => decide(dir, step, since, (approvals ??= readApprovalSettings(root)));
    return runLoop({
      root, sessionId, sessionDir: dir, job, registry: loaded.registry,
      adapterFor: o.onProgress ? (p) => withProgress(this.adapterFor(p), o.onProgress!) : this.adapterFor,
      hooks: s.hooks, compositionText: s.compositionText, compositionHash: s.hash, machine: s.machine,
      measure: s.measure, runTool: o.runTool ?? liveTool,
      clock: o.clock ?? systemClock, signal: o.signal ?? new AbortController().signal, log: s.log,
      ...(o.onEvent ? { onEvent: o.onEvent } : {}), ...(o.inputs ? { inputs: o.inputs } : {}),
      ...(o.onlyProvider ? { onlyProvider: o.onlyProvider } : {}), ...(o.deferResult ? { deferResult: true } : {}),
      ...(closeReason ? { closeReason } : {}), ...(o.cancelled && o.closeReason ? { cancelled: true } : {}),
      planner: agentPlanner(s.playbooks, s.lexicon), compact: compactForModel, plannerMemory: (goal) => readPlannerMemory(root, goal),
      planCache: (goal) => lookupPlan(root, goal, s.composition),
      ...(o.planOnly ? { planOnly: true } : {}),
      ...(o.approval ? { approval: o.approval } : o.approvals ? { approval: decideStep } : {}),
    });
  }

  async close(): Promise<void> {
    this.measurements.close();
    await disposeAdapters(this.adapters);
  }
}
