/**
 * `node writes-ingest.js DB LAYOUT SESSIONS`: feed every session under SESSIONS into a fresh
 * memory index at DB, one session per transaction (as the daemon does between jobs at 1,000 a
 * day), with the SQLite layout LAYOUT: `wal-4k`, `wal-2k`, `wal-1k` (WAL, synchronous NORMAL, as
 * memory-index.ts opens it, with pages of that size), `delete-4k`, `delete-1k` (a rollback
 * journal, synchronous FULL). bench/writes.ts runs it under strace on its own filesystem and
 * counts what it wrote.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MemoryIndex } from '../src/memory/memory-index.js';

const [db, layout, sessions] = process.argv.slice(2) as [string, string, string];
mkdirSync(dirname(db), { recursive: true });
const wal = layout.startsWith('wal');
const raw = new Database(db);
raw.pragma(`page_size = ${Number(/-(\d+)k$/.exec(layout)?.[1] ?? 4) * 1024}`);
raw.pragma(`journal_mode = ${wal ? 'WAL' : 'DELETE'}`);
raw.close();
const ix = MemoryIndex.open(db);
if (!wal) {
  ix.db.pragma('journal_mode = DELETE');
  ix.db.pragma('synchronous = FULL');
}
for (const id of readdirSync(sessions).filter((n) => /^\d{8}-\d{6}-/.test(n)).sort()) ix.ingestSessions([join(sessions, id)]);
ix.close();
