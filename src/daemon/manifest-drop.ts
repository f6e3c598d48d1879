/**
 * Manifests dropped into a running daemon's root take effect for the next job, without a signal.
 *
 * chokidar watches the manifest folders (`manifests/<folder>/*.json`, every
 * folder a session worker loads: capabilities, schemas, tools, providers,
 * playbooks, the lexicon), by change events or by polling as the inbox is
 * (fs-kind.ts), and waits until a file has stopped growing before it says so
 * (awaitWriteFinish). A burst of changes is one check. The check runs in a
 * short process of its own (manifest-checker.ts → root/accept-manifests.ts:
 * `pico manifests check`'s rules), so the daemon never loads the registry;
 * it says what took effect and what was refused. A set in force that changed
 * is logged with what changed, and the session worker is let go once it has
 * finished what it was given (the SIGHUP path): the next job starts a worker
 * on the new set, and a job already running keeps the composition it started
 * with (its ledger's first event records it, so replay is unchanged). A
 * refused file is logged at error with its problems once, its reason file is
 * in `manifests/rejected/`, and `pico status` flags it until it is fixed or
 * removed. The check also runs once at start, for what changed while the
 * daemon was down. SIGHUP still reloads as before. This module watches and
 * reports; it decides nothing about a manifest.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from 'pino';
import type { Acceptance } from '../root/accept-manifests.js';
import { pollingFor, type WatchMode } from './fs-kind.js';

/** How long a file must keep its size before it counts as written, ms. */
const WRITTEN_MS = 300;
/** Changes within this long of each other are one check, ms. */
const DEBOUNCE_MS = 150;
/** A check that takes longer is killed (and tried again at the next change). */
const CHECK_TIMEOUT_MS = 120_000;

export interface ManifestDropOptions {
  root: string;
  log: Logger;
  watch?: WatchMode;
  pollMs?: number;
  /** the set in force changed: the next job must run on it */
  onChanged: (a: Acceptance) => void;
}

/** dist/src/daemon/manifest-checker.js, beside this file once built. */
function checkerScript(): string {
  for (const rel of ['./manifest-checker.js', '../../dist/src/daemon/manifest-checker.js']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new Error('src/daemon/manifest-checker.js not found; run `npm run build` first');
}

export class ManifestDrop {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** refusals already told, by file: the same one seen again is not logged again */
  private told = new Map<string, string>();
  private brokenTold = '';
  /** the folders are polled rather than heard */
  polling = false;

  constructor(private readonly opts: ManifestDropOptions) {}

  /** Watch the manifest folders (if the root has them) and check once for what changed while the daemon was down. */
  async start(): Promise<void> {
    const dir = resolve(this.opts.root, 'manifests');
    if (!existsSync(dir)) return;
    const how = pollingFor(dir, this.opts.watch ?? 'auto');
    const pollMs = this.opts.pollMs ?? 1000;
    const rejected = join(dir, 'rejected');
    const watcher = watch(dir, {
      depth: 1,
      ignoreInitial: true,
      followSymlinks: false,
      // the reason files are the daemon's own writing; dot-files are writers' temp names
      ignored: (p: string) => p === rejected || p.startsWith(rejected + sep) || (p !== dir && basename(p).startsWith('.')),
      awaitWriteFinish: { stabilityThreshold: WRITTEN_MS, pollInterval: 100 },
      usePolling: how.polling,
      interval: pollMs,
      binaryInterval: pollMs,
    });
    watcher.on('all', (event, path) => {
      this.opts.log.debug({ event: 'manifest_seen', change: event, file: relative(this.opts.root, path) }, `manifests: ${event} ${relative(this.opts.root, path)}`);
      this.schedule();
    });
    watcher.on('error', (err) => this.opts.log.warn({ event: 'manifest_watch', err: (err as Error).message }, `watching the manifests: ${(err as Error).message}; SIGHUP (systemctl reload) still reads them again`));
    await new Promise<void>((ok) => watcher.once('ready', () => ok()));
    if (this.closed) return void (await watcher.close()); // the daemon stopped while the watch started
    this.watcher = watcher;
    this.polling = how.polling;
    this.opts.log.info({ event: 'manifest_watch', mode: how.polling ? 'polling' : 'events', poll_ms: how.polling ? pollMs : null, why: how.why }, `watching ${dir} by ${how.polling ? `polling every ${pollMs} ms` : 'change events'}: a manifest dropped there is checked at once and used by the next job`);
    this.schedule(0);
  }

  /** A check soon (a burst of changes is one). */
  private schedule(delayMs = DEBOUNCE_MS): void {
    if (this.closed) return;
    if (this.checking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.checking = this.check().catch((err: unknown) => {
        // a check that fails is a warning: the set in force stays, the next change is checked again
        this.opts.log.warn({ event: 'manifest_check_failed', err: (err as Error).message }, `the manifests could not be checked (${(err as Error).message}); the set in force stays`);
      }).finally(() => {
        this.checking = null;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
    }, delayMs);
  }

  /** Run the checker process and act on its answer. */
  private async check(): Promise<void> {
    const t0 = performance.now();
    const out = await new Promise<{ stdout: string; err: Error | null }>((done) => {
      // none of the daemon's node flags: they are for a long-lived small process (and a daemon started
      // with `node -e` would hand the checker its script)
      execFile(process.execPath, [checkerScript(), this.opts.root], { timeout: CHECK_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => done({ stdout, err }));
    });
    if (this.closed) return;
    let r: Acceptance & { error?: string };
    try {
      r = JSON.parse(out.stdout.trim().split('\n').pop() ?? '') as Acceptance & { error?: string };
    } catch {
      r = { error: out.err?.message ?? 'no answer' } as Acceptance & { error?: string };
    }
    if (r.error === undefined && !Array.isArray(r.refused)) r.error = `an answer the daemon does not read (${out.err?.message ?? 'no error'})`;
    if (r.error !== undefined) {
      this.opts.log.warn({ event: 'manifest_check_failed', err: r.error }, `the manifests could not be checked (${r.error}); the set in force stays, and the next change is checked again`);
      return;
    }
    this.report(r, Math.round(performance.now() - t0));
  }

  /** Log what took effect and what was refused (each refusal once), and hand a changed set on. */
  private report(r: Acceptance, ms: number): void {
    const log = this.opts.log;
    const now = new Map(r.refused.map((f) => [f.file, JSON.stringify(f.problems)]));
    for (const f of r.refused) {
      if (this.told.get(f.file) === now.get(f.file)) continue;
      const first = f.problems[0];
      log.error(
        { event: 'manifest_refused', file: f.file, problems: f.problems, in_force: f.in_force, reason_file: `manifests/rejected/${f.file.slice('manifests/'.length)}.reason.json` },
        `${f.file} was refused (in force: ${f.in_force}): ${first ? `${first.path ? `at ${first.path}: ` : ''}${first.message} — ${first.fix}` : 'see its reason file'}${f.problems.length > 1 ? ` (and ${f.problems.length - 1} more)` : ''}`,
      );
    }
    this.told = now;
    const broken = JSON.stringify(r.broken);
    if (r.broken.length > 0 && broken !== this.brokenTold && !r.first) {
      log.error({ event: 'manifests_broken', problems: r.broken }, `the manifests in force do not load by themselves (${r.broken.map((i) => `${i.file}: ${i.message}`).join('; ')}); a worker keeps the set it has`);
    }
    this.brokenTold = broken;
    if (r.same) return;
    const what = [...r.added.map((f) => `added ${f}`), ...r.changed.map((f) => `changed ${f}`), ...r.removed.map((f) => `removed ${f}`)];
    log.info({ event: 'manifests_changed', added: r.added, changed: r.changed, removed: r.removed, refused: r.refused.map((f) => f.file), check_ms: ms }, `manifests: ${what.join(', ')}; the next job runs on them`);
    this.opts.onChanged(r);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.watcher?.close();
    await this.checking;
  }
}
