/**
 * The runtime of one root: its registry, adapters and composition, and the
 * one entry point that runs a session — used alike by `pico run`, `pico call`,
 * `pico replay` and the daemon, so the foreground and the service run exactly
 * the same code.
 *
 * Manifests are re-read before each session when the files changed (their
 * fingerprint, manifest-watch.ts; the session worker takes it only when a
 * watch on the folders saw something move), so a provider dropped into
 * `manifests/providers/` serves the next job. A broken manifest never stops a running daemon: the
 * last good set stays in force and the error (file, key, fix) is logged.
 *
 * Opening reads and checks the manifests; warming (`warm()`) loads the code a
 * session runs on (session-path.ts) and, after a deferred open, compiles the
 * schemas. `open` warms before it returns unless asked not to (`deferWarm`:
 * the session worker, which says ready in between); every session awaits it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import type { ProviderAdapter } from '../runtime/provider.js';
import { digestBytes } from '../ledger/canonical.js';
import type { Composition } from '../ledger/composition.js';
import { buildComposition, compositionForms } from './composition.js';
import { machineHash } from '../machine/profile.js';
import { providerDigests } from '../memory/provider-identity.js';
import { listPrompts } from '../prompts/envelope.js';
import { loadRoot, ManifestError, type LoadedRoot } from '../registry/load.js';
import { loadPlaybooks, type LoadedPlaybooks, type Playbook } from '../agent/playbooks.js';
import { loadLexicon, type LoadedLexicon } from '../agent/goal/load.js';
import { buildLexicon, type Lexicon } from '../agent/goal/lexicon.js';
import { checkedSetKey, checkedSetOf, loadRecorded, readCheckedSet, writeCheckedSet, type CheckedSet } from './checked-set.js';
import { Registry } from '../registry/registry.js';
import { captureManifests, readSnapshot, snapshotSource, storeSnapshot, type ManifestSnapshot } from './snapshot.js';
import { refusalsOnRecord } from './accept-manifests.js';
import { ManifestWatch, manifestFingerprint } from './manifest-watch.js';
import { folderSource, type ManifestSource } from '../registry/load.js';
import type { ProviderManifest } from '../registry/manifest.js';
import type { Hook } from '../runtime/hooks.js';
import { parseJob, type Job } from '../runtime/job.js';
import type { LoopResult, Measure } from '../runtime/loop.js';
import type { RunOptions, SessionPath } from './session-path.js';

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
  /**
   * The session worker's start (issue 24): open as soon as the manifests are read and checked on
   * their own and against each other, and leave compiling the schemas and loading the code a
   * session runs on to `warm()`, which the worker calls right after it says ready and which every
   * session awaits. A schema that does not compile then fails `warm()` with the ManifestError the
   * open would have thrown. Without it, `open` warms before it returns.
   */
  deferWarm?: boolean;
  /**
   * A long-running runtime (the session worker): watch the manifest folders and take their
   * fingerprint before a session only when something in them moved (manifest-watch.ts);
   * without it, every session looks.
   */
  watchManifests?: boolean;
  /**
   * Where what the manifest files gave, once checked under this build, is kept for the next
   * runtime on the same bytes, which then need not check each file again (root/checked-set.ts;
   * the session worker's, in the daemon's folder). Used with `lastGood`, whose snapshot it keys.
   */
  checkedSet?: string;
}

/** How to run one session (the options of a run, session-path.ts, and where its folder and job come from). */
export interface RunSessionOptions extends RunOptions {
  /** where the session folder lives (replay writes elsewhere); default sessions/<id> */
  sessionDir?: string;
  /** an already-parsed job (replay, pico run) instead of reading job.json */
  job?: Job;
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
  /** the adapters, the loop and the measurements (session-path.ts), once warmed */
  private path: SessionPath | null = null;
  private warming: Promise<void> | null = null;
  /** a deferred first load's set, stored as the last good one once its schemas compiled */
  private unchecked: { snap: ManifestSnapshot; text: string } | null = null;
  /** the first load left its schemas to warm() */
  private deferred = false;
  /** what the files of the set loaded gave, to keep (checked-set.ts) once its schemas compiled */
  private toKeep: { key: string; set: CheckedSet } | null = null;
  /** the set in force was taken from the record of a set checked before (checked-set.ts) */
  private fromRecord = false;
  /** the files did not load and the last good set was loaded in their place */
  private fellBack = false;
  private readonly machine = machineHash();
  /** a long-running runtime's watch on the manifest folders: refresh() looks only when it is due */
  private readonly watch: ManifestWatch | null;
  readonly log: Logger;

  private constructor(readonly root: string, private readonly opts: RuntimeOptions) {
    this.log = opts.log ?? pino({ level: 'silent' });
    this.watch = opts.watchManifests ? new ManifestWatch(root) : null;
  }

  /** Measured pass rates and costs from the root's memory index (manifest costs before it exists). */
  private measureFromMemory: Measure = (providers, schemas) => {
    try {
      return this.warmed().measurements.read(providers, schemas, { digests: this.digests });
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, `could not read measurements from memory; selecting on manifests alone: ${(err as Error).message}`);
      return {};
    }
  };

  static async open(root: string, opts: RuntimeOptions = {}): Promise<Runtime> {
    const rt = new Runtime(root, opts);
    await rt.reload(opts.deferWarm === true);
    if (!opts.deferWarm) await rt.warm();
    return rt;
  }

  /**
   * Load the code a session runs on and, after a deferred open, compile every schema of the set
   * (a ManifestError when one does not compile); once per runtime, awaited by every session.
   */
  warm(): Promise<void> {
    this.warming ??= (async () => {
      const { SessionPath, checkSchemas } = await import('./session-path.js');
      if (this.deferred) {
        // a set from the record of the same files under the same code: its schemas compiled when it was recorded
        if (!this.fromRecord) checkSchemas(this.loaded);
        const lg = this.opts.lastGood;
        try {
          if (lg && this.unchecked && (!existsSync(lg.file) || readFileSync(lg.file, 'utf8') !== this.unchecked.text)) storeSnapshot(lg.file, this.unchecked.snap);
        } catch (err) {
          // only a later worker's fallback needs it: a disk that filled since the open must not stop this one
          this.log.warn({ event: 'last_good_not_kept', err: (err as Error).message, file: lg?.file }, `could not keep the manifests as the last good set: ${(err as Error).message}`);
        }
        this.unchecked = null;
        this.keepChecked();
      }
      this.path = new SessionPath(this.root);
    })();
    return this.warming;
  }

  private warmed(): SessionPath {
    if (!this.path) throw new Error('the runtime was opened with deferWarm and not warmed: await runtime.warm() first (a bug in the caller)');
    return this.path;
  }

  /** The set in force was taken from the record of the same files checked before (checked-set.ts), not checked file by file. */
  get checkedFromRecord(): boolean {
    return this.fromRecord;
  }

  /** Keep what the files of the set just loaded gave, once it is wholly checked (its schemas compiled). */
  private keepChecked(): void {
    if (this.toKeep && this.opts.checkedSet) writeCheckedSet(this.opts.checkedSet, this.toKeep.key, this.toKeep.set);
    this.toKeep = null;
  }

  /** The set in force was read from the manifest files themselves (not the last good set standing in for broken ones). */
  get onTheFiles(): boolean {
    return !this.fellBack;
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

  adapterFor = (p: ProviderManifest): ProviderAdapter => this.warmed().adapterFor(p);

  /** Re-read manifests and prompts when their files changed; keep the last good set on error. */
  async refresh(): Promise<void> {
    if (this.watch && !this.watch.due()) return;
    this.watch?.looking();
    if (manifestFingerprint(this.root, this.loaded) === this.fingerprint) return;
    try {
      await this.reload();
      this.log.info({ composition: this.hash }, 'manifests reloaded');
    } catch (err) {
      this.fingerprint = manifestFingerprint(this.root, this.loaded);
      this.log.error({ err: (err as Error).message }, `manifests changed but do not load; the last good set stays in force until they are fixed: ${(err as Error).message}`);
    }
  }

  private async reload(defer = false): Promise<void> {
    const { loaded, playbooks, lexicon } = await this.loadManifests(defer);
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
    const forms = compositionForms(composition);
    this.compositionText = forms.text;
    this.hash = forms.hash;
    this.digests = providerDigests(composition);
    this.fingerprint = fingerprint;
    this.watch?.follow(loaded);
    this.path?.measurements.forget();
    if (old) await old.scope.unwind();
  }

  /**
   * The registry and the playbooks from one source of manifest texts; a broken playbook fails the
   * set like any manifest. With `key` (the digest of the texts: checked-set.ts) the files are taken
   * from a record of the same texts checked before when there is one, and otherwise what they give
   * is kept to be recorded once the set is wholly checked (keepChecked).
   */
  private async loadFrom(source: ManifestSource, defer = false, key: string | null = null): Promise<{ loaded: LoadedRoot; playbooks: LoadedPlaybooks; lexicon: LoadedLexicon }> {
    const record = key !== null && this.opts.checkedSet ? readCheckedSet(this.root, this.opts.checkedSet, key) : null;
    const recorded = record ? loadRecorded(this.root, new Registry(), record, !defer) : null;
    const loaded = recorded ?? loadRoot(this.root, new Registry(), source, { compile: !defer });
    this.deferred = defer;
    const playbooks: LoadedPlaybooks = record && recorded ? { playbooks: Object.values(record.playbooks), documents: record.playbooks, issues: [] } : loadPlaybooks(source, loaded.registry.tools);
    const lexicon: LoadedLexicon = record && recorded ? { lexicon: buildLexicon(record.lexicon), documents: record.lexicon, issues: [] } : loadLexicon(source);
    if (playbooks.issues.length || lexicon.issues.length) {
      await loaded.scope.unwind();
      throw new ManifestError([...playbooks.issues, ...lexicon.issues]);
    }
    this.fromRecord = recorded !== null;
    this.toKeep = key !== null && recorded === null ? { key, set: checkedSetOf(loaded, playbooks.documents, lexicon.documents) } : null;
    return { loaded, playbooks, lexicon };
  }

  /**
   * Load the root's manifests; with lastGood, keep the set that loaded, or fall back to it (see
   * RuntimeOptions). `defer` (a deferred open) leaves the schemas to warm(): for a first worker,
   * whose failure stops the daemon anyway, and for a later one only when the set is the last good
   * one, which has compiled already; a later worker's changed set compiles now, so a schema that
   * broke since can still fall back to the last good set.
   */
  private async loadManifests(defer: boolean): Promise<{ loaded: LoadedRoot; playbooks: LoadedPlaybooks; lexicon: LoadedLexicon }> {
    const given = this.opts.lastGood;
    if (!given) return this.loadFrom(this.opts.source ?? folderSource(this.root), defer);
    // a change the daemon refused (accept-manifests.ts) keeps the set in force across a restart too
    const lg = { ...given, fallBack: given.fallBack || refusalsOnRecord(this.root).length > 0 };
    const snap = captureManifests(this.root);
    const text = JSON.stringify(snap);
    const key = this.opts.checkedSet ? checkedSetKey(text) : null;
    // the last good set is read only when it decides something: the deferred first load compares it in warm()
    const stored = (): string | null => (existsSync(lg.file) ? readFileSync(lg.file, 'utf8') : null);
    try {
      if (defer && (!lg.fallBack || stored() === text)) {
        const loaded = await this.loadFrom(snapshotSource(snap), true, key);
        this.unchecked = { snap, text };
        return loaded;
      }
      const loaded = await this.loadFrom(snapshotSource(snap), false, key);
      if (stored() !== text) storeSnapshot(lg.file, snap);
      this.keepChecked();
      return loaded;
    } catch (err) {
      const good = lg.fallBack && !this.loaded && err instanceof ManifestError ? readSnapshot(lg.file) : null;
      if (!good) throw err;
      const loaded = await this.loadFrom(snapshotSource(good));
      this.fellBack = true;
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
    await this.warm();
    await this.refresh();
    const dir = o.sessionDir ?? this.sessionDir(sessionId);
    const job = o.job ?? parseJob(JSON.parse(readFileSync(join(dir, 'job.json'), 'utf8')), join(dir, 'job.json'));
    const state = {
      root: this.root, loaded: this.loaded, composition: this.composition, compositionText: this.compositionText, hash: this.hash,
      machine: this.machine, playbooks: this.playbooks, lexicon: this.lexicon, hooks: this.opts.hooks ?? [], measure: this.opts.measure ?? this.measureFromMemory, log: this.log,
    };
    return this.warmed().run(state, { ...o, sessionId, dir, job });
  }

  async close(): Promise<void> {
    this.watch?.close();
    if (this.warming) await this.warming.catch(() => undefined);
    await this.path?.close();
    await this.loaded.scope.unwind();
  }
}

/** Open the runtime of a root; throws a ManifestError naming every broken file and its fix. */
export async function openRuntime(root: string, opts: RuntimeOptions = {}): Promise<Runtime> {
  return Runtime.open(root, opts);
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

