/**
 * The daemon's published status: `sessions/.daemon/status.json`.
 *
 * `pico status` is a separate process, so the daemon publishes what it is
 * doing as a file: pid and start time, state, the running job and step, the
 * queue by budget class and the last outcomes. Writes are atomic and whole
 * (durable-file.ts) but the directory is not fsynced — the file is advice for
 * people, the ledgers are the truth — and changes within `coalesceMs` share one write. That window is
 * long on purpose: every write replaces the file's inode, and on ext4 each
 * recently freed inode makes the next new file (a claim, a ledger, a result)
 * a little dearer, so a status written 20 times a second during a burst
 * slowed the jobs it described. A status that says what the file already
 * says (but for the time and the memory figure) is not written at all: an
 * idle daemon writes nothing. While the disk refuses writes, `paused` says
 * why; so that this can still be written on a full disk, a 64 KiB reserve
 * file beside it is given up for it (and made again once writing works):
 * the status is written into the reserve's own inode and renamed into place,
 * so it needs neither a free byte nor a free inode (a filesystem out of
 * inodes refuses every new file with ENOSPC while bytes are free).
 * On exit the file is marked `stopped`; a reader tells a live daemon from a stale file
 * (SIGKILL, power loss) by checking that the pid is alive and is still the
 * same process (proc.ts).
 */
import { readFileSync } from 'node:fs';
import { mkdir, open, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isStorageError } from '../base/storage-error.js';
import { BUDGET_CLASSES, type BudgetClass } from '../base/budget-classes.js';
import { writeFileAtomic } from '../base/durable-file.js';
import type { DaemonPaths } from './paths.js';
import { processIdentity, stillRunning } from './proc.js';

export interface RecentOutcome {
  session: string;
  outcome: string;
  duration_ms: number;
  finished_at: string;
}

export interface DaemonStatus {
  status: 'daemon-status@1';
  pid: number;
  /** boot id, pid and process start time: tells this daemon from a later process with the same pid */
  identity: string | null;
  root: string;
  started_at: string;
  updated_at: string;
  state: 'starting' | 'running' | 'stopping' | 'stopped';
  running: { session: string; label: string | null; budget_class: BudgetClass; step: string | null; started_at: string } | null;
  queue: Record<BudgetClass, number>;
  recent: RecentOutcome[];
  counts: { finished: number; rejected: number; resumed: number; errors: number };
  /** the daemon's own memory at the last write (the session worker's is its own) */
  memory: { rss_mb: number; heap_used_mb: number };
  /** the session worker's pid, or null while none runs (it exits when the daemon is idle) */
  worker: { pid: number | null };
  /** set while sessions wait because the disk refused a write (a full disk, an I/O error) */
  paused?: { code: string; reason: string; fix: string; since: string; retry_in_ms: number } | null;
  /** sessions stopped at a destructive step until a person runs pico approve / pico deny */
  waiting?: { session: string; step: string; tool: string | null; since: string; refused?: string }[];
}

const RECENT = 10;
/** Bytes set aside for the status file on a full disk (status.json is 1-3 KiB, its temp file as much). */
const RESERVE_BYTES = 64 * 1024;

/** A fresh status for this process. */
export function initialStatus(root: string, now = new Date()): DaemonStatus {
  return {
    status: 'daemon-status@1',
    pid: process.pid,
    identity: processIdentity(process.pid),
    root,
    started_at: now.toISOString(),
    updated_at: now.toISOString(),
    state: 'starting',
    running: null,
    queue: Object.fromEntries(BUDGET_CLASSES.map((c) => [c, 0])) as Record<BudgetClass, number>,
    recent: [],
    counts: { finished: 0, rejected: 0, resumed: 0, errors: 0 },
    memory: { rss_mb: 0, heap_used_mb: 0 },
    worker: { pid: null },
  };
}

/** Holds the live status and writes it (coalesced) whenever it changes. */
export class StatusPublisher {
  readonly current: DaemonStatus;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly paths: DaemonPaths, private readonly coalesceMs = 500) {
    this.current = initialStatus(paths.root);
  }

  /** Change the status and schedule a write. */
  update(change: (s: DaemonStatus) => void): void {
    change(this.current);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.coalesceMs);
      this.timer.unref();
    }
  }

  /** Remember a finished job among the recent outcomes. */
  addOutcome(o: RecentOutcome): void {
    this.update((s) => {
      s.recent.unshift(o);
      s.recent.length = Math.min(s.recent.length, RECENT);
    });
  }

  /**
   * Write the status now (a write failure is returned, not thrown into the loop). A status that
   * says what the file already says is not written again: an idle daemon's poll republishes the
   * same queue every second, and each write is a new file, a sync and a rename on the card. The
   * memory figure and `updated_at` alone are no reason to write; they are as of the last change.
   */
  async flush(): Promise<Error | null> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const said = JSON.stringify({ ...this.current, updated_at: null, memory: null });
    if (said === this.written && !this.reserveUsed) return null;
    this.current.updated_at = new Date().toISOString();
    const mem = process.memoryUsage();
    this.current.memory = { rss_mb: Math.round(mem.rss / 104857.6) / 10, heap_used_mb: Math.round(mem.heapUsed / 104857.6) / 10 };
    const text = JSON.stringify(this.current, null, 2) + '\n';
    const run = this.writing.then(async () => {
      await mkdir(this.paths.daemonDir, { recursive: true });
      try {
        await writeFileAtomic(this.paths.status, text, false);
        this.written = said;
        if (this.reserveUsed) {
          this.reserveUsed = false;
          await this.keepReserve(); // writing works again: the next full disk finds a reserve
        }
      } catch (err) {
        // a full disk (or one out of inodes) is exactly when `pico status` must say so: the reserve becomes the status
        if (!isStorageError(err)) throw err;
        if (!(await this.writeIntoReserve(text)) && !(await this.overwriteInPlace(text))) throw err;
        this.written = said;
      }
    });
    this.writing = run.catch(() => undefined);
    return run.then(() => null, (err: Error) => err);
  }

  /**
   * Write `text` into the reserve file's inode and rename it over the status: no new inode and no
   * new byte is needed. The rename frees the old status's inode and bytes, which a new (empty)
   * reserve takes at once, so the next write during the same pause finds one again. False when
   * there is no reserve.
   */
  private async writeIntoReserve(text: string): Promise<boolean> {
    let fh;
    try {
      fh = await open(this.reservePath, 'r+');
    } catch {
      return false;
    }
    try {
      await fh.truncate(0);
      await fh.write(text, 0);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(this.reservePath, this.paths.status);
    this.reserveUsed = true;
    await writeFile(this.reservePath, '', { flag: 'wx' }).catch(() => undefined);
    return true;
  }

  /**
   * The last resort when the reserve is gone too (something else took every inode it freed): the
   * status file is rewritten in its own inode, padded with spaces so it never shrinks (no
   * truncation, so a reader sees the old text or the new, and readStatus looks twice at a torn
   * one). False when there is no status file to rewrite.
   */
  private async overwriteInPlace(text: string): Promise<boolean> {
    let fh;
    try {
      fh = await open(this.paths.status, 'r+');
    } catch {
      return false;
    }
    try {
      const size = (await fh.stat()).size;
      await fh.write(text.padEnd(size, ' '), 0);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    return true;
  }

  /** the reserve was written as the status: make a full one again once writing works */
  private reserveUsed = false;
  /** what the file on disk says, but for its time and memory figure (null: not written by this process yet) */
  private written: string | null = null;

  private get reservePath(): string {
    return join(this.paths.daemonDir, 'status.reserve');
  }

  /**
   * Keep a small file of zeros beside the status (made at start and again after a full disk
   * cleared), so the status can still be written when the disk fills up or runs out of inodes:
   * the status is then written into the reserve's inode (writeIntoReserve).
   */
  async keepReserve(): Promise<void> {
    // one of the right size with its blocks allocated is kept as it is (not rewritten at every start);
    // after a pause it is an empty file, or holds an old status: made full again
    const st = await stat(this.reservePath).catch(() => null);
    if (st && st.size === RESERVE_BYTES && st.blocks * 512 >= RESERVE_BYTES) return;
    await writeFile(this.reservePath, Buffer.alloc(RESERVE_BYTES)).catch(() => undefined);
  }
}

export type StatusReading =
  | { state: 'never'; path: string }
  | { state: 'running'; status: DaemonStatus }
  | { state: 'stopped'; status: DaemonStatus }
  | { state: 'stale'; status: DaemonStatus };

/** Read the status file and tell a live daemon from a clean stop and from a stale file. */
export function readStatus(paths: DaemonPaths): StatusReading {
  let status: DaemonStatus | null = null;
  for (let attempt = 0; status === null; attempt++) {
    try {
      status = JSON.parse(readFileSync(paths.status, 'utf8')) as DaemonStatus;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'never', path: paths.status };
      // on a full disk the daemon may be rewriting the file in place (overwriteInPlace): look again
      if (err instanceof SyntaxError && attempt < 3) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
        continue;
      }
      throw new Error(`${paths.status}: unreadable status file (${(err as Error).message}); delete it — the daemon rewrites it on start`);
    }
  }
  if (status.state === 'stopped') return { state: 'stopped', status };
  return stillRunning(status.pid, status.identity ?? undefined) ? { state: 'running', status } : { state: 'stale', status };
}

/** The approval session `id` waits for, as the daemon's status file says, or null (also when it cannot be read). */
export function waitingInStatus(paths: DaemonPaths, id: string): { step: string; tool: string | null } | null {
  try {
    const r = readStatus(paths);
    return r.state === 'never' ? null : r.status.waiting?.find((w) => w.session === id) ?? null;
  } catch {
    return null;
  }
}

/**
 * Why no daemon serves the root (never started, stopped, gone), or null while one runs. An
 * unreadable status file is not proof of absence: null. `pico watch` and `pico submit` say it.
 */
export function whyUnserved(paths: DaemonPaths): string | null {
  try {
    const r = readStatus(paths);
    if (r.state === 'running') return null;
    return r.state === 'never' ? 'no daemon was ever started on it' : r.state === 'stopped' ? 'its daemon stopped' : `its daemon (pid ${r.status.pid}) is gone`;
  } catch {
    return null;
  }
}
