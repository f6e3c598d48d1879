/**
 * The hub's answers per box: what `pico failures report --fleet` and
 * `pico report --fleet` read from a hub's root, with the box as a column.
 *
 * A hub's root holds `fleet/<box>/sessions/` (its copy of every box's
 * ledgers, hub-store.ts) and `memory/episodic.db` with `fleet_session`
 * (hub-index.ts). Anything else given as `--root` is refused with a
 * `SettingsError` naming the folder and the fix, so a box's root or a typo
 * is never read as "a fleet with no boxes".
 *
 * The failure reports run unchanged, once per box: temporary views named
 * like memory's tables (`failure`, `fact`, `episode`, `provider_call`, …,
 * every table with a `session` column) narrow them to the box's sessions,
 * and temporary copies of memory's own views (`v_signature`, `v_cost`, …)
 * read through them; SQLite resolves an unqualified name in the temp schema
 * first. So a report's rows for a box are the rows that box's own index gives,
 * and a new report or view needs no fleet twin. Nothing is written: the hub
 * process is the index's one writer, and temporary views live only in this
 * connection. A report's `LIMIT` applies per box.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { dbPathFor, MemoryIndex, runReport, type ReportResult } from '../memory/index.js';
import type { ParamValue } from '../memory/reports.js';
import { boxSessionsDir } from './hub-store.js';
import { BOX_RE } from './names.js';

export class NotAHubError extends Error {
  override name = 'SettingsError';
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

export interface HubRoot {
  root: string;
  /** every box with a copy of its sessions on the hub, by name */
  boxes: { box: string; sessionsDir: string }[];
}

/** The boxes of a hub's root; a root that is not a hub's is refused, saying what it looks like instead. */
export function openHubRoot(root: string): HubRoot {
  const fleetDir = join(root, 'fleet');
  const boxes = (existsSync(fleetDir) ? readdirSync(fleetDir) : [])
    .filter((n) => BOX_RE.test(n) && isDir(boxSessionsDir(root, n)))
    .sort()
    .map((box) => ({ box, sessionsDir: boxSessionsDir(root, box) }));
  if (boxes.length > 0 || hasFleetTable(dbPathFor(root))) return { root, boxes };
  const what = existsSync(join(fleetDir, '.agent.json'))
    ? 'it is a box\'s root (its fleet agent\'s state is there), not the hub\'s'
    : existsSync(join(root, 'sessions')) ? 'it is a box\'s root: it has sessions/ but no fleet/<box>/sessions/ copies and no fleet index'
      : 'it has no fleet/<box>/sessions/ copies and no fleet index';
  throw new NotAHubError(`${root} is not a fleet hub's root: ${what}`,
    `pass --root the folder \`pico fleet hub --root DIR\` writes into (docs/fleet.md), or drop --fleet to read this root's own sessions`);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when the index at `dbPath` exists and has the hub's `fleet_session` table. */
function hasFleetTable(dbPath: string): boolean {
  if (!existsSync(dbPath)) return false;
  let ix: MemoryIndex | null = null;
  try {
    ix = MemoryIndex.open(dbPath, { readonly: true });
    return ix.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fleet_session'").get() !== undefined;
  } catch {
    return false;
  } finally {
    ix?.close();
  }
}

/** Open the hub's index for reading; a hub that has ingested nothing yet has none. */
export function openHubIndex(hub: HubRoot): MemoryIndex {
  const path = dbPathFor(hub.root);
  if (!hasFleetTable(path)) {
    throw new NotAHubError(`${hub.root} has the hub's ledger copies but no fleet index at ${path}`,
      `start the hub on this root (\`pico fleet hub --root ${hub.root} --server URL\`): it builds the index from the copies when it opens`);
  }
  return MemoryIndex.open(path, { readonly: true });
}

/** Narrow memory's tables and views to one box's sessions for the statements that follow, on this connection only. */
function narrowTo(db: Database.Database, box: string): void {
  const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  const objects = db.prepare("SELECT type, name, sql FROM main.sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL ORDER BY rowid").all() as { type: string; name: string; sql: string }[];
  for (const t of db.prepare("SELECT name FROM temp.sqlite_master WHERE type = 'view'").all() as { name: string }[]) db.exec(`DROP VIEW temp.${q(t.name)}`);
  const lit = `'${box.replace(/'/g, "''")}'`;
  for (const o of objects) {
    if (o.type !== 'table' || o.name === 'fleet_session') continue;
    const cols = db.prepare(`PRAGMA main.table_info(${q(o.name)})`).all() as { name: string }[];
    if (!cols.some((c) => c.name === 'session')) continue;
    db.exec(`CREATE TEMP VIEW ${q(o.name)} AS SELECT * FROM main.${q(o.name)} WHERE session IN (SELECT session FROM main.fleet_session WHERE box = ${lit})`);
  }
  for (const o of objects) {
    if (o.type !== 'view' || o.name.startsWith('v_fleet_')) continue;
    db.exec(o.sql.replace(/^\s*CREATE\s+VIEW\s+(IF\s+NOT\s+EXISTS\s+)?/i, 'CREATE TEMP VIEW '));
  }
}

/** Drop the narrowing views: unqualified names read the whole fleet again. */
function widen(db: Database.Database): void {
  for (const t of db.prepare("SELECT name FROM temp.sqlite_master WHERE type = 'view'").all() as { name: string }[]) db.exec(`DROP VIEW temp."${t.name.replace(/"/g, '""')}"`);
}

/** Run the named failure reports once per box of the hub; each row gets the box as its first column. */
export function fleetReports(ix: MemoryIndex, boxes: readonly string[], names: readonly string[], params: Record<string, ParamValue>): ReportResult[] {
  const out = new Map<string, ReportResult>();
  try {
    for (const box of boxes) {
      narrowTo(ix.db, box);
      for (const name of names) {
        const r = runReport(ix.db, name, params);
        const acc = out.get(name) ?? { ...r, columns: ['box', ...r.columns], rows: [] };
        acc.rows.push(...r.rows.map((row) => ({ box, ...row })));
        out.set(name, acc);
      }
    }
  } finally {
    widen(ix.db);
  }
  // a hub with no box yet still answers every report, with no rows
  return names.map((n) => out.get(n) ?? { ...runReport(ix.db, n, params), rows: [] }).map((r) => (r.columns[0] === 'box' ? r : { ...r, columns: ['box', ...r.columns] }));
}

/** Boxes named in the hub's index (a box whose copies were removed still has its rows there). */
export function indexedBoxes(ix: MemoryIndex): string[] {
  return (ix.db.prepare('SELECT DISTINCT box FROM fleet_session ORDER BY box').all() as { box: string }[]).map((r) => r.box);
}
