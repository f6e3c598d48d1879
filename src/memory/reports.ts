/**
 * Named report queries over failure memory and cost — SQL for people.
 *
 * Each report is plain SQL over the views and tables (so `pico failures sql`
 * can print it for the sqlite3 shell, with `.param set` lines for its
 * parameters). These show detail text — people may read it; the planner never
 * does (it gets `FailureMemory.promptBlock`). This module owns the catalogue
 * and running one entry; formatting is the CLI's.
 */
import type Database from 'better-sqlite3';

export type ParamValue = number | string;

export interface Report {
  name: string;
  description: string;
  sql: string;
  /** parameter names used by the SQL (as @name), with their defaults */
  params: Record<string, ParamValue>;
}

export const REPORTS: readonly Report[] = [
  {
    name: 'top_signatures',
    description: 'The most frequent failure shapes, and how often something recovered them',
    sql: `SELECT kind, signature, seen, sessions, recovered, declined + abandoned + open AS unrecovered, last_seen
FROM v_signature ORDER BY seen DESC, kind, signature LIMIT @limit`,
    params: { limit: 20 },
  },
  {
    name: 'provider_health',
    description: 'Pass rate per provider and schema (facts against ladder failures), worst first',
    sql: `SELECT provider, schema, ok, failed, n, ROUND(pass_rate, 3) AS pass_rate, last_seen
FROM v_provider_health ORDER BY pass_rate, n DESC, provider, schema`,
    params: {},
  },
  {
    name: 'demotion_candidates',
    description: 'Providers whose pass rate is below the floor over enough observations',
    sql: `SELECT provider, schema, ok, failed, n, ROUND(pass_rate, 3) AS pass_rate
FROM v_provider_health WHERE n >= @min_n AND pass_rate < @floor ORDER BY pass_rate, provider, schema`,
    params: { floor: 0.8, min_n: 5 },
  },
  {
    name: 'unresolved',
    description: 'Failure shapes nothing recovered: the real bug list (detail text shown with its trust)',
    sql: `SELECT kind, source, signature, COUNT(*) AS seen, MAX(t) AS last_seen,
  MIN(ledger || '#' || seq) AS example, SUM(detail_trust = 'T1') AS t1_details
FROM v_unresolved GROUP BY kind, source, signature ORDER BY seen DESC, kind, signature LIMIT @limit`,
    params: { limit: 20 },
  },
  {
    name: 'capability_gaps',
    description: 'Capabilities no installed provider could serve: the shopping list',
    sql: `SELECT capability, schema, seen, sessions, declined, last_seen
FROM v_capability_gap ORDER BY seen DESC, capability, schema`,
    params: {},
  },
  {
    name: 'escalation_paths',
    description: 'Which provider took over from which, and how often',
    sql: `SELECT provider AS from_provider, resolved_by AS to_provider, schema, COUNT(*) AS times
FROM failure WHERE resolution = 'escalated'
GROUP BY provider, resolved_by, schema ORDER BY times DESC, from_provider, to_provider`,
    params: {},
  },
  {
    name: 'retry_effectiveness',
    description: 'Per failure kind: how often retrying the same provider worked, against escalating',
    sql: `SELECT kind, COUNT(*) AS seen,
  SUM(resolution = 'retry_same') AS retry_same, SUM(resolution = 'escalated') AS escalated,
  ROUND(1.0 * SUM(resolution = 'retry_same') / COUNT(*), 3) AS retry_share
FROM failure GROUP BY kind ORDER BY seen DESC, kind`,
    params: {},
  },
  {
    name: 'tool_trouble',
    description: 'Tools that errored, timed out or returned nothing',
    sql: `SELECT tool, kind, COUNT(*) AS seen, COUNT(DISTINCT session) AS sessions, MAX(t) AS last_seen
FROM failure WHERE tool IS NOT NULL AND kind IN ('tool_error', 'tool_timeout', 'empty')
GROUP BY tool, kind ORDER BY seen DESC, tool, kind`,
    params: {},
  },
  {
    name: 'slow_providers',
    description: 'Measured cost per provider and schema, slowest p90 first (failed calls included)',
    sql: `SELECT provider, schema, n, p50_ms, p90_ms, max_ms, failed_calls
FROM v_cost ORDER BY p90_ms DESC, provider, schema LIMIT @limit`,
    params: { limit: 20 },
  },
  {
    name: 'failing_sessions',
    description: 'Sessions with the most failures, with their goal and outcome',
    sql: `SELECT session, goal, outcome, failure_count, gap_count, fact_count
FROM episode WHERE failure_count > 0 ORDER BY failure_count DESC, session LIMIT @limit`,
    params: { limit: 20 },
  },
  {
    name: 'recent_failures',
    description: 'The latest failures with their detail text, trust of that text and citation',
    sql: `SELECT t, kind, COALESCE(provider, tool) AS source, step, detail, detail_trust,
  COALESCE(resolution, 'open') AS resolution, ledger || '#' || seq AS cite
FROM failure ORDER BY t DESC, session DESC, seq DESC LIMIT @limit`,
    params: { limit: 20 },
  },
  {
    name: 'untrusted_details',
    description: 'Failure details that quote outside (T1) data: read them as data, never as instructions',
    sql: `SELECT kind, COALESCE(provider, tool) AS source, signature, COUNT(*) AS seen
FROM failure WHERE detail_trust = 'T1' GROUP BY kind, source, signature ORDER BY seen DESC LIMIT @limit`,
    params: { limit: 20 },
  },
];

export interface ReportResult {
  name: string;
  description: string;
  columns: string[];
  rows: Record<string, unknown>[];
}

/** Find a report by name; the error lists the names that exist. */
export function findReport(name: string): Report {
  const r = REPORTS.find((x) => x.name === name);
  if (!r) throw new Error(`no report named "${name}"; available: ${REPORTS.map((x) => x.name).join(', ')}`);
  return r;
}

/** Run one report; `overrides` replace parameter defaults, and a parameter it does not use is ignored. */
export function runReport(db: Database.Database, name: string, overrides: Record<string, ParamValue> = {}): ReportResult {
  const r = findReport(name);
  const params: Record<string, ParamValue> = {};
  for (const [k, v] of Object.entries(r.params)) params[k] = overrides[k] ?? v;
  const stmt = db.prepare(r.sql);
  const rows = stmt.all(params) as Record<string, unknown>[];
  return { name: r.name, description: r.description, columns: stmt.columns().map((c) => c.name), rows };
}

/** A report as the sqlite3 shell takes it: `.param set` lines, then the SQL. */
export function reportForShell(r: Report): string {
  const sets = Object.entries(r.params).map(([k, v]) => `.param set @${k} ${typeof v === 'string' ? `'${v}'` : v}`);
  return [`-- ${r.name}: ${r.description}`, ...sets, `${r.sql};`].join('\n');
}
