/**
 * The journal of memory/episodic.db: the WAL, except during a bulk load that is alone.
 *
 * The WAL writes each changed page twice (into the WAL, then into the database
 * at a checkpoint), which suits the daemon's small ingests between jobs. A bulk
 * load into an empty index (a first ingest, a rebuild: ingest.ts) only adds
 * pages, and a rollback journal writes a page that did not exist before once,
 * into the database, with nothing of it in the journal: a quarter of the file
 * system calls of the WAL (two writes per frame, a read and a write per page at
 * the checkpoint) and half the bytes at the device. So such a load asks for a
 * rollback journal, and gets it only when no other connection has the database
 * open (SQLite refuses the switch otherwise, and the load stays in the WAL). A
 * rollback journal is safe from power loss only with synchronous FULL, the WAL
 * with NORMAL, so each switch sets the one that goes with it; a crash mid-load
 * leaves a journal that the next opener plays back, so every batch is whole or
 * absent as in the WAL. A connection opened meanwhile does not wait for the load
 * to let it switch back (it works in the rollback journal), and every ingest
 * asks again (memory-index.ts), so the index returns to the WAL as soon as one
 * connection is alone with it.
 */
import type Database from 'better-sqlite3';

export type Journal = 'wal' | 'delete';

/**
 * Ask for a journal mode without waiting for other connections; the mode the connection is in
 * afterwards (the one asked for, or the one it had when another connection is in the way), with
 * its synchronous setting. Never inside a transaction (SQLite refuses the switch there).
 */
export function askJournal(db: Database.Database, mode: Journal): string {
  const wait = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.pragma(`journal_mode = ${mode}`);
  } catch (e) {
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
  } finally {
    db.pragma(`busy_timeout = ${wait}`);
  }
  const now = String(db.pragma('journal_mode', { simple: true })).toLowerCase();
  db.pragma(`synchronous = ${now === 'wal' ? 'NORMAL' : 'FULL'}`);
  return now;
}
