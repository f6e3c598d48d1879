/**
 * The two calls the runtime and the daemon make into memory.
 *
 * `readMeasurements` is what the policy snapshots once per job: it opens the
 * database read-only, and when there is none yet (a fresh install) it answers
 * from the manifests without creating a file. `ingestAfterJob` is what the
 * daemon runs between jobs so a finished session's facts are in the index
 * without a manual step. Neither keeps a connection open between calls;
 * `MeasurementReader` does, for a runtime that serves many jobs.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Measurement } from '../ledger/events.js';
import { CostModel, type SnapshotOptions } from './cost.js';
import type { IngestResult } from './ingest-events.js';
import { MemoryIndex } from './memory-index.js';
import { dbPathFor, providerManifestsDirFor, sessionsDirFor } from './paths.js';

export type Measurements = Record<string, Record<string, Measurement>>;

/** provider -> schema -> measurement for the policy; never creates or writes a file. */
export function readMeasurements(root: string, providerIds: readonly string[], schemaIds: readonly string[], opts: SnapshotOptions = {}): Measurements {
  return readMeasurementsAt(dbPathFor(root), providerManifestsDirFor(root), providerIds, schemaIds, opts);
}

/** The same, given the database path and manifests/providers folder (for callers that know both). */
export function readMeasurementsAt(
  dbPath: string, manifestsDir: string, providerIds: readonly string[], schemaIds: readonly string[], opts: SnapshotOptions = {},
): Measurements {
  // unreadable or from another schema version: the policy still gets declared costs
  return withReadonlyIndex(dbPath, () => CostModel.declaredOnly(manifestsDir, providerIds, schemaIds), (ix) => ix.cost(manifestsDir).measurementsFor(providerIds, schemaIds, opts));
}

/**
 * Read memory without writing it: `fn` over the index opened read-only, or `absent()` when there is
 * no database yet (a fresh install) or it cannot be opened (unreadable, another schema version —
 * `pico memory rebuild` fixes that). Never creates a file; the index is closed afterwards.
 */
export function withReadonlyIndex<T>(dbPath: string, absent: () => T, fn: (ix: MemoryIndex) => T): T {
  if (!existsSync(dbPath)) return absent();
  let ix: MemoryIndex;
  try {
    ix = MemoryIndex.open(dbPath, { readonly: true });
  } catch {
    return absent();
  }
  try {
    return fn(ix);
  } finally {
    ix.close();
  }
}

/** Ingest one finished (or paused) session into memory/episodic.db under `root`. */
export function ingestAfterJob(root: string, sessionId: string): IngestResult {
  const ix = MemoryIndex.open(dbPathFor(root));
  try {
    return ix.ingestSession(join(sessionsDirFor(root), sessionId));
  } finally {
    ix.close();
  }
}

/**
 * The policy's measurements for a long-running runtime (the daemon's worker):
 * one read-only connection kept open between jobs, reopened when the
 * database file is replaced (a rebuild into a new file, a deletion). The
 * answer for a set of providers and schemas is kept until the database
 * changes (SQLite's data_version moves when any connection commits, such as
 * the ingest between jobs), so a job costs one pragma rather than queries
 * that grow with the history; and for at most a minute, since the window's
 * age limit moves with the clock. `forget()` drops the cached manifest costs
 * and answers after the manifests change.
 */
export class MeasurementReader {
  private ix: MemoryIndex | null = null;
  /** `PRAGMA data_version` prepared once per connection: db.pragma() compiles the statement anew on every call, once a job */
  private dataVersion: { get(): unknown } | null = null;
  private model: CostModel | null = null;
  private ino: number | null = null;
  private readonly answers = new Map<string, { version: number; value: Measurements }>();

  constructor(private readonly root: string) {}

  read(providerIds: readonly string[], schemaIds: readonly string[], opts: SnapshotOptions = {}): Measurements {
    const db = dbPathFor(this.root);
    const manifests = providerManifestsDirFor(this.root);
    // the window's age limit at a minute's grain: answers within one minute may be shared
    const now = Math.floor((opts.now ?? Date.now()) / 60_000) * 60_000;
    const digests = providerIds.map((p) => opts.digests?.[p] ?? '');
    const key = `${providerIds.join('\u0000')}\u0001${schemaIds.join('\u0000')}\u0001${digests.join('\u0000')}\u0001${now}`;
    let ino: number | null = null;
    try {
      ino = statSync(db).ino;
    } catch {
      // no database yet (a fresh root): the manifests' declared costs, kept like any answer
      if (this.ix) this.close();
      return this.keep(key, -1, () => CostModel.declaredOnly(manifests, providerIds, schemaIds));
    }
    if (ino !== this.ino) {
      this.close();
      try {
        this.ix = MemoryIndex.open(db, { readonly: true });
        this.dataVersion = this.ix.db.prepare('PRAGMA data_version').pluck();
      } catch {
        return CostModel.declaredOnly(manifests, providerIds, schemaIds);
      }
      this.ino = ino;
    }
    const version = this.dataVersion!.get() as number;
    return this.keep(key, version, () => (this.model ??= this.ix!.cost(manifests)).measurementsFor(providerIds, schemaIds, { ...opts, now }));
  }

  /** The kept answer for `key` while the database is at `version`, else a fresh one. */
  private keep(key: string, version: number, compute: () => Measurements): Measurements {
    const kept = this.answers.get(key);
    if (kept && kept.version === version) return kept.value;
    const value = compute();
    if (this.answers.size >= 256) this.answers.clear(); // plans vary little; never let this grow
    this.answers.set(key, { version, value });
    return value;
  }

  /** The manifests changed: read their declared costs again on the next call. */
  forget(): void {
    this.model = null;
    this.answers.clear();
  }

  close(): void {
    this.ix?.close();
    this.ix = null;
    this.dataVersion = null;
    this.model = null;
    this.ino = null;
    this.answers.clear();
  }
}
