/**
 * Where memory lives under a picoharness root.
 *
 * One small owner for the three locations memory reads or writes, so the CLI,
 * the daemon and the bench cannot disagree about them. It does not create
 * anything; opening the database does that.
 */
import { join } from 'node:path';

/** The derived database: memory/episodic.db under the root. */
export function dbPathFor(root: string): string {
  return join(root, 'memory', 'episodic.db');
}

/** The ledgers: sessions/ under the root. */
export function sessionsDirFor(root: string): string {
  return join(root, 'sessions');
}

/** Provider manifests, read only for their declared cost. */
export function providerManifestsDirFor(root: string): string {
  return join(root, 'manifests', 'providers');
}

/** Folders under sessions/ that are not sessions: the spool, rejects and dot-folders. */
export function isSessionFolderName(name: string): boolean {
  return name !== 'inbox' && name !== 'rejected' && !name.startsWith('.');
}

/** The ledger path as it is cited: relative to the root, always with forward slashes (schema.ts computes the same in SQL). */
export function ledgerCitePath(session: string): string {
  return `sessions/${session}/events.jsonl`;
}
