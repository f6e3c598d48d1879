/**
 * Giving memory back when the queue runs dry.
 *
 * A burst of jobs grows V8's heap; left alone, the idle daemon keeps that
 * footprint until the next allocation-driven collection, which on an idle
 * daemon may never come. On a 4–8 GB Pi that also hosts a model, the idle
 * footprint matters (goal: ≤ a bare node + 10 MB RSS, issue 33), so once the daemon has been idle
 * for `afterMs` it runs a few full, compacting collections (COLLECTIONS):
 * one frees the garbage, but V8 gives pages back and shrinks the young
 * generation, and drops the bytecode of functions not run since (start-up
 * code, say), only after several spread over seconds (COLLECTIONS). Start-up counts as work: the
 * first idle turn after READY collects too. `gc` is obtained
 * through V8's flag API (no `--expose-gc` on the command line needed). This
 * does nothing while jobs run and nothing if V8 refuses the flag.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gcFn: (() => void) | null | undefined;

/**
 * Full collections per idle turn (each a few ms on the idle daemon's heap of ~6 MB), SPACING_MS
 * apart: V8 shrinks its young generation when the allocation rate is low, which a burst of
 * collections right after the work does not show (measured: eight 250 ms apart gave 48.7 or
 * 49.8 MB by the run, eight 1 s apart 47.8 every time, four 1 s apart 49.7).
 */
const COLLECTIONS = 8;
const SPACING_MS = 1000;

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
  /** true at first: start-up leaves garbage (module loading, the first status) like a job does */
  private dirty = true;

  /** `onDone`: told when a turn's collections are done, with the process's resident memory then (bytes) */
  constructor(private readonly afterMs = 500, private readonly onDone: (rss: number) => void = () => undefined) {}

  /** A job ran: the heap may hold its garbage. */
  busy(): void {
    this.dirty = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The queue is empty: collect once after `afterMs`, unless work arrives first. */
  idle(): void {
    if (!this.dirty || this.timer) return;
    let left = COLLECTIONS;
    const collect = (): void => {
      this.timer = null;
      const gc = exposedGc();
      if (!gc) return;
      gc();
      if (--left === 0) {
        this.dirty = false;
        this.onDone(process.memoryUsage.rss());
        return;
      }
      this.timer = setTimeout(collect, SPACING_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(collect, this.afterMs);
    this.timer.unref();
  }

  /** Cancel a pending collection. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
