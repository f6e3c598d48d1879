/**
 * The hub's memory: one index (`<hub root>/memory/episodic.db`) filled by the
 * same ingest code a box runs, over every box's copied ledgers, with the box
 * as a column.
 *
 * Session ids are unique across the fleet (a second and 48 random bits; a
 * fleet job's id is its session id everywhere), so the memory tables take
 * every box's sessions unchanged, and their own views (`v_provider_health`,
 * `v_signature`, `v_unresolved`, `v_capability_gap`, `v_cost`) and the cost
 * model answer across the fleet as they stand. The box lives beside them in
 * `fleet_session (session, box)`, and the `v_fleet_*` views here repeat the
 * questions per box. Memory's schema is not changed: it may drop and rebuild
 * its tables (a version change), and `fleet_session` is derived too — it is
 * refilled from the folders on every open. A session id met under two boxes
 * is refused (logged), never merged. Memory stays T1 where the ledger says
 * so; nothing here upgrades trust.
 *
 * Folders are listed and a session's files looked at through safe-open before
 * memory reads them: a symlink, a FIFO or a foreign file planted in the hub's
 * root is logged and left out, never followed, and cannot hang the hub.
 */
import type { Logger } from 'pino';
import { listFolder, openPlanted, rootRules, UnsafeFileError } from '../base/safe-open.js';
import { closeSync } from 'node:fs';
import { MemoryIndex, dbPathFor } from '../memory/index.js';
import { COMPOSITION_FILE } from '../ledger/composition.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { BOX_RE } from './names.js';
import { boxSessionsDir } from './hub-store.js';
import { join } from 'node:path';
import { isSessionId } from '../ledger/session-id.js';

/** Largest copy (and document) memory is handed, in bytes. */
const MAX_COPY_BYTES = 1024 ** 3;
/** Sessions per transaction when the index is refilled on open (memory's own ingestDir batch). */
const REFILL_BATCH = 500;

const FLEET_SQL = `
CREATE TABLE IF NOT EXISTS fleet_session (session TEXT PRIMARY KEY, box TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS fleet_session_by_box ON fleet_session (box);

-- pass rate per box, provider and schema (v_provider_health, with the box)
CREATE VIEW IF NOT EXISTS v_fleet_provider_health AS
SELECT b.box, u.provider, u.schema,
  SUM(u.ok) AS ok, SUM(u.failed) AS failed, COUNT(*) AS n,
  1.0 * SUM(u.ok) / COUNT(*) AS pass_rate, MAX(u.at) AS last_seen
FROM (
  SELECT session, provider, schema, 1 AS ok, 0 AS failed, observed_at AS at FROM fact WHERE provider IS NOT NULL
  UNION ALL
  SELECT session, provider, schema, 0, 1, t FROM failure
  WHERE provider IS NOT NULL AND kind IN ('grammar', 'schema', 'range', 'crosscheck', 'semantic')
) u JOIN fleet_session b ON b.session = u.session
GROUP BY b.box, u.provider, u.schema;

-- failure shapes per box (v_signature, with the box)
CREATE VIEW IF NOT EXISTS v_fleet_signature AS
SELECT b.box, f.kind, f.signature, COUNT(*) AS seen, COUNT(DISTINCT f.session) AS sessions,
  SUM(f.resolution IS NULL) AS open, MIN(f.t) AS first_seen, MAX(f.t) AS last_seen
FROM failure f JOIN fleet_session b ON b.session = f.session
GROUP BY b.box, f.kind, f.signature;

-- unresolved failures with the box that saw them
CREATE VIEW IF NOT EXISTS v_fleet_unresolved AS
SELECT b.box, u.* FROM v_unresolved u JOIN fleet_session b ON b.session = u.session;

-- capability gaps per box: what each box was asked for and could not serve
CREATE VIEW IF NOT EXISTS v_fleet_capability_gap AS
SELECT b.box, f.capability, f.schema, COUNT(*) AS seen, COUNT(DISTINCT f.session) AS sessions,
  MIN(f.t) AS first_seen, MAX(f.t) AS last_seen
FROM failure f JOIN fleet_session b ON b.session = f.session
WHERE f.kind = 'capability_gap'
GROUP BY b.box, f.capability, f.schema;

-- jobs per box and outcome
CREATE VIEW IF NOT EXISTS v_fleet_episodes AS
SELECT b.box, COALESCE(e.outcome, 'open') AS outcome, COUNT(*) AS episodes,
  SUM(e.failure_count) AS failures, MAX(e.ended_at) AS last_ended
FROM episode e JOIN fleet_session b ON b.session = e.session
GROUP BY b.box, COALESCE(e.outcome, 'open');
`;

export const FLEET_VIEWS = ['v_fleet_provider_health', 'v_fleet_signature', 'v_fleet_unresolved', 'v_fleet_capability_gap', 'v_fleet_episodes'] as const;

export class HubIndex {
  readonly ix: MemoryIndex;
  private readonly boxOf = new Map<string, string>();

  constructor(private readonly root: string, private readonly log: Logger) {
    this.ix = MemoryIndex.open(dbPathFor(root));
    this.ix.db.exec(FLEET_SQL);
    this.refill();
  }

  /** Boxes with a folder on the hub. */
  boxes(): string[] {
    return this.folders(join(this.root, 'fleet')).filter((n) => BOX_RE.test(n)).sort();
  }

  /** The folders in `dir`, listed without following a link (a planted one is logged, its listing empty). */
  private folders(dir: string): string[] {
    try {
      return (listFolder(rootRules(this.root), dir) ?? []).filter((e) => e.stat.isDirectory()).map((e) => e.name);
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
      this.refused(err);
      return [];
    }
  }

  /** True when a session folder and the files memory reads in it are plain files of the root; a refusal is logged. */
  private admitted(dir: string): boolean {
    const rules = rootRules(this.root);
    try {
      for (const [name, linked] of [[LEDGER_FILE, false], [COMPOSITION_FILE, true]] as const) {
        const f = openPlanted(rules, join(dir, name), { maxBytes: MAX_COPY_BYTES, what: name === LEDGER_FILE ? 'ledger copy' : 'composition document', linked });
        if (f) closeSync(f.fd);
      }
      return true;
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
      this.refused(err);
      return false;
    }
  }

  private readonly refusedFiles = new Set<string>();

  private refused(err: UnsafeFileError): void {
    if (this.refusedFiles.has(err.file)) return;
    this.refusedFiles.add(err.file);
    this.log.error({ event: 'unsafe_folder', file: err.file, reason: err.reason }, `${err.message}; left out of the hub's index`);
  }

  /** Rebuild the session -> box table from the folders, and ingest what is new in every box's copy. */
  private refill(): void {
    const put = this.ix.db.prepare('INSERT OR IGNORE INTO fleet_session (session, box) VALUES (?, ?)');
    const found: { box: string; session: string }[] = [];
    for (const box of this.boxes()) for (const session of this.folders(boxSessionsDir(this.root, box)).filter(isSessionId)) found.push({ box, session });
    this.ix.db.transaction(() => {
      for (const { box, session } of found) this.note(box, session, put);
    })();
    const dirs = found.map(({ box, session }) => join(boxSessionsDir(this.root, box), session)).filter((d) => this.admitted(d));
    for (let i = 0; i < dirs.length; i += REFILL_BATCH) this.ix.ingestSessions(dirs.slice(i, i + REFILL_BATCH));
  }

  /** Record a session's box; false (and logged) when another box has a session of that id. */
  private note(box: string, session: string, put = this.ix.db.prepare('INSERT OR IGNORE INTO fleet_session (session, box) VALUES (?, ?)')): boolean {
    const known = this.boxOf.get(session);
    if (known === box) return true;
    if (known === undefined) {
      put.run(session, box);
      const row = this.ix.db.prepare('SELECT box FROM fleet_session WHERE session = ?').get(session) as { box: string };
      this.boxOf.set(session, row.box);
      if (row.box === box) return true;
    }
    this.log.error({ event: 'session_clash', session, box, other: this.boxOf.get(session) }, `session ${session} of box ${box} has the id of a session of box ${this.boxOf.get(session)}; it is kept on disk but not indexed`);
    return false;
  }

  /** Ingest the grown part of the given session folders (fleet/<box>/sessions/<id>) in one transaction. */
  ingest(sessionDirs: readonly string[]): number {
    const ok = sessionDirs.filter((d) => {
      const parts = d.split('/');
      return this.note(parts[parts.length - 3]!, parts[parts.length - 1]!) && this.admitted(d);
    });
    if (ok.length === 0) return 0;
    return this.ix.ingestSessions(ok).reduce((n, r) => n + r.events, 0);
  }

  close(): void {
    this.ix.close();
  }
}
