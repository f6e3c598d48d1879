/**
 * The spool watcher: notices job files in `sessions/inbox/` once they are complete.
 *
 * Convention for writers (docs/asking.md, "Hand it to the daemon"): write the job file
 * somewhere else ON THE SAME FILESYSTEM (ideally a dot-name or `*.tmp` name
 * inside the inbox itself, which the daemon ignores), fsync it, then rename
 * it to `<name>.json` in the inbox. A rename is atomic, so the daemon never
 * sees half a file. `pico submit` does exactly this. A file written in place
 * is still handled: it is only taken once two looks at least `settleMs` apart
 * see the same inode, size and mtime — a file still growing is left alone.
 *
 * Mechanics (the tsx watcher pattern): the kernel's events on the folder (node's
 * fs.watch, inotify on Linux) are only a trigger. We debounce bursts of events into one scan,
 * and de-duplicate by taking the directory listing as the truth — an entry
 * already handed to the daemon is not handed again until it has left the
 * inbox. A slow periodic rescan covers events the kernel dropped (inotify
 * overflow, or a watch lost with the folder itself: the rescan then watches
 * the folder again). Dot-files and `*.tmp` are never looked at. This module
 * decides nothing about validity and moves nothing; it only says "these are
 * stable". (It once used chokidar, which here only wrapped fs.watch on the
 * one folder and cost the idle daemon about 1.3 MB of resident memory.)
 */
import { lstatSync, readdirSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { isIgnoredName } from './inspect.js';

export interface SpoolOptions {
  inbox: string;
  /** called with entries whose two looks agreed; the spool waits for it before the next scan */
  onStable: (names: string[]) => Promise<void>;
  log: Logger;
  /** minimum time between the two looks (default 40 ms) */
  settleMs?: number;
  /** wait after the first event of a burst before scanning (default 15 ms) */
  debounceMs?: number;
  /** periodic safety rescan (default 5000 ms) */
  rescanMs?: number;
}

interface Look {
  sig: string;
  at: number;
}

export class Spool {
  private watcher: FSWatcher | null = null;
  /** the inode of the inbox folder the watch began on */
  private watchedIno: number | null = null;
  private looks = new Map<string, Look>();
  private handed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private rescan: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly settleMs: number;
  private readonly debounceMs: number;

  constructor(private readonly opts: SpoolOptions) {
    this.settleMs = opts.settleMs ?? 40;
    this.debounceMs = opts.debounceMs ?? 15;
  }

  /** Start watching; resolves once the folder is watched and the first scan is scheduled. */
  async start(): Promise<void> {
    this.watchInbox();
    this.rescan = setInterval(() => {
      // the watch was lost, or the folder was replaced (a watch stays on the inode it began on): watch again
      if (!this.watcher || lstatOrNull(this.opts.inbox)?.ino !== this.watchedIno) this.watchInbox();
      this.schedule(0);
    }, this.opts.rescanMs ?? 5000);
    this.rescan.unref();
    this.schedule(0); // files that were already there
  }

  /**
   * Watch the inbox folder itself: one inotify watch, no per-file work (a stat or watch per job
   * file cost more than the jobs in a burst). Any event is the trigger; scan() looks at the
   * entries. A watch that fails or errs is dropped, and the periodic rescan covers the inbox
   * and tries to watch it again.
   */
  private watchInbox(): void {
    if (this.closed) return;
    this.watcher?.close();
    this.watcher = null;
    this.watchedIno = lstatOrNull(this.opts.inbox)?.ino ?? null;
    let watcher: FSWatcher;
    try {
      watcher = watch(resolve(this.opts.inbox), { persistent: true });
    } catch (err) {
      this.opts.log.warn({ err }, `cannot watch the inbox (${(err as Error).message}); the periodic rescan still covers it`);
      return;
    }
    this.watcher = watcher;
    watcher.on('change', () => this.schedule(this.debounceMs));
    watcher.on('error', (err) => {
      this.opts.log.warn({ err }, `inbox watcher error (${err.message}); the periodic rescan still covers the inbox`);
      watcher.close();
      if (this.watcher === watcher) this.watcher = null;
    });
  }

  /** Run a scan `delayMs` from now unless one is already scheduled sooner. */
  schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.scanning) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.scanning = this.scan().then(
        (waiting) => this.afterScan(waiting),
        (err: unknown) => {
          this.opts.log.error({ err }, `inbox scan failed (${(err as Error).message}); retrying at the next rescan`);
          this.afterScan(false);
        },
      );
    }, delayMs);
  }

  /** Schedule the follow-up of a scan: soon if events came meanwhile, after the settle time if entries wait. */
  private afterScan(waiting: boolean): void {
    this.scanning = null;
    const again = this.again;
    this.again = false;
    if (again) this.schedule(this.debounceMs);
    else if (waiting) this.schedule(this.settleMs);
  }

  /** One look at the inbox: hand over entries seen unchanged twice, remember the rest; true when some wait. */
  private async scan(): Promise<boolean> {
    const names = readdirOrEmpty(this.opts.inbox).filter((n) => !isIgnoredName(n));
    const now = Date.now();
    const present = new Set(names);
    for (const n of this.looks.keys()) if (!present.has(n)) this.looks.delete(n);
    for (const n of this.handed) if (!present.has(n)) this.handed.delete(n);
    const stable: { name: string; arrived: number }[] = [];
    let waiting = false;
    for (const name of names) {
      if (this.handed.has(name)) continue;
      const seen = this.looks.get(name);
      if (seen && now - seen.at < this.settleMs) {
        waiting = true; // too soon for its second look: a burst of events must not lstat every entry each time
        continue;
      }
      // Synchronous: an lstat writes nothing, and a burst of hundreds through the thread pool
      // costs the daemon more in hand-offs than in the calls.
      const st = lstatOrNull(join(this.opts.inbox, name));
      if (!st) continue;
      const sig = `${st.ino}:${st.size}:${st.mtimeMs}`;
      const prev = this.looks.get(name);
      if (prev && prev.sig === sig && now - prev.at >= this.settleMs) {
        stable.push({ name, arrived: st.ctimeMs }); // a rename into the inbox sets ctime: the arrival
      } else {
        if (!prev || prev.sig !== sig) this.looks.set(name, { sig, at: now });
        waiting = true;
      }
    }
    if (stable.length > 0) {
      // in order of arrival, not of the directory listing: "then by arrival" holds within one scan too
      const names = stable.sort((a, b) => a.arrived - b.arrived || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((e) => e.name);
      for (const n of names) {
        this.handed.add(n);
        this.looks.delete(n);
      }
      try {
        await this.opts.onStable(names);
      } catch (err) {
        this.opts.log.error({ err }, `handling inbox entries failed (${(err as Error).message}); they stay in the inbox and are looked at again`);
        for (const n of names) this.handed.delete(n);
        waiting = true;
      }
    }
    return waiting;
  }

  /** Stop watching and wait for a scan in progress to finish. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.rescan) clearInterval(this.rescan);
    this.watcher?.close();
    this.watcher = null;
    await this.scanning;
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null; // gone since the listing: nothing to hand over
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // the inbox vanished; the periodic rescan looks again
  }
}
