/**
 * `pico failures list | report [--name N] [--floor X] [--limit N] | sql | avoid [--capability C]`
 * over failure memory. `list` names the views and reports, `report` runs them
 * (all, or one), `sql` prints their SQL for the plain sqlite3 shell, and
 * `avoid` shows the exact text-free block the planner would get. With
 * `--fleet` on a hub's root, `report` runs the same reports once per box
 * from the hub's index, the box as the first column (src/fleet/hub-views.ts,
 * loaded only then).
 */
import { openForCli } from '../memory/cli-open.js';
import { REPORTS, reportForShell, runReport, findReport, type ParamValue, type ReportResult } from '../memory/reports.js';
import { dbPathFor } from '../memory/paths.js';
import { formatTable } from '../memory/table.js';
import { VIEWS, VIEW_NAMES } from '../memory/views.js';
import { emit, EXIT, jsonOption, parse, rootOf, rootOption, unknownSubcommand, UsageError } from './args.js';

const USAGE = 'pico failures list | report [--name N] [--floor X] [--min-n N] [--limit N] [--fleet] | sql | avoid [--capability C]  [--no-ingest] [--root DIR] [--json]';
const VIEW_PURPOSE: Record<string, string> = {
  v_signature: 'one row per failure shape, with recovery counts',
  v_provider_health: 'pass rate per provider and schema (a provider that never succeeded shows too)',
  v_unresolved: 'failures with no known remedy: the real bug list',
  v_capability_gap: 'capabilities with no provider: the shopping list',
  v_cost: 'measured p50/p90 per provider and schema',
};

/** A report name that does not exist is the user's typo: a usage error listing the names. */
function knownReport(name: string): void {
  try {
    findReport(name);
  } catch (err) {
    throw new UsageError(`--name: ${(err as Error).message}`);
  }
}

/** Numeric flags become report parameters; anything else is a usage error. */
function reportParams(values: Record<string, unknown>): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const [flag, param] of [['floor', 'floor'], ['min-n', 'min_n'], ['limit', 'limit']] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`--${flag} must be a number, got "${String(v)}"`);
    out[param] = n;
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...rootOption, ...jsonOption, name: { type: 'string' }, floor: { type: 'string' }, 'min-n': { type: 'string' },
    limit: { type: 'string' }, capability: { type: 'string' }, 'no-ingest': { type: 'boolean' }, fleet: { type: 'boolean' },
  }, USAGE);
  const sub = positionals[0] ?? 'list';
  const root = rootOf(values);
  if (values.fleet) {
    if (sub !== 'report') throw new UsageError(`--fleet goes with \`pico failures report\` (each report per box, from a hub's index), not with "${sub}"\nusage: ${USAGE}`);
    return fleetReport(root, values.name, reportParams(values), !!values.json);
  }
  if (sub === 'list') {
    const list = {
      views: VIEW_NAMES.map((v) => ({ name: v, purpose: VIEW_PURPOSE[v] ?? '' })),
      reports: REPORTS.map((r) => ({ name: r.name, purpose: r.description, params: r.params })),
    };
    emit(!!values.json, list, () => [
      'views (query them from sqlite3 ' + dbPathFor(root) + '):', formatTable(['name', 'purpose'], list.views, { whole: ['purpose'] }), '',
      'reports (pico failures report --name NAME):', formatTable(['name', 'purpose'], list.reports, { whole: ['purpose'] }),
    ].join('\n'));
    return EXIT.ok;
  }
  if (sub === 'sql') {
    const text = [
      `-- sqlite3 ${dbPathFor(root)}`,
      ...VIEW_NAMES.map((v) => VIEWS[v].trim()), '',
      ...REPORTS.map((r) => reportForShell(r) + '\n'),
    ].join('\n');
    emit(!!values.json, { views: VIEWS, reports: REPORTS }, () => text);
    return EXIT.ok;
  }
  if (sub !== 'report' && sub !== 'avoid') throw unknownSubcommand(sub, ['list', 'report', 'sql', 'avoid'], USAGE);
  if (values.name !== undefined) knownReport(values.name); // a typo fails before the ingest
  const params = reportParams(values);
  const { ix, warning } = openForCli(root, !values['no-ingest']);
  if (warning) process.stderr.write(`pico failures: ${warning}\n`);
  try {
    if (sub === 'avoid') {
      const fm = ix.failures();
      const avoid = fm.avoidance(values.capability !== undefined ? { capability: values.capability } : {});
      emit(!!values.json, avoid, () => fm.promptBlock(avoid) || '(no known failures)');
      return EXIT.ok;
    }
    const names = values.name !== undefined ? [values.name] : REPORTS.map((r) => r.name);
    printReports(names.map((n) => runReport(ix.db, n, params)), !!values.json);
    return EXIT.ok;
  } finally {
    ix.close();
  }
}

function printReports(results: ReportResult[], json: boolean): void {
  emit(json, results, () => results.map((r) => `== ${r.name}: ${r.description}\n${formatTable(r.columns, r.rows)}`).join('\n\n'));
}

/** `report --fleet`: the reports per box from a hub's index (the hub ingests; this only reads). */
async function fleetReport(root: string, name: string | undefined, params: Record<string, ParamValue>, json: boolean): Promise<number> {
  if (name !== undefined) knownReport(name);
  const { openHubRoot, openHubIndex, indexedBoxes, fleetReports } = await import('../fleet/hub-views.js');
  const ix = openHubIndex(openHubRoot(root));
  try {
    printReports(fleetReports(ix, indexedBoxes(ix), name !== undefined ? [name] : REPORTS.map((r) => r.name), params), json);
    return EXIT.ok;
  } finally {
    ix.close();
  }
}
