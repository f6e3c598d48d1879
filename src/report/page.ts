/**
 * The report page: one self-contained HTML file — inline CSS, inline SVG, no
 * script, no font, no image, no URL — that any browser opens from disk.
 *
 * Every string that came from a ledger (provider ids, schemas, signatures,
 * reasons, the root path) is untrusted and goes through `esc` before it
 * becomes markup; the charts are vega's SVG output, whose text vega escapes.
 * A Content-Security-Policy forbids every fetch and every script, so even a
 * mistake here could not reach the network. Each chart stands beside a table
 * of the same numbers, for people who cannot see it. This module lays out;
 * it computes nothing (collect.ts) and draws nothing (charts.ts).
 */
import type { Chart } from './charts.js';
import { shortProvider, TOP_DECLINED, type OnBox, type ReportData } from './collect.js';

/** Escape text for HTML content and attribute values. */
export function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1240px;padding:1.2em 1.6em;color:#1b1b1b;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.meta{color:#444}.meta code{background:#f3f3f3;padding:0 .3em;border-radius:3px}
.pair{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start}
figure{margin:0;flex:0 0 auto}.desc{color:#555;font-size:.85em;max-width:600px;margin:.2em 0}
.tablewrap{flex:1 1 420px;min-width:420px;max-height:460px;overflow:auto}
table{border-collapse:collapse;font-size:.85em}caption{text-align:left;font-weight:600;padding:.2em 0}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}th{background:#f6f6f6}
td.n{text-align:right;font-variant-numeric:tabular-nums}.sig{font-family:ui-monospace,monospace;word-break:break-word;max-width:420px}
.none{color:#666;font-style:italic}.warn{color:#8a4b00}
dl.counts{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:.4em 1em;margin:.8em 0}
dl.counts div{background:#f6f8fa;border-radius:4px;padding:.3em .6em}dl.counts dt{font-size:.8em;color:#555}dl.counts dd{margin:0;font-size:1.3em;font-weight:600}
`;

/** A cell whose text is short and whose whole value shows on hover (a provider's pinned identity). */
interface Hover { text: string; title: string }
type Cell = string | number | Hover;

/** A provider cell: the short name, the whole identity on hover when it was shortened. */
const provider = (id: string): Cell => (shortProvider(id) === id ? id : { text: shortProvider(id), title: id });

/** A table whose header and cells are escaped; numeric cells align right. */
function table(caption: string, head: readonly string[], rows: readonly (readonly Cell[])[], classes: readonly string[] = []): string {
  if (rows.length === 0) return `<p class="none">Nothing recorded in this window.</p>`;
  const th = head.map((h) => `<th scope="col">${esc(h)}</th>`).join('');
  const td = (c: Cell, i: number): string => typeof c === 'object'
    ? `<td title="${esc(c.title)}">${esc(c.text)}</td>`
    : `<td${typeof c === 'number' ? ' class="n"' : classes[i] ? ` class="${classes[i]}"` : ''}>${esc(c)}</td>`;
  const tr = rows.map((r) => `<tr>${r.map(td).join('')}</tr>`).join('\n');
  return `<table><caption>${esc(caption)}</caption><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/**
 * The SVG as it goes inline: HTML needs no namespace declarations, so their URLs go; and the
 * ids vega gives gradients and clip paths (gradient_0, …) are made the chart's own, since every
 * chart's SVG starts counting from 0 and one page holds them all.
 */
function inlineSvg(svg: string, chartId: string, labelledBy: string): string {
  return svg.replace(/\s+xmlns(?::xlink)?="[^"]*"/g, '')
    .replace(/\bid="([^"]*)"/g, (_m, id: string) => `id="${chartId}-${id}"`)
    .replace(/url\(#([^)]*)\)/g, (_m, id: string) => `url(#${chartId}-${id})`)
    .replace(/^<svg\b/, `<svg role="img" aria-labelledby="${labelledBy}"`);
}

function section(chart: Chart | undefined, tableHtml: string, note = ''): string {
  if (!chart) return '';
  const drawing = chart.svg === null
    ? `<p class="none">Nothing recorded in this window, so no chart.</p>`
    : `<div class="chart" data-chart="${esc(chart.id)}">${inlineSvg(chart.svg, chart.id, `h-${chart.id} desc-${chart.id}`)}</div>`;
  return `<section aria-labelledby="h-${chart.id}"><h2 id="h-${chart.id}">${esc(chart.title)}</h2>${note}
<div class="pair"><figure>${drawing}<figcaption class="desc" id="desc-${chart.id}">${esc(chart.description)}</figcaption></figure>
<div class="tablewrap">${tableHtml}</div></div></section>`;
}

const ms = (n: number): number => Math.round(n);
const when = (t: string | null): string => (t === null ? '—' : t.slice(0, 16).replace('T', ' '));
const pct = (n: number): string => `${(n * 100).toFixed(0)}%`;
const pairs = (o: Record<string, number>): string => Object.entries(o).map(([k, v]) => `${k}: ${v}`).join(', ');

function header(d: ReportData): string {
  const c = d.counts;
  const l = d.ledgers;
  const box = (k: string, v: Cell): string => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`;
  const trouble = [
    l.skipped > 0 ? `${l.skipped} ledger(s) damaged before their end were skipped` : '',
    l.torn_tail > 0 ? `${l.torn_tail} ledger(s) end in a torn line (read up to it)` : '',
    l.with_set_aside > 0 ? `${l.with_set_aside} session(s) hold bytes set aside earlier (events.jsonl.torn-* / .damaged-*)` : '',
  ].filter(Boolean);
  const skipped = l.skipped_list.length === 0 ? '' : table('Skipped ledgers', ['session', 'why'], l.skipped_list.map((s) => [s.session, s.reason]));
  return `<header><h1>picoharness report${d.boxes ? `: a fleet of ${d.boxes.length} boxes` : ''}</h1>
<p class="meta">${d.boxes ? 'Hub root' : 'Root'} <code>${esc(d.root)}</code> · sessions started since ${esc(d.since.slice(0, 16).replace('T', ' '))} UTC (last ${esc(d.days)} days) · generated ${esc(d.generated_at.slice(0, 19).replace('T', ' '))} UTC<br>
Events from ${esc(when(d.range.first))} to ${esc(when(d.range.last))} UTC</p>
<dl class="counts">${box('jobs', c.sessions)}${box('declined goals', d.declined.length)}${Object.entries(c.by_outcome).map(([k, v]) => box(k, v)).join('')}${box('facts', c.facts)}${box('failures', c.failures)}${box('provider calls', c.provider_calls)}${box('capability gaps', c.capability_gaps)}${box('ledgers skipped', l.skipped)}${box('outside the window', l.outside_window)}</dl>
${trouble.map((t) => `<p class="warn">${esc(t)}.</p>`).join('\n')}${skipped}</header>`;
}

/** A fleet hub's page (its rows name their box): the boxes, side by side. */
function boxesSection(d: ReportData): string {
  if (!d.boxes) return '';
  const outcomes = Object.keys(d.counts.by_outcome);
  return `<section aria-labelledby="h-boxes"><h2 id="h-boxes">Boxes</h2>
<p class="desc">One row per box whose ledgers the hub holds; every table below names the box each row came from.</p>
<div class="tablewrap">${table(`${d.boxes.length} boxes`, ['box', 'jobs', ...outcomes, 'events', 'failures', 'capability gaps', 'ledgers skipped', 'last event (UTC)'],
    d.boxes.map((b) => [b.box, b.jobs, ...outcomes.map((o) => b.by_outcome[o] ?? 0), b.events, b.failures, b.capability_gaps, b.ledgers_skipped, when(b.last_event)]))}</div></section>`;
}

/** The whole page. */
export function renderPage(d: ReportData, charts: readonly Chart[]): string {
  const ch = (id: string): Chart | undefined => charts.find((c) => c.id === id);
  // a fleet hub's rows carry their box: it becomes the first column (after the rank)
  const H: string[] = d.boxes ? ['box'] : [];
  const B = (r: OnBox): Cell[] => (d.boxes ? [r.box ?? ''] : []);
  const outcomes = Object.keys(d.counts.by_outcome);
  const days = [...new Set(d.jobs_per_day.map((r) => r.day))];
  const jobsRows = days.map((day) => {
    const row = outcomes.map((o) => d.jobs_per_day.find((r) => r.day === day && r.outcome === o)?.jobs ?? 0);
    return [day, ...row, row.reduce((a, b) => a + b, 0)];
  });
  const declined = d.declined.slice(0, TOP_DECLINED);
  // what needs a person comes first: declined goals, failures, gaps; then the running picture
  const body = [
    header(d),
    boxesSection(d),
    `<section aria-labelledby="h-declined"><h2 id="h-declined">Declined goals</h2>
<p class="desc">One row per job that ended declined, newest first: the goal as it was asked, why it was declined, and the kinds of failure on the way (these are not counted again among the signatures below).</p>
<div class="tablewrap">${table(`${declined.length} of ${d.declined.length} declined goals`, ['started (UTC)', ...H, 'goal', 'why', 'failures on the way', 'session'],
      declined.map((r) => [r.t.slice(0, 16).replace('T', ' '), ...B(r), r.goal, r.reason, r.kinds.join(', ') || '—', r.session]), ['', ...H.map(() => ''), 'sig', 'sig'])}</div></section>`,
    section(ch('signatures'), table(`Top ${d.signatures.length} of ${d.signatures_total} failure signatures`, ['#', ...H, 'kind', 'signature', 'seen', 'sessions', 'remedies', 'last seen'],
      d.signatures.map((r, i) => [i + 1, ...B(r), r.kind, r.signature, r.seen, r.sessions, pairs(r.remedies), r.last_seen.slice(0, 16).replace('T', ' ')]), ['', ...H.map(() => ''), '', 'sig']),
    `<p class="desc">A remedy is what followed the failure: <b>retry_same</b> the same provider then passed, <b>escalated</b> another provider did, <b>replanned</b> a new plan was made, <b>declined</b> the job said it could not, <b>abandoned</b> the job ended without it, <b>open</b> the job has not ended. Signatures can quote outside (T1) data: read them as data. More: <code>pico failures report</code>.</p>`),
    section(ch('gaps'), table('Capability gaps', [...H, 'capability', 'schema', 'times', 'sessions', 'declined', 'candidates ruled out, by filter', 'last seen'],
      d.capability_gaps.map((r) => [...B(r), r.capability, r.schema, r.seen, r.sessions, r.declined, pairs(r.filters), r.last_seen.slice(0, 16).replace('T', ' ')]))),
    section(ch('jobs'), table('Jobs per day (UTC) by outcome', ['day', ...outcomes, 'total'], jobsRows)),
    section(ch('passrate'), table(`Pass rate per provider and schema, by ${d.period}`, [d.period, ...H, 'provider', 'schema', 'passed', 'failed', 'pass rate'],
      d.pass_rate.map((r) => [r.period, ...B(r), provider(r.provider), r.schema, r.ok, r.failed, pct(r.pass_rate)]))),
    section(ch('durations'), table('Call duration per provider (ms)', [...H, 'provider', 'calls', 'failed calls', 'p50', 'p90', 'max'],
      d.durations.map((r) => [...B(r), provider(r.provider), r.calls, r.failed_calls, ms(r.p50_ms), ms(r.p90_ms), ms(r.max_ms)]))),
    section(ch('fixes'), table('Ladder fixes per provider (most made first)', [...H, 'provider', 'kind', 'fix', 'on facts', 'on failed attempts'],
      d.fixes.slice(0, 40).map((r) => [...B(r), provider(r.provider), r.kind, r.fix, r.on_facts, r.on_failed]), [...H.map(() => ''), '', '', 'sig'])),
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>picoharness report: ${esc(d.root)}</title>
<style>${CSS}</style></head>
<body>
${body}
</body></html>
`;
}
