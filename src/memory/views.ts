/**
 * The SQL views people and the planner read — plain SQL, no custom functions.
 *
 * They must open in the stock `sqlite3` shell (or R, or any SQLite client), so
 * every definition uses built-in SQL only (window functions included). This
 * module owns the view text and the one definition of "a provider's fault";
 * the tables are `schema.ts`, and the named report queries are `reports.ts`.
 */

/** Failure kinds that count against a provider's pass rate: a ladder rung it did not pass. */
export const PROVIDER_FAULT_KINDS = ['grammar', 'schema', 'range', 'crosscheck', 'semantic'] as const;

const faults = PROVIDER_FAULT_KINDS.map((k) => `'${k}'`).join(', ');

export const VIEWS = {
  v_signature: `
-- one row per failure shape (kind + normalised detail), with what followed it
CREATE VIEW v_signature AS
SELECT kind, signature,
  COUNT(*) AS seen,
  COUNT(DISTINCT session) AS sessions,
  COUNT(DISTINCT COALESCE(provider, tool)) AS sources,
  SUM(resolution IN ('retry_same', 'escalated', 'replanned')) AS recovered,
  SUM(resolution = 'retry_same') AS retry_same,
  SUM(resolution = 'escalated') AS escalated,
  SUM(resolution = 'replanned') AS replanned,
  SUM(resolution = 'declined') AS declined,
  SUM(resolution = 'abandoned') AS abandoned,
  SUM(resolution IS NULL) AS open,
  MIN(t) AS first_seen, MAX(t) AS last_seen
FROM failure
GROUP BY kind, signature;`,

  v_provider_health: `
-- pass rate per provider and schema; a union over fact and failure, so a
-- provider that never succeeded still has a row (with pass_rate 0)
CREATE VIEW v_provider_health AS
SELECT provider, schema,
  SUM(ok) AS ok, SUM(failed) AS failed, COUNT(*) AS n,
  1.0 * SUM(ok) / COUNT(*) AS pass_rate,
  MAX(at) AS last_seen
FROM (
  SELECT provider, schema, 1 AS ok, 0 AS failed, observed_at AS at FROM fact WHERE provider IS NOT NULL
  UNION ALL
  SELECT provider, schema, 0 AS ok, 1 AS failed, t AS at FROM failure
  WHERE provider IS NOT NULL AND kind IN (${faults})
)
GROUP BY provider, schema;`,

  v_unresolved: `
-- failures with no known remedy: nothing later recovered the step
CREATE VIEW v_unresolved AS
SELECT session, seq, ledger, t, kind, step, capability, COALESCE(provider, tool) AS source,
  schema, signature, detail, detail_trust, COALESCE(resolution, 'open') AS state
FROM failure
WHERE resolution IS NULL OR resolution IN ('declined', 'abandoned');`,

  v_capability_gap: `
-- capabilities no provider could serve: the shopping list
CREATE VIEW v_capability_gap AS
SELECT capability, schema, COUNT(*) AS seen, COUNT(DISTINCT session) AS sessions,
  SUM(resolution = 'declined') AS declined, MIN(t) AS first_seen, MAX(t) AS last_seen
FROM failure
WHERE kind = 'capability_gap'
GROUP BY capability, schema;`,

  v_cost: `
-- measured cost per provider and schema: nearest-rank p50/p90 over every call, failed ones included
CREATE VIEW v_cost AS
WITH ranked AS (
  SELECT provider, schema, duration_ms, outcome,
    ROW_NUMBER() OVER (PARTITION BY provider, schema ORDER BY duration_ms) AS rn,
    COUNT(*) OVER (PARTITION BY provider, schema) AS cnt
  FROM provider_call
)
SELECT provider, schema, MAX(cnt) AS n,
  MIN(CASE WHEN rn >= (cnt * 50 + 99) / 100 THEN duration_ms END) AS p50_ms,
  MIN(CASE WHEN rn >= (cnt * 90 + 99) / 100 THEN duration_ms END) AS p90_ms,
  MAX(duration_ms) AS max_ms,
  SUM(outcome <> 'ok') AS failed_calls
FROM ranked
GROUP BY provider, schema;`,
} as const;

export type ViewName = keyof typeof VIEWS;
export const VIEW_NAMES = Object.keys(VIEWS) as ViewName[];
export const VIEWS_SQL = Object.values(VIEWS).join('\n');
