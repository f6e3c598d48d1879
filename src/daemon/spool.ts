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
 * Mechanics (the tsx watcher pattern): chokidar watches the inbox folder and
 * nothing in it (every entry is ignored, so it neither stats nor watches each
 * job file: that per-file work cost more than the jobs in a burst); its events
 * for the folder are only a trigger. On a network or FUSE filesystem, where a
 * file written by another machine raises no event here, chokidar polls the
 * folder instead (fs-kind.ts decides, `watch` in settings.json overrides). We
 * wait for chokidar's `ready`, debounce bursts of events into one scan, and
 * de-duplicate by taking the directory listing as the truth — an entry
 * already handed to the daemon is not handed again until it has left the
 * inbox. A slow periodic rescan covers events the kernel dropped (inotify
 * overflow, or a watch lost with the folder itself: the rescan then watches
 * the folder again). Dot-files and `*.tmp` are never looked at. The listing
 * is read as bytes: a name that is not UTF-8 cannot be named by a string (Node
 * would replace its bad bytes, and the replaced name does not exist), so it is
 * handed over by its bytes at once (`onBadName`) and rejected by them. When
 * handing over fails (a full disk: the claim makes a folder), the entries
 * stay and are looked at again after a doubling wait, 250 ms up to 8 s.
 * This module decides nothing about validity and moves nothing; it only says
 * "these are stable".
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from 'pino';
import { firstInvalidUtf8 } from '../base/utf8.js';
import { pollingFor, type WatchMode } from './fs-kind.js';
import { isIgnoredName } from './inspect.js';

/** The longest wait before entries whose hand-over failed are tried again. */
const MAX_RETRY_MS = 8_000;

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
  /** an entry whose name is not UTF-8, by its bytes: handed over at once and once (absent: left alone) */
  onBadName?: (raw: Buffer) => Promise<void>;
  /** events, polling, or chosen by the inbox's filesystem (default) */
  watch?: WatchMode;
  /** how often a polled inbox is looked at (default 1000 ms) */
  pollMs?: number;
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
  /** names that are not UTF-8 handed over, by their bytes in hex */
  private handedBad = new Set<string>();
  /** hand-overs failed in a row (the retry waits longer each time) */
  private failures = 0;
  /** the inbox is polled rather than heard (fs-kind.ts) */
  polling = false;
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

  /** Start watching; resolves once chokidar is ready and the first scan is scheduled. */
  async start(): Promise<void> {
    await this.watchInbox();
    this.rescan = setInterval(() => {
      // the watch was lost, or the folder was replaced (a watch stays on the inode it began on): watch again
      if (!this.watcher || lstatOrNull(this.opts.inbox)?.ino !== this.watchedIno) void this.watchInbox();
      this.schedule(0);
    }, this.opts.rescanMs ?? 5000);
    this.rescan.unref();
    this.schedule(0); // files that were already there
  }

  /**
   * Watch the inbox folder itself with chokidar, every entry ignored: any event is the trigger;
   * scan() looks at the entries. A watch that fails or errs is dropped, and the periodic rescan
   * covers the inbox and tries to watch it again.
   */
  private async watchInbox(): Promise<void> {
    if (this.closed) return;
    const old = this.watcher;
    this.watcher = null;
    await old?.close();
    const inbox = resolve(this.opts.inbox);
    this.watchedIno = lstatOrNull(inbox)?.ino ?? null;
    if (this.watchedIno === null) return; // no folder to watch yet: the rescan tries again
    const how = pollingFor(inbox, this.opts.watch ?? 'auto');
    const pollMs = this.opts.pollMs ?? 1000;
    const watcher = watch(inbox, {
      depth: 0,
      followSymlinks: false,
      ignoreInitial: true,
      ignored: (p: string) => resolve(p) !== inbox,
      usePolling: how.polling,
      interval: pollMs,
      binaryInterval: pollMs,
    });
    const trigger = (): void => this.schedule(this.debounceMs);
    watcher.on('raw', trigger).on('all', trigger);
    watcher.on('error', (err) => {
      this.opts.log.warn({ err }, `inbox watcher error (${(err as Error).message}); the periodic rescan still covers the inbox`);
      if (this.watcher === watcher) this.watcher = null;
      void watcher.close();
    });
    await new Promise<void>((ok) => watcher.once('ready', () => ok()));
    if (this.closed) return void watcher.close();
    this.watcher = watcher;
    if (how.polling !== this.polling || !this.announced) {
      this.opts.log.info({ event: 'inbox_watch', mode: how.polling ? 'polling' : 'events', poll_ms: how.polling ? pollMs : null, why: how.why }, `watching ${inbox} by ${how.polling ? `polling every ${pollMs} ms` : 'change events'} (${how.why})`);
    }
    this.polling = how.polling;
    this.announced = true;
  }

  private announced = false;

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
        (next) => this.afterScan(next),
        (err: unknown) => {
          this.opts.log.error({ err }, `inbox scan failed (${(err as Error).message}); retrying at the next rescan`);
          this.afterScan('idle');
        },
      );
    }, delayMs);
  }

  /**
   * Schedule the follow-up of a scan: after the retry wait if a hand-over failed, soon if events
   * came meanwhile, after the settle time if entries wait.
   */
  private afterScan(next: 'idle' | 'waiting' | 'failed'): void {
    this.scanning = null;
    const again = this.again;
    this.again = false;
    if (next === 'failed') this.schedule(this.retryMs());
    else if (again) this.schedule(this.debounceMs);
    else if (next === 'waiting') this.schedule(this.settleMs);
  }

  /** The wait before entries whose hand-over failed are looked at again. */
  private retryMs(): number {
    return Math.min(MAX_RETRY_MS, 250 * 2 ** Math.max(0, this.failures - 1));
  }

  /** One look at the inbox: hand over entries seen unchanged twice, remember the rest; says whether some wait or a hand-over failed. */
  private async scan(): Promise<'idle' | 'waiting' | 'failed'> {
    const { names: all, bad } = readInbox(this.opts.inbox);
    const names = all.filter((n) => !isIgnoredName(n));
    if (await this.handBadNames(bad) === 'failed') return 'failed';
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
        this.failures++;
        const level = (err as { quiet?: boolean }).quiet ? 'debug' : 'error';
        this.opts.log[level]({ err }, `handling inbox entries failed (${(err as Error).message}); they stay in the inbox and are looked at again in ${this.retryMs()} ms`);
        for (const n of names) this.handed.delete(n);
        return 'failed';
      }
      this.failures = 0;
    }
    return waiting ? 'waiting' : 'idle';
  }

  /** Hand over, once each, the entries whose names are not UTF-8 (they are not waited on: their content is never read). */
  private async handBadNames(bad: Buffer[]): Promise<'ok' | 'failed'> {
    const present = new Set(bad.map((b) => b.toString('hex')));
    for (const k of this.handedBad) if (!present.has(k)) this.handedBad.delete(k);
    if (!this.opts.onBadName) return 'ok';
    for (const raw of bad) {
      const key = raw.toString('hex');
      if (this.handedBad.has(key) || isIgnoredName(raw.toString('utf8'))) continue;
      this.handedBad.add(key);
      try {
        await this.opts.onBadName(raw);
      } catch (err) {
        this.failures++;
        this.handedBad.delete(key);
        const level = (err as { quiet?: boolean }).quiet ? 'debug' : 'error';
        this.opts.log[level]({ err }, `handling an inbox entry whose name is not UTF-8 failed (${(err as Error).message}); it stays in the inbox and is looked at again in ${this.retryMs()} ms`);
        return 'failed';
      }
    }
    return 'ok';
  }

  /** Stop watching and wait for a scan in progress to finish. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.rescan) clearInterval(this.rescan);
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
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

/** The inbox's entries: names that are UTF-8 as strings, the others as their bytes. */
function readInbox(dir: string): { names: string[]; bad: Buffer[] } {
  let raw: Buffer[];
  try {
    raw = readdirSync(dir, { encoding: 'buffer' });
  } catch {
    return { names: [], bad: [] }; // the inbox vanished; the periodic rescan looks again
  }
  const names: string[] = [];
  const bad: Buffer[] = [];
  for (const b of raw) {
    if (firstInvalidUtf8(b) === null) names.push(b.toString('utf8'));
    else bad.push(b);
  }
  return { names, bad };
}
