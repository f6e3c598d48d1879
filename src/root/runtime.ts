/**
 * The runtime of one root: its registry, adapters and composition, and the
 * one entry point that runs a session — used alike by `pico run`, `pico call`,
 * `pico replay` and the daemon, so the foreground and the service run exactly
 * the same code.
 *
 * Manifests are re-read before each session when the files changed (a cheap
 * stat of the folders), so a provider dropped into `manifests/providers/`
 * serves the next job. A broken manifest never stops a running daemon: the
 * last good set stays in force and the error (file, key, fix) is logged.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { createAdapters, disposeAdapters, type Adapters } from '../adapters/index.js';
import type { ProviderAdapter } from '../runtime/provider.js';
import { digestBytes } from '../ledger/canonical.js';
import { systemClock, type Clock } from '../ledger/clock.js';
import { lookupPlan } from '../agent/cache.js';
import { compactForModel } from '../agent/compact.js';
import { agentPlanner } from '../agent/session-plan.js';
import { compositionHash, compositionText, type Composition } from '../ledger/composition.js';
import { buildComposition } from './composition.js';
// loading the cross-checks puts them in the ladder's level-4 table (src/ladder/crosschecks.ts)
import '../crosschecks/index.js';
import type { LedgerEvent } from '../ledger/events.js';
import { machineHash } from '../machine/profile.js';
import { MeasurementReader } from '../memory/runtime-api.js';
import { readPlannerMemory } from '../memory/planner-memory.js';
import { providerDigests } from '../memory/provider-identity.js';
import { listPrompts } from '../prompts/envelope.js';
import { loadRoot, ManifestError, type LoadedRoot } from '../registry/load.js';
import { loadPlaybooks, type LoadedPlaybooks, type Playbook } from '../agent/playbooks.js';
import { loadLexicon, type LoadedLexicon } from '../agent/goal/load.js';
import type { Lexicon } from '../agent/goal/lexicon.js';
import { Registry } from '../registry/registry.js';
import { captureManifests, readSnapshot, snapshotSource, storeSnapshot } from './snapshot.js';
import { folderSource, type ManifestSource } from '../registry/load.js';
import type { ProviderManifest } from '../registry/manifest.js';
import { runTool } from '../tools/index.js';
import { withProgress, type ProgressListener } from '../adapters/progress.js';
import { isBuiltin } from '../world/builtin.js';
import { makeWorkDir } from '../world/workdir.js';
import type { Hook } from '../runtime/hooks.js';
import { parseJob, type Job } from '../runtime/job.js';
import { checkJobAgainstRegistry, describeProblems } from '../runtime/job-check.js';
import { runLoop, type LoopResult, type Measure } from '../runtime/loop.js';
import { decide, readApprovalSettings } from '../approval/decisions.js';
import type { ApprovalDecider, DirectInput, ToolRunner } from '../runtime/step.js';

export type SessionResult = LoopResult;

export interface RuntimeOptions {
  log?: Logger;
  hooks?: Hook[];
  /** where measured pass rates and costs come from; default: the root's memory index */
  measure?: Measure;
  /**
   * Keep the last set that loaded in `file`; with `fallBack`, opening with manifests that do not load
   * uses that set instead of failing (a new session worker of a daemon that was already serving).
   */
  lastGood?: { file: string; fallBack: boolean };
  /** where the manifests come from instead of the root's folders (replay: a session's recorded composition) */
  source?: ManifestSource;
}

export interface RunSessionOptions {
  signal?: AbortSignal;
  onEvent?: (e: LedgerEvent) => void;
  /** replay: the recorded clock and tool outputs */
  clock?: Clock;
  runTool?: ToolRunner;
  /** where the session folder lives (replay writes elsewhere); default sessions/<id> */
  sessionDir?: string;
  /** an already-parsed job (replay, pico run) instead of reading job.json */
  job?: Job;
  inputs?: Record<string, DirectInput>;
  onlyProvider?: string;
  /** return the result document instead of writing result.json (the daemon writes it) */
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

export const SESSIONS_DIR = 'sessions';

/** The folder of the package itself (where shipped providers and manifests live): src/base/package.ts owns it. */
export { PACKAGE_DIR } from '../base/package.js';

export class Runtime {
  private loaded!: LoadedRoot;
  private composition!: Composition;
  private playbooks: Playbook[] = [];
  private lexicon: Lexicon | undefined;
  private compositionText!: string;
  /** provider id -> identity digest under the current composition: measurements of older identities do not count */
  private digests: Record<string, string> = {};
  private hash!: string;
  private fingerprint = '';
  private readonly adapters: Adapters;
  private readonly machine = machineHash();
  private readonly measurements: MeasurementReader;
  readonly log: Logger;

  private constructor(readonly root: string, private readonly opts: RuntimeOptions) {
    this.log = opts.log ?? pino({ level: 'silent' });
    this.adapters = createAdapters();
    this.measurements = new MeasurementReader(root);
  }

  /** Measured pass rates and costs from the root's memory index (manifest costs before it exists). */
  private measureFromMemory: Measure = (providers, schemas) => {
    try {
      return this.measurements.read(providers, schemas, { digests: this.digests });
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, `could not read measurements from memory; selecting on manifests alone: ${(err as Error).message}`);
      return {};
    }
  };

  static async open(root: string, opts: RuntimeOptions = {}): Promise<Runtime> {
    const rt = new Runtime(root, opts);
    await rt.reload();
    return rt;
  }

  get registry() {
    return this.loaded.registry;
  }

  get loadedRoot(): LoadedRoot {
    return this.loaded;
  }

  currentComposition(): { doc: Composition; hash: string; machine: string } {
    return { doc: this.composition, hash: this.hash, machine: this.machine };
  }

  adapterFor = (p: ProviderManifest): ProviderAdapter => this.adapters[p.kind] as ProviderAdapter;

  /** Re-read manifests and prompts when their files changed; keep the last good set on error. */
  async refresh(): Promise<void> {
    if (manifestFingerprint(this.root, this.loaded) === this.fingerprint) return;
    try {
      await this.reload();
      this.log.info({ composition: this.hash }, 'manifests reloaded');
    } catch (err) {
      this.fingerprint = manifestFingerprint(this.root, this.loaded);
      this.log.error({ err: (err as Error).message }, `manifests changed but do not load; the last good set stays in force until they are fixed: ${(err as Error).message}`);
    }
  }

  private async reload(): Promise<void> {
    const { loaded, playbooks, lexicon } = await this.loadManifests();
    // after the load: the programs it names are part of what a change is noticed in
    const fingerprint = manifestFingerprint(this.root, loaded);
    const prompts: Record<string, string> = {};
    for (const p of await listPrompts(this.root)) prompts[p.id] = p.digest;
    const composition = buildComposition(loaded, prompts, providerCodeDigests(), playbooks.documents, lexicon.documents);
    this.playbooks = playbooks.playbooks;
    this.lexicon = lexicon.lexicon;
    const old = this.loaded;
    this.loaded = loaded;
    this.composition = composition;
    this.compositionText = compositionText(composition);
    this.hash = compositionHash(composition);
    this.digests = providerDigests(composition);
    this.fingerprint = fingerprint;
    this.measurements?.forget();
    if (old) await old.scope.unwind();
  }

  /** The registry and the playbooks from one source of manifest texts; a broken playbook fails the set like any manifest. */
  private async loadFrom(source: ManifestSource): Promise<{ loaded: LoadedRoot; playbooks: LoadedPlaybooks; lexicon: LoadedLexicon }> {
    const loaded = loadRoot(this.root, new Registry(), source);
    const playbooks = loadPlaybooks(source, loaded.registry.tools);
    const lexicon = loadLexicon(source);
    if (playbooks.issues.length || lexicon.issues.length) {
      await loaded.scope.unwind();
      throw new ManifestError([...playbooks.issues, ...lexicon.issues]);
    }
    return { loaded, playbooks, lexicon };
  }

  /** Load the root's manifests; with lastGood, keep the set that loaded, or fall back to it (see RuntimeOptions). */
  private async loadManifests(): Promise<{ loaded: LoadedRoot; playbooks: LoadedPlaybooks; lexicon: LoadedLexicon }> {
    const lg = this.opts.lastGood;
    if (!lg) return this.loadFrom(this.opts.source ?? folderSource(this.root));
    const snap = captureManifests(this.root);
    try {
      const loaded = await this.loadFrom(snapshotSource(snap));
      const text = JSON.stringify(snap);
      if (!existsSync(lg.file) || readFileSync(lg.file, 'utf8') !== text) storeSnapshot(lg.file, snap);
      return loaded;
    } catch (err) {
      const good = lg.fallBack && !this.loaded && err instanceof ManifestError ? readSnapshot(lg.file) : null;
      if (!good) throw err;
      const loaded = await this.loadFrom(snapshotSource(good));
      this.log.error({ event: 'manifests_broken', err: (err as Error).message, last_good: lg.file },
        `manifests do not load; the last good set stays in force until they are fixed: ${(err as Error).message}`);
      return loaded;
    }
  }

  sessionDir(sessionId: string): string {
    return join(this.root, SESSIONS_DIR, sessionId);
  }

  /** Run, or resume, the session in sessions/<id>/ (whose job.json holds the job). */
  async runSession(sessionId: string, o: RunSessionOptions = {}): Promise<SessionResult> {
    await this.refresh();
    const dir = o.sessionDir ?? this.sessionDir(sessionId);
    const job = o.job ?? parseJob(JSON.parse(readFileSync(join(dir, 'job.json'), 'utf8')), join(dir, 'job.json'));
    // names the registry does not know end the session as declined, with them as the reason
    const problems = checkJobAgainstRegistry(job, this.loaded.registry);
    const closeReason = o.closeReason ?? (problems.length > 0 ? `the job cannot run on this root: ${describeProblems(problems)}` : undefined);
    const root = this.root;
    const liveTool: ToolRunner = async (tool, args, step, run) => {
      // A world built-in (a confined read) starts no program, so it needs no directory of its own.
      const workDir = isBuiltin(tool.command) ? dir : await makeWorkDir(root, sessionId, step);
      // Not the session's stop signal: shutdown lets the step in flight finish (tools have their own limits).
      return runTool(tool, args, { root, workDir, ...(run?.approved ? { approved: true } : {}) });
    };
    const approvals = o.approvals ? readApprovalSettings(root) : null;
    return runLoop({
      root, sessionId, sessionDir: dir, job, registry: this.loaded.registry,
      adapterFor: o.onProgress ? (p) => withProgress(this.adapterFor(p), o.onProgress!) : this.adapterFor,
      hooks: this.opts.hooks ?? [], compositionText: this.compositionText, compositionHash: this.hash, machine: this.machine,
      measure: this.opts.measure ?? this.measureFromMemory, runTool: o.runTool ?? liveTool,
      clock: o.clock ?? systemClock, signal: o.signal ?? new AbortController().signal, log: this.log,
      ...(o.onEvent ? { onEvent: o.onEvent } : {}), ...(o.inputs ? { inputs: o.inputs } : {}),
      ...(o.onlyProvider ? { onlyProvider: o.onlyProvider } : {}), ...(o.deferResult ? { deferResult: true } : {}),
      ...(closeReason ? { closeReason } : {}), ...(o.cancelled && o.closeReason ? { cancelled: true } : {}),
      planner: agentPlanner(this.playbooks, this.lexicon), compact: compactForModel, plannerMemory: (goal) => readPlannerMemory(root, goal),
      planCache: (goal) => lookupPlan(root, goal, this.composition),
      ...(o.planOnly ? { planOnly: true } : {}),
      ...(o.approval ? { approval: o.approval } : approvals ? { approval: (step: string, since: string) => decide(dir, step, since, approvals) } : {}),
    });
  }

  async close(): Promise<void> {
    this.measurements.close();
    await disposeAdapters(this.adapters);
    await this.loaded.scope.unwind();
  }
}

/** Open the runtime of a root; throws a ManifestError naming every broken file and its fix. */
export async function openRuntime(root: string, opts: RuntimeOptions = {}): Promise<Runtime> {
  return Runtime.open(root, opts);
}

/**
 * A cheap fingerprint of the manifest and prompt folders and of the shell providers' programs
 * (names, sizes, mtimes): a fixed script is a new composition, so its measurements start fresh.
 */
function manifestFingerprint(root: string, loaded?: LoadedRoot): string {
  const parts: string[] = [];
  const stamp = (label: string, abs: string) => {
    try {
      const st = statSync(abs);
      parts.push(`${label}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${label}:missing`);
    }
  };
  for (const dir of ['manifests/capabilities', 'manifests/schemas', 'manifests/tools', 'manifests/providers', 'manifests/playbooks', 'manifests/lexicon', 'prompts']) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).sort()) stamp(`${dir}/${name}`, join(abs, name));
  }
  for (const p of Object.values(loaded?.documents.providers ?? {})) {
    if (p.kind !== 'shell') continue;
    p.command.forEach((arg, i) => {
      if (arg.includes('/') && !arg.includes('{')) stamp(`program:${p.id}:${i}`, isAbsolute(arg) ? arg : join(root, arg));
    });
  }
  return parts.join('|');
}

let codeDigests: Record<string, string> | null = null;
/** Digests of the shipped code providers (the package's providers/ folder), once per process. */
function providerCodeDigests(): Record<string, string> {
  if (codeDigests) return codeDigests;
  const out: Record<string, string> = {};
  const base = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'providers');
  const walk = (dir: string, rel: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      if (statSync(abs).isDirectory()) walk(abs, `${rel}${name}/`);
      else if (/\.(js|ts)$/.test(name) && !name.endsWith('.d.ts')) out[`code:${rel}${name.replace(/\.(js|ts)$/, '')}`] = digestBytes(readFileSync(abs));
    }
  };
  walk(base, '');
  codeDigests = out;
  return out;
}

