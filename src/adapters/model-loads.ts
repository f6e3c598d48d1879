/**
 * Model loads, as they happen: the one place a local-model adapter says "this
 * model took so long to load", for whoever in the process wants to know.
 *
 * A load is not a provider call and is not in the ledger (it depends on the
 * machine and on what was loaded before, not on the session), yet an operator
 * wants to see it: the session worker listens here and passes each load to
 * the daemon as progress, where the loopback API's metrics count it. The
 * registry is process-wide on purpose (adapters are made deep inside the
 * runtime); `onModelLoad` returns the function that removes the listener, so a
 * registration unwinds. A listener that throws is ignored: a metric never
 * fails a load. This module measures nothing itself.
 */

export interface ModelLoad {
  /** the manifest id of the provider whose model loaded */
  provider: string;
  /** wall time of the load (weights and context), ms */
  ms: number;
}

const listeners = new Set<(l: ModelLoad) => void>();

/** Be told of every model load in this process; returns the unsubscribe function. */
export function onModelLoad(fn: (l: ModelLoad) => void): () => void {
  listeners.add(fn);
  return () => void listeners.delete(fn);
}

/** Tell the listeners that a model loaded (called by the adapter that loaded it). */
export function reportModelLoad(l: ModelLoad): void {
  for (const fn of listeners) {
    try {
      fn(l);
    } catch {
      // a listener's failure is its own; the load succeeded
    }
  }
}
