/**
 * The report's charts: one vega-lite spec per question, compiled to vega and
 * rendered to an SVG string in Node (renderer 'none'), so the page carries
 * finished drawings and needs no script, font or network to show them.
 *
 * Every spec holds its data inline; the view gets a loader that refuses every
 * URI, so nothing a ledger holds can make rendering fetch anything. Text in
 * the data (provider ids, schemas, signatures) is escaped by vega's SVG
 * writer; the page still treats the SVG as vega's output and removes the
 * namespace URLs it does not need inline. A chart with no data is null: the
 * page says "nothing recorded" instead of drawing empty axes. This module does
 * not decide what the data is (collect.ts) or lay out the page (page.ts).
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { shortProvider, type OnBox, type ReportData } from './collect.js';

export interface Chart {
  id: string;
  title: string;
  /** one sentence for people who cannot see the chart (the figure's aria description) */
  description: string;
  svg: string | null;
}

const WIDTH = 480;
const MAX_LABELLED_PERIODS = 10;
const OUTCOME_COLORS: Record<string, string> = {
  answered: '#2e7d32', partial: '#f9a825', declined: '#c62828', cancelled: '#757575', unfinished: '#1565c0',
};
const REMEDY_COLORS: Record<string, string> = {
  retry_same: '#2e7d32', escalated: '#1565c0', replanned: '#6a1b9a', declined: '#c62828', abandoned: '#ef6c00', open: '#757575',
};
const BASE = { width: WIDTH, config: { font: 'sans-serif', view: { stroke: null }, axis: { labelLimit: 300 }, legend: { labelLimit: 400 } } } as const;

/** A loader that refuses every URI: the specs hold their data inline, and a chart never reaches out. */
const NO_NETWORK: vega.Loader = {
  load: async (uri) => { throw new Error(`the report renders offline; refused to load ${uri}`); },
  sanitize: async (uri) => { throw new Error(`the report renders offline; refused ${uri}`); },
  http: async (uri) => { throw new Error(`the report renders offline; refused ${uri}`); },
  file: async (name) => { throw new Error(`the report renders offline; refused ${name}`); },
};

/** A fixed color per known value, the rest from the default scheme (so answered is always green). */
function colorScale(known: Record<string, string>, values: readonly string[]): { domain: string[]; range: string[] } {
  const extra = ['#00838f', '#8d6e63', '#ad1457', '#558b2f', '#283593', '#f57f17'];
  const domain = [...new Set(values)];
  return { domain, range: domain.map((v, i) => known[v] ?? extra[i % extra.length]!) };
}

/** Render one vega-lite spec to SVG text. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none', loader: NO_NETWORK, logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const label = (provider: string, schema: string): string => `${shortProvider(provider)} · ${schema}`;
/** A row's name on an axis, led by its box on a fleet hub's page (rows of two boxes are two bars). */
const onBox = (r: OnBox, name: string): string => (r.box === undefined ? name : `${r.box} · ${name}`);
/** The least duration a bar reaches: a call under 0.1 ms (a parser's, even 0 ms) is drawn at it; the table holds the figure. */
const LOG_FLOOR_MS = 0.1;
/** Where the log axis, and every bar, starts: a decade below the floor, so the shortest call still draws a bar. */
const AXIS_FROM_MS = LOG_FLOOR_MS / 10;

/** The grid of a log axis from AXIS_FROM_MS up to the first decade at or above `max`: each line ten times the last, as the caption says. */
export function decades(max: number): number[] {
  const out = [AXIS_FROM_MS];
  while (out[out.length - 1]! < max) out.push(Number((out[out.length - 1]! * 10).toPrecision(1)));
  return out.length > 1 ? out : [AXIS_FROM_MS, LOG_FLOOR_MS];
}

/** The vega-lite specs of the report, by chart id (null: no data). */
export function chartSpecs(d: ReportData): { id: string; title: string; description: string; spec: TopLevelSpec | null }[] {
  const outcomes = colorScale(OUTCOME_COLORS, d.jobs_per_day.map((r) => r.outcome));
  const remedies = colorScale(REMEDY_COLORS, d.signatures.map((r) => r.remedy));
  const durations = d.durations.flatMap((r) => [{ provider: onBox(r, shortProvider(r.provider)), stat: 'p50', ms: Math.max(LOG_FLOOR_MS, r.p50_ms) }, { provider: onBox(r, shortProvider(r.provider)), stat: 'p90', ms: Math.max(LOG_FLOOR_MS, r.p90_ms) }]);
  const passes = d.pass_rate.map((r) => ({ ...r, series: onBox(r, label(r.provider, r.schema)), label: `${Math.round(r.pass_rate * 100)}% of ${r.ok + r.failed}` }));
  const sigs = d.signatures.map((r, i) => ({ ...r, name: `${i + 1}. ${onBox(r, `${r.kind}: ${r.signature.slice(0, 48)}`)}` }));
  const gaps = d.capability_gaps.map((r) => ({ ...r, name: onBox(r, `${r.capability} → ${r.schema}`) }));
  const bar = (n: number): number => Math.max(60, n * 22);
  const grid = decades(Math.max(LOG_FLOOR_MS, ...durations.map((r) => r.ms)));
  return [
    {
      id: 'jobs', title: 'Jobs per day by outcome',
      description: `Stacked bars: jobs started each day (UTC), split by outcome; ${d.counts.sessions} jobs over ${new Set(d.jobs_per_day.map((r) => r.day)).size} days.`,
      spec: d.jobs_per_day.length === 0 ? null : {
        ...BASE, height: 220, description: 'Jobs started each day, stacked by outcome',
        data: { values: d.jobs_per_day }, mark: { type: 'bar' },
        encoding: {
          x: { field: 'day', type: 'ordinal', title: 'day (UTC)', axis: { labelAngle: -45 } },
          y: { field: 'jobs', type: 'quantitative', aggregate: 'sum', title: 'jobs', stack: 'zero', axis: { tickMinStep: 1, format: 'd' } },
          color: { field: 'outcome', type: 'nominal', scale: outcomes, title: 'outcome' },
        },
      },
    },
    {
      id: 'durations', title: 'Provider call duration, p50 and p90',
      description: `Grouped bars on a log scale (each grid line ten times the last, so a slow model does not flatten the rest; a call under ${LOG_FLOOR_MS} ms is drawn at ${LOG_FLOOR_MS} ms): the median (p50) and 90th percentile (p90) duration of every call to each of ${d.durations.length} providers, failed calls included.`,
      spec: durations.length === 0 ? null : {
        ...BASE, height: bar(d.durations.length * 2), description: 'p50 and p90 call duration per provider',
        data: { values: durations }, mark: { type: 'bar' },
        encoding: {
          y: { field: 'provider', type: 'nominal', title: null, sort: d.durations.map((r) => onBox(r, shortProvider(r.provider))) },
          yOffset: { field: 'stat', type: 'nominal' },
          // the grid is the decades, named on the axis, so it is what the caption says: each line ten times the last
          x: { field: 'ms', type: 'quantitative', title: 'milliseconds (log scale)', scale: { type: 'log', domain: [AXIS_FROM_MS, grid.at(-1)!] }, axis: { values: grid, format: '~g', grid: true } },
          // a log scale has no zero to grow a bar from: each bar starts where the axis does, a decade below the floor
          x2: { datum: AXIS_FROM_MS },
          color: { field: 'stat', type: 'nominal', scale: { domain: ['p50', 'p90'], range: ['#64b5f6', '#0d47a1'] }, title: null },
        },
      },
    },
    {
      id: 'passrate', title: `Pass rate per provider and schema, by ${d.period}`,
      description: `Heat map: one row per provider and schema, one column per ${d.period}; each cell is the share of that provider's outputs that passed the ladder (facts against grammar, schema, range, cross-check and critic failures), red for none, yellow for half, green for all, with the count of outputs.`,
      spec: passes.length === 0 ? null : {
        ...BASE, height: bar(new Set(passes.map((r) => r.series)).size), description: 'Pass rate per provider and schema over time',
        data: { values: passes },
        encoding: {
          x: { field: 'period', type: 'ordinal', title: d.period === 'day' ? 'day (UTC)' : 'week (its Monday)', axis: { labelAngle: -45 } },
          y: { field: 'series', type: 'nominal', title: null },
        },
        layer: [
          { mark: { type: 'rect', stroke: 'white', strokeWidth: 2 }, encoding: { color: { field: 'pass_rate', type: 'quantitative', title: 'pass rate', scale: { domain: [0, 0.5, 1], range: ['#ef9a9a', '#fff59d', '#a5d6a7'] }, legend: { format: '.0%' } } } },
          // the numbers fit in the cells up to some ten columns; beyond, the table beside holds them
          ...(new Set(passes.map((r) => r.period)).size <= MAX_LABELLED_PERIODS
            ? [{ mark: { type: 'text' as const, fontSize: 11 }, encoding: { text: { field: 'label', type: 'nominal' as const }, color: { value: '#111' } } }]
            : []),
        ],
      },
    },
    {
      id: 'signatures', title: 'Top failure signatures',
      description: `Bars: the ${sigs.length} most frequent failure shapes, coloured by what most often followed them (the remedy).`,
      spec: sigs.length === 0 ? null : {
        ...BASE, height: bar(sigs.length), description: 'Failure shapes by how often they were seen',
        data: { values: sigs }, mark: { type: 'bar' },
        encoding: {
          y: { field: 'name', type: 'nominal', title: null, sort: sigs.map((r) => r.name), axis: { labelLimit: 300 } },
          x: { field: 'seen', type: 'quantitative', title: 'times seen', axis: { tickMinStep: 1, format: 'd' } },
          color: { field: 'remedy', type: 'nominal', scale: remedies, title: 'most common remedy' },
        },
      },
    },
    {
      id: 'gaps', title: 'Capability gaps',
      description: `Bars: capabilities and schemas that no installed provider could serve, by how often a step asked for them (${d.counts.capability_gaps} times in all).`,
      spec: gaps.length === 0 ? null : {
        ...BASE, height: bar(gaps.length), description: 'Capabilities no provider could serve',
        data: { values: gaps }, mark: { type: 'bar', color: '#c62828' },
        encoding: {
          y: { field: 'name', type: 'nominal', title: null, sort: gaps.map((r) => r.name) },
          x: { field: 'seen', type: 'quantitative', title: 'times asked for', axis: { tickMinStep: 1, format: 'd' } },
        },
      },
    },
    {
      id: 'fixes', title: 'Ladder fixes each provider needed',
      description: 'Stacked bars: for each provider, how many repairs of each kind the validation ladder made to its outputs (on facts and on failed attempts).',
      spec: d.fixes.length === 0 ? null : {
        ...BASE, height: bar(new Set(d.fixes.map((r) => onBox(r, r.provider))).size), description: 'Repairs per provider by kind',
        data: { values: d.fixes.map((r) => ({ ...r, provider: onBox(r, shortProvider(r.provider)), n: r.on_facts + r.on_failed })) }, mark: { type: 'bar' },
        encoding: {
          y: { field: 'provider', type: 'nominal', title: null },
          x: { field: 'n', type: 'quantitative', aggregate: 'sum', title: 'fixes made', axis: { tickMinStep: 1, format: 'd' } },
          color: { field: 'kind', type: 'nominal', title: 'kind of fix' },
        },
      },
    },
  ];
}

/** Render every chart of the report (one after another: the box has few cores and the views are small). */
export async function renderCharts(d: ReportData): Promise<Chart[]> {
  const out: Chart[] = [];
  for (const c of chartSpecs(d)) out.push({ id: c.id, title: c.title, description: c.description, svg: c.spec === null ? null : await renderSvg(c.spec) });
  return out;
}
