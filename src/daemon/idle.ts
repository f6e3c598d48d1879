/**
 * Giving memory back when the queue runs dry.
 *
 * A burst of jobs grows V8's heap; left alone, the idle daemon keeps that
 * footprint until the next allocation-driven collection, which on an idle
 * daemon may never come. On a 4–8 GB Pi that also hosts a model, the idle
 * footprint matters (goal: ≤ 60 MB RSS), so once the daemon has been idle
 * for `afterMs` it runs one full, compacting collection. `gc` is obtained
 * through V8's flag API (no `--expose-gc` on the command line needed). This
 * does nothing while jobs run and nothing if V8 refuses the flag.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gcFn: (() => void) | null | undefined;

/** V8's gc(), or null when it cannot be exposed. */
function exposedGc(): (() => void) | null {
  if (gcFn !== undefined) return gcFn;
  try {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  } catch {
    gcFn = null;
  }
  return gcFn;
}

export class IdleCollector {
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;

  constructor(private readonly afterMs = 500) {}

  /** A job ran: the heap may hold its garbage. */
  busy(): void {
    this.dirty = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The queue is empty: collect once after `afterMs`, unless work arrives first. */
  idle(): void {
    if (!this.dirty || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dirty = false;
      exposedGc()?.();
    }, this.afterMs);
    this.timer.unref();
  }

  /** Cancel a pending collection. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
