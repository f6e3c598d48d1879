/**
 * The clock seam. Everything the runtime measures — event times, durations,
 * budget spent, the machine profile — passes through here, so a replay can
 * feed back what the original run saw and produce a byte-identical ledger.
 * The live clock reads the real time; the replay clock answers from the
 * recorded ledger, keyed by the seq of the event being written.
 */
import type { LedgerEvent } from './events.js';

export interface Clock {
  /** ISO time for the event about to get `seq`. */
  stamp(seq: number): string;
  /** A measured value for field `key` of the event about to get `seq`: live returns `live`. */
  measured<T>(seq: number, key: string, live: T): T;
}

/** The real clock. */
export const systemClock: Clock = {
  stamp: () => new Date().toISOString(),
  measured: (_seq, _key, live) => live,
};

/** A clock that answers with what the recorded ledger says at the same seq. */
export function replayClock(recorded: readonly LedgerEvent[]): Clock {
  const bySeq = new Map<number, Record<string, unknown>>();
  for (const e of recorded) bySeq.set(e.seq, e as unknown as Record<string, unknown>);
  return {
    stamp(seq) {
      const t = bySeq.get(seq)?.t;
      return typeof t === 'string' ? t : new Date(0).toISOString();
    },
    measured<T>(seq: number, key: string, live: T): T {
      const e = bySeq.get(seq);
      return e && key in e ? (e[key] as T) : live;
    },
  };
}
