// Issue 21 item 8, the report: "Use a log scale, short names with the digest on hover, one row per
// declined goal with its goal text, and put what needs attention first." Sessions are written by
// the real ledger writer: a goal declined after three kinds of failure, and an answered job whose
// calls span five orders of magnitude (a code parser under a millisecond, a model taking a minute).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { newSessionId } from '../../src/ledger/session-id.js';
import { chartSpecs, renderCharts } from '../../src/report/charts.js';
import { collectReport, shortProvider, type ReportData } from '../../src/report/collect.js';
import { renderPage } from '../../src/report/page.js';
import { tempDir } from '../helpers/temp.js';

const GOAL = 'How much space does the folder /var/log take?';
const MODEL = `tiny@sha256:${'3fa9c01b'.repeat(8)}`;
const spent = { wall_ms: 1, model_calls: 0, cpu_ms: 1 };

function session(root: string, write: (append: (e: Record<string, unknown>) => void) => void): string {
  const id = newSessionId();
  const { ledger } = Ledger.open(join(root, 'sessions', id), id);
  ledger.append({ type: 'composition', hash: 'sha256:0', machine: 'sha256:0', config: 'composition.json' });
  write((e) => ledger.append(e as Parameters<typeof ledger.append>[0]));
  ledger.commit();
  ledger.close();
  return id;
}

let root: string;
let declinedId: string;
let data: ReportData;
beforeAll(() => {
  root = tempDir('pico-report-attention-');
  declinedId = session(root, (a) => {
    a({ type: 'user_input', text: GOAL, trust: 'T0', budget_class: 'interactive', job: {} });
    const f = { step: 'size', provider: null, capability: 'extract@1', schema: 'dir_size@1', attempt: 0 };
    a({ type: 'capability_gap', ...f, error: 'no provider for extract@1 -> dir_size@1', rejected: [] });
    a({ type: 'range_failed', ...f, provider: 'du-parser', attempt: 1, error: 'kilobytes: -1 is below 0' });
    a({ type: 'step_failed', ...f, error: 'the step failed' });
    a({ type: 'declined', reason: 'nothing here can measure a folder\'s size', missing: ['size'] });
    a({ type: 'answer_sent', outcome: 'declined', text: 'I could not check it.', missing: ['size'], trust: 'T0', spent });
  });
  session(root, (a) => {
    a({ type: 'user_input', text: 'why is the disk full?', trust: 'T0', budget_class: 'interactive', job: {} });
    const call = { step: 'disk', capability: 'extract@1', schema: 'disk_usage@1', outcome: 'ok', attempt: 1, input_sha256: 'x', input_bytes: 1, output_blob: null };
    a({ type: 'provider_called', ...call, provider: 'disk-usage-parser', duration_ms: 0.4, model_call: false });
    a({ type: 'provider_called', ...call, provider: MODEL, duration_ms: 61_000, model_call: true });
    a({ type: 'answer_sent', outcome: 'answered', text: 'ok', missing: [], trust: 'T0', spent });
  });
  data = collectReport({ root, days: 30 });
});

describe('the report puts what needs a person first', () => {
  it('a declined goal is one row with its goal text, why, and the failure kinds on the way, not three signatures', () => {
    // the step_failed that closes the step is the record of its failures, not a third one (issue 37 item 9)
    expect(data.declined).toEqual([{ session: declinedId, t: expect.any(String), goal: GOAL, reason: 'nothing here can measure a folder\'s size', kinds: ['capability_gap', 'range'] }]);
    expect(data.signatures).toEqual([]);
    expect(data.counts.failures).toBe(2); // still counted as failures, once each
  });

  it('the page opens with the declined goals and the failures, before the running picture', async () => {
    const html = renderPage(data, await renderCharts(data));
    const at = (text: string) => html.indexOf(text);
    expect(at(GOAL.replace('?', ''))).toBeGreaterThan(0);
    expect(at('id="h-declined"')).toBeLessThan(at('id="h-signatures"'));
    expect(at('id="h-signatures"')).toBeLessThan(at('id="h-gaps"'));
    expect(at('id="h-gaps"')).toBeLessThan(at('id="h-jobs"'));
    expect(at('id="h-jobs"')).toBeLessThan(at('id="h-durations"'));
    expect(html).toMatch(/<dt>declined goals<\/dt><dd>1<\/dd>/);
  });

  it('durations are drawn on a log axis, so a minute-long model call does not flatten a sub-millisecond parser', async () => {
    const spec = chartSpecs(data).find((c) => c.id === 'durations')!.spec as { encoding: { x: { scale?: { type?: string } } } };
    expect(spec.encoding.x.scale?.type).toBe('log');
    const svg = (await renderCharts(data)).find((c) => c.id === 'durations')!.svg!;
    expect(svg).toContain('milliseconds (log scale)');
    // the bars (vega's rect marks, each a path "M x,y h WIDTH …"): the shortest is still a visible share of the longest
    const bars = /<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/s.exec(svg)![1]!;
    const widths = [...bars.matchAll(/d="M[-\d.]+,[-\d.]+h([-\d.]+)/g)].map((m) => Math.abs(Number(m[1])));
    expect(widths.length).toBeGreaterThanOrEqual(4);
    expect(Math.min(...widths) / Math.max(...widths)).toBeGreaterThan(0.05);
  });

  it('a p50 of 0 ms still draws a bar on the log scale, and the axis caption and the grid agree: each grid line ten times the last', async () => {
    const zero: ReportData = { ...data, durations: [...data.durations, { provider: 'instant-parser', calls: 3, failed_calls: 0, p50_ms: 0, p90_ms: 0, max_ms: 0 }] };
    const chart = (await renderCharts(zero)).find((c) => c.id === 'durations')!;
    const svg = chart.svg!;
    const bars = /<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/s.exec(svg)![1]!;
    const widths = [...bars.matchAll(/d="M[-\d.]+,[-\d.]+h([-\d.]+)/g)].map((m) => Math.abs(Number(m[1])));
    expect(widths).toHaveLength(zero.durations.length * 2);
    // every bar, the 0 ms ones too, has a visible length: at least a tenth of the longest (a decade of seven)
    expect(Math.min(...widths)).toBeGreaterThan(Math.max(...widths) / 10);
    // the grid: the axis' labels, in order, each ten times the one before, as the caption says
    const axis = /<g class="mark-group role-axis"[^>]*aria-label="X-axis[^"]*"[^>]*>(.*?)<\/g><\/g><\/g>/s.exec(svg)?.[1] ?? svg;
    const labels = [...axis.matchAll(/<text[^>]*>([\d.,]+)<\/text>/g)].map((m) => Number(m[1]!.replace(/,/g, '')));
    expect(labels.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < labels.length; i++) expect(labels[i]! / labels[i - 1]!, `grid ${labels.join(', ')}`).toBeCloseTo(10, 6);
    expect(chart.description).toContain('each grid line ten times the last');
  });

  it('a model\'s pinned identity reads short on the page and in the charts, the whole digest on hover', async () => {
    expect(shortProvider(MODEL)).toBe('tiny@3fa9c01b…');
    expect(shortProvider('disk-usage-parser')).toBe('disk-usage-parser');
    const charts = await renderCharts(data);
    const html = renderPage(data, charts);
    expect(html).toContain(`<td title="${MODEL}">tiny@3fa9c01b…</td>`);
    for (const c of charts) expect(c.svg ?? '').not.toMatch(/[0-9a-f]{64}/);
    expect(html.replace(/title="[^"]*"/g, '')).not.toMatch(/[0-9a-f]{64}/);
  });
});
