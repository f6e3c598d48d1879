/**
 * Failure memory for the planner: what went wrong before, and what worked.
 *
 * The planner reads this before it commits to a step, so it must never carry
 * text that an attacker could have written. An error string can quote the
 * tool output it could not parse (T1), so `Avoidance` has no free-text field
 * at all: a kind from the closed taxonomy, a provider or tool id that matches
 * the id grammar (anything else is dropped), counts, and a resolution from the
 * closed list. `promptBlock` renders at most four lines from those fields
 * alone. People who want the detail text use the reports and views instead.
 */
import type Database from 'better-sqlite3';
import { FAILURE_KINDS, RESOLUTIONS, type FailureKind, type Resolution } from './schema.js';

/** Provider and tool ids the planner may see; anything else is dropped, never escaped. */
export const SAFE_ID = /^[a-z0-9][a-z0-9._@:-]*$/;
const MAX_ID = 80;
/** The whole block, header included. */
export const MAX_BLOCK_LINES = 4;

export interface Avoidance {
  kind: FailureKind;
  /** the provider (or, for tool faults, the tool) that failed */
  at: string;
  seen: number;
  /** what most often worked afterwards; null when nothing did */
  remedy: Extract<Resolution, 'retry_same' | 'escalated' | 'replanned'> | null;
  /** the provider that produced the fact afterwards, when known */
  resolvedBy: string | null;
}

const isSafeId = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_ID && SAFE_ID.test(v);
const REMEDIES = ['retry_same', 'escalated', 'replanned'] as const;

const AVOIDANCE_SQL = `
WITH f AS (
  SELECT kind, COALESCE(provider, tool) AS at, resolution, resolved_by FROM failure
  WHERE COALESCE(provider, tool) IS NOT NULL AND (@capability IS NULL OR capability = @capability)
), g AS (
  SELECT kind, at, COUNT(*) AS seen FROM f GROUP BY kind, at
), r AS (
  SELECT kind, at, resolution, resolved_by, COUNT(*) AS n FROM f
  WHERE resolution IN ('retry_same', 'escalated', 'replanned') GROUP BY kind, at, resolution, resolved_by
)
SELECT g.kind, g.at, g.seen,
  (SELECT resolution FROM r WHERE r.kind = g.kind AND r.at = g.at ORDER BY n DESC, resolution, resolved_by LIMIT 1) AS remedy,
  (SELECT resolved_by FROM r WHERE r.kind = g.kind AND r.at = g.at ORDER BY n DESC, resolution, resolved_by LIMIT 1) AS resolved_by
FROM g ORDER BY g.seen DESC, g.kind, g.at LIMIT @limit`;

export class FailureMemory {
  private readonly avoidStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.avoidStmt = db.prepare(AVOIDANCE_SQL);
  }

  /** The most frequent failures (for one capability, or all), as structure only. */
  avoidance(opts: { capability?: string; limit?: number } = {}): Avoidance[] {
    const limit = opts.limit ?? MAX_BLOCK_LINES - 1;
    // ask for extra rows: some may be dropped for an unsafe id
    const rows = this.avoidStmt.all({ capability: opts.capability ?? null, limit: limit * 4 }) as {
      kind: string; at: string; seen: number; remedy: string | null; resolved_by: string | null;
    }[];
    const out: Avoidance[] = [];
    for (const r of rows) {
      if (!(FAILURE_KINDS as readonly string[]).includes(r.kind) || !isSafeId(r.at)) continue;
      const remedy = (REMEDIES as readonly (string | null)[]).includes(r.remedy) ? (r.remedy as Avoidance['remedy']) : null;
      out.push({ kind: r.kind as FailureKind, at: r.at, seen: r.seen, remedy, resolvedBy: isSafeId(r.resolved_by) ? r.resolved_by : null });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** The planner's block: a header and at most three lines, built from ids, counts and closed words only. */
  promptBlock(avoidances: readonly Avoidance[]): string {
    const lines: string[] = [];
    for (const a of avoidances) {
      if (lines.length >= MAX_BLOCK_LINES - 1) break;
      // re-check: an Avoidance may have been built by hand
      if (!(FAILURE_KINDS as readonly string[]).includes(a.kind) || !isSafeId(a.at) || !Number.isInteger(a.seen)) continue;
      const remedy = a.remedy !== null && (RESOLUTIONS as readonly string[]).includes(a.remedy) ? a.remedy : null;
      const by = remedy === 'escalated' && isSafeId(a.resolvedBy) ? ` -> ${a.resolvedBy}` : '';
      const tail = remedy ? `worked: ${remedy}${by}` : 'no known remedy';
      lines.push(`- ${a.kind} at ${a.at} x${a.seen}; ${tail}`);
    }
    return lines.length === 0 ? '' : ['Known failures to avoid:', ...lines].join('\n');
  }
}
