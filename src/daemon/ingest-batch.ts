/**
 * Ingest batching: finished sessions go into memory between jobs, in batches.
 *
 * Memory ingest reads a session's ledger into the episodic index (src/memory/),
 * in the session worker. Done per session during a burst it would cost every
 * job a transaction; so finished sessions wait here until the queue runs dry,
 * or, during a long burst, until the oldest has waited INGEST_MAX_LAG_MS or
 * INGEST_BATCH have gathered, and then go in one transaction. A memory failure
 * is a warning, never a stop: the ledgers are the truth and can be ingested
 * again later (`pico memory rebuild`). The loop (loop.ts) decides when to
 * flush; this module keeps the batch and does the flush.
 */
import type { Logger } from 'pino';
import { sessionFiles, type DaemonPaths } from './paths.js';
import type { SessionRunner } from './seams.js';

/**
 * During a burst, finished sessions wait for memory ingest until the queue runs
 * dry, for at most this long or this many jobs; then they go in one transaction.
 */
const INGEST_MAX_LAG_MS = 5_000;
const INGEST_BATCH = 1_000;

export class IngestBatch {
  private readonly pending: string[] = [];
  private since = 0;

  /** A session finished: it waits for the next batch. */
  add(id: string): void {
    if (this.pending.length === 0) this.since = performance.now();
    this.pending.push(id);
  }

  /** During a burst: the batch is full, or its oldest session has waited long enough. */
  get due(): boolean {
    return this.pending.length >= INGEST_BATCH || (this.pending.length > 0 && performance.now() - this.since >= INGEST_MAX_LAG_MS);
  }

  /**
   * Feed the waiting sessions into memory (one transaction for the batch), through the worker
   * (runtime.ingestSessions); a failure is logged as a warning and the batch is dropped.
   */
  async flush(runtime: SessionRunner | null, paths: DaemonPaths, log: Logger): Promise<void> {
    const ids = this.pending.splice(0);
    if (!runtime?.ingestSessions || ids.length === 0) return;
    const t0 = performance.now();
    try {
      await runtime.ingestSessions(ids.map((id) => sessionFiles(paths, id).dir));
      log.info({ event: 'ingested', sessions: ids.length, duration_ms: Math.round((performance.now() - t0) * 10) / 10 });
    } catch (err) {
      log.warn({ event: 'memory', sessions: ids, err }, `memory ingest of ${ids.length} session(s) failed (${(err as Error).message}); they are safe on disk and can be ingested again later (pico memory rebuild)`);
    }
  }
}
