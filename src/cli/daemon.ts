/**
 * `pico daemon --root DIR` — run the job daemon in the foreground.
 *
 * Logs are pino JSON lines on stdout (journald keeps them under systemd);
 * `PICO_LOG_LEVEL` sets the level (default info). With `--listen` (or
 * `listen` in settings.json) the loopback API (src/api/) is bound before the
 * daemon starts and closed after it stopped; without it, nothing of the API
 * is loaded. Flags only; the daemon itself is src/daemon/loop.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { heldBy, lockOwner } from '../daemon/lock.js';
import { daemonPaths } from '../daemon/paths.js';
import { dropPreforked, preforkWorker } from '../daemon/worker-fork.js';
import { parse, rootOf, rootOption, UsageError } from './args.js';
import type { Logger } from 'pino';
import type { DaemonObserver } from '../daemon/observer.js';

const SETTINGS_FILE = 'settings.json';

const USAGE = `pico daemon [--root DIR] [--init] [--grace-ms MS] [--worker-idle-ms MS] [--listen ADDR]
  Watches DIR/sessions/inbox/ and runs job files one at a time, in a session worker process.
  --root DIR            the picoharness root (default: the current directory)
  --init                make DIR a root first (pico init DIR) when it is not one yet (no manifests/ in it);
                        npm start runs the daemon this way on ./root
  --listen ADDR         serve the loopback API (docs/operating.md) on 127.0.0.1:PORT, [::1]:PORT,
                        localhost:PORT or unix:PATH (default: off, or "listen" in ${SETTINGS_FILE})
  --grace-ms MS         how long SIGTERM may take to finish the current step (default 20000)
  --worker-idle-ms MS   how long the session worker (runtime, memory, a loaded model) stays
                        after the last job before it exits and frees its memory (default 15000)
  Settings come from DIR/${SETTINGS_FILE} when it exists (docs/operating.md, "Settings"); a flag wins over it.
  SIGTERM/SIGINT stop after the current step (exit 0); a second signal forces (exit 1).
  SIGHUP (systemctl reload) reads ${SETTINGS_FILE} again, and the next job's worker the manifests.`;

/** Entry point of `pico daemon`. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, init: { type: 'boolean' }, 'grace-ms': { type: 'string' }, 'worker-idle-ms': { type: 'string' }, listen: { type: 'string' } }, USAGE);
  if (positionals.length > 0) throw new UsageError(`takes no positional arguments, got ${JSON.stringify(positionals)}\nusage: ${USAGE}`);
  const graceMs = milliseconds(values['grace-ms'], '--grace-ms');
  const workerIdleMs = milliseconds(values['worker-idle-ms'], '--worker-idle-ms');
  const root = rootOf(values);
  // a second daemon on a served root is told so in one line (main.ts: exit 2), before it logs anything;
  // takeLock still decides a race between two starting at once
  const owner = await lockOwner(daemonPaths(root));
  if (owner !== null) throw heldBy(daemonPaths(root), owner);
  // the session worker starts now and loads its code while this process loads the daemon's (issue 24:
  // READY waits for both); it opens the root only once the daemon holds the lock (worker-host.ts)
  preforkWorker(root);
  try {
    return await serve(root, values.init === true, values.listen, graceMs, workerIdleMs);
  } finally {
    dropPreforked(); // not taken: the daemon stopped before it started a worker
  }
}

async function serve(root: string, init: boolean, listenFlag: string | undefined, graceMs: number | undefined, workerIdleMs: number | undefined): Promise<number> {
  const [{ createLogger }, { runDaemon }, { loadSettings }, { retentionTask }] = await Promise.all([
    import('../base/log.js'), import('../daemon/loop.js'), import('../daemon/settings.js'), import('../retention/idle-task.js'),
  ]);
  // pico init on first start: a root that is not one yet (no manifests/) gets the shipped defaults
  const made = init && !existsSync(join(root, 'manifests')) ? (await import('../root/init.js')).initRoot(root) : null;
  const settings = loadSettings(root).settings; // a SettingsError names the file and the fix (main.ts: exit 3)
  const log = createLogger({ to: 'stdout', level: settings.log_level });
  if (made) log.info({ event: 'root_initialised', root, files: made.created.length }, `made the root ${root} with pico init (${made.created.length} shipped files copied)`);
  const listen = listenFlag ?? settings.listen;
  // the API and prom-client are loaded only when asked for: the idle daemon stays small
  const api = listen ? await startListening(root, listen, log) : null;
  const retention = retentionTask(root, settings.gc, log); // settings.json "gc"; loads src/retention/gc.ts only when due
  try {
    return await runDaemon({
      root,
      log,
      graceMs: graceMs ?? settings.grace_ms,
      workerIdleMs: workerIdleMs ?? settings.worker_idle_ms,
      watch: settings.watch,
      pollMs: settings.watch_poll_ms,
      reloadSettings: () => loadSettings(root).settings,
      observers: [retention.observer, ...(api ? [api.observer] : [])],
      idleTasks: [retention.task],
    });
  } finally {
    await api?.close();
  }
}

/** Bind the loopback API; a bad or busy address is the user's to fix (exit 2), a damaged token file the root's (exit 3). */
async function startListening(root: string, listen: string, log: Logger): Promise<{ observer: DaemonObserver; close(): Promise<void> }> {
  const { startApi } = await import('../api/server.js');
  try {
    return await startApi({ root, listen, log });
  } catch (err) {
    const e = err as Error & { fix?: string };
    if (e.name === 'ListenError') throw new UsageError(`${e.message}\n  fix: ${e.fix}`);
    // shown by main.ts as the root's problem (exit 3), with the file and the fix
    if (e.name === 'TokenError') throw Object.assign(new Error(e.message), { name: 'SettingsError', fix: e.fix });
    throw err;
  }
}

/** A flag's positive whole number of milliseconds, or undefined when the flag is absent. */
function milliseconds(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0) throw new UsageError(`${flag} must be a positive whole number of milliseconds, got ${JSON.stringify(text)}\nusage: ${USAGE}`);
  return ms;
}
