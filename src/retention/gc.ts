/**
 * Retention: `pico gc` and the daemon's idle task call this to remove (or
 * archive) finished sessions and rejected entries that ended before a cutoff,
 * and to keep memory/episodic.db consistent with what remains.
 *
 * Order: archive a month's items first (when asked; one new archive file
 * renamed into place), then, batch by batch, move each item into the trash
 * (one rename: the session is gone), delete the removed sessions' rows from
 * the memory index (one transaction), and delete the files. Every row of the index is
 * derived from one session's ledger alone (facts, fields, FTS, failures and
 * their resolutions, control events, provider calls, trajectory entries and
 * drops, the episode and the ingest bookkeeping), so deleting a session's
 * rows leaves exactly the index `pico memory rebuild` makes from the sessions
 * that remain: no table keeps rows of a removed session, on purpose — the
 * cost model and pass rates then forget those calls, which the policy's own
 * window (14 days) has forgotten already for any gc age above it. Leftovers of a
 * crashed run (trash, archive temp files) are finished first. A run stops
 * between batches when its signal aborts, and takes at most `limit` items
 * (the rest is for the next run: `more`). The shared composition documents
 * (sessions/.compositions/) stay; a new session may link any of them.
 *
 * Nothing outside sessions/ is ever moved, written or deleted: candidates.ts
 * leaves planted links and mounts (reported in `kept`), and when the trash
 * folder, or with --archive the archive folder, is a symlink or otherwise
 * refused (src/base/safe-open.ts), the run removes nothing, says why in
 * `kept`, and leaves the link where it is.
 */
import { existsSync } from 'node:fs';
import { checkFolder, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { basename, join } from 'node:path';
import { MemoryIndex } from '../memory/memory-index.js';
import { dbPathFor } from '../memory/paths.js';
import { addToArchive, ARCHIVE_DIR, monthArchive, removeStrayTemps } from './archive.js';
import { selectOlderThan, type Candidate, type Kept } from './candidates.js';
import { emptyTrashEntry, moveToTrash, TRASH_DIR, trashEntries, type TrashEntry } from './remove.js';

export interface GcOptions {
  root: string;
  /** items that ended more than this long ago go */
  olderThanMs: number;
  archive: boolean;
  dryRun: boolean;
  /** at most this many items per run (default: all) */
  limit?: number;
  now?: number;
  signal?: AbortSignal;
}

export interface GcItem {
  kind: Candidate['kind'];
  name: string;
  ended_at: string;
  bytes: number;
  /** the archive it went into (with --archive) */
  archive: string | null;
}

export interface GcReport {
  cutoff: string;
  dry_run: boolean;
  archive: boolean;
  /** sessions and rejected entries removed (or, in a dry run, that would be) */
  sessions: number;
  rejected: number;
  bytes: number;
  items: GcItem[];
  /** archives written */
  archives: string[];
  /** sessions that look finished but were kept, and why */
  kept: Kept[];
  /** trash entries of an earlier, interrupted run that were finished */
  finished_leftovers: number;
  /** true when the signal stopped the run or the limit was reached: run again for the rest */
  more: boolean;
}

const BATCH = 100;

/** Delete the memory rows of these sessions (when an index exists), then their trash. */
async function finish(root: string, entries: readonly TrashEntry[]): Promise<void> {
  const sessions = entries.map((e) => e.session).filter((s): s is string => s !== null);
  const db = dbPathFor(root);
  if (sessions.length > 0 && existsSync(db)) {
    const ix = MemoryIndex.open(db);
    try {
      ix.forgetSessions(sessions);
    } finally {
      ix.close();
    }
  }
  for (const e of entries) await emptyTrashEntry(e);
}

/** Remove or archive what ended before the cutoff; see the module comment for the order. */
export async function collectGarbage(o: GcOptions): Promise<GcReport> {
  const sessionsDir = join(o.root, 'sessions');
  const now = o.now ?? Date.now();
  const cutoff = now - o.olderThanMs;
  const report: GcReport = {
    cutoff: new Date(cutoff).toISOString(), dry_run: o.dryRun, archive: o.archive,
    sessions: 0, rejected: 0, bytes: 0, items: [], archives: [], kept: [], finished_leftovers: 0, more: false,
  };
  // the folders gc writes into must be the root's own: a planted link there would carry the removal outside
  const rules = rootRules(o.root);
  const refused = [TRASH_DIR, ARCHIVE_DIR].map((name) => {
    try {
      checkFolder(rules, join(sessionsDir, name));
      return null;
    } catch (err) {
      if (err instanceof UnsafeFileError) return { name: `sessions/${name}`, why: `${err.message}: gc removes and archives nothing until it is a folder of the root again` };
      throw err;
    }
  }).filter((k) => k !== null);
  if (refused.length > 0) {
    report.kept = [...refused, ...selectOlderThan(sessionsDir, cutoff).kept];
    return report;
  }
  if (!o.dryRun) {
    const leftovers = trashEntries(sessionsDir);
    await finish(o.root, leftovers);
    report.finished_leftovers = leftovers.length;
    removeStrayTemps(sessionsDir);
  }
  const { candidates, kept } = selectOlderThan(sessionsDir, cutoff);
  report.kept = kept;
  const todo = candidates.slice(0, o.limit ?? candidates.length);
  report.more = todo.length < candidates.length;
  const count = (c: Candidate, archive: string | null): void => {
    report.items.push({ kind: c.kind, name: c.name, ended_at: c.ended_at, bytes: c.bytes, archive });
    if (c.kind === 'session') report.sessions++;
    else report.rejected++;
    report.bytes += c.bytes;
  };
  if (o.dryRun) {
    for (const c of todo) count(c, o.archive ? monthArchive(sessionsDir, c.ended_at) : null);
    return report;
  }
  // with --archive, one archive write per month (rewriting a month's file per batch made 300
  // sessions take 6.8 s instead of 3.5 s on the 2-core test box), then the removal in batches
  const groups = new Map<string | null, Candidate[]>();
  for (const c of todo) {
    const key = o.archive ? monthArchive(sessionsDir, c.ended_at) : null;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  for (const [archive, group] of groups) {
    if (o.signal?.aborted) {
      report.more = true;
      break;
    }
    if (archive !== null) {
      await addToArchive(archive, group.flatMap((c) => c.paths.map((p) => ({ path: p, as: c.kind === 'session' ? c.name : `rejected/${basename(p)}` }))));
      report.archives.push(archive);
    }
    for (let i = 0; i < group.length; i += BATCH) {
      if (o.signal?.aborted) {
        report.more = true; // archived but not yet removed: the next run archives them again, replacing, never duplicating
        break;
      }
      const moved = group.slice(i, i + BATCH).map((c) => ({ c, entry: moveToTrash(sessionsDir, c.kind, c.name, c.paths) }));
      await finish(o.root, moved.map((m) => m.entry));
      for (const { c } of moved) count(c, archive);
    }
  }
  return report;
}
