// Issue 15 item 8: "pico report writes one self-contained HTML page with at least: jobs per day by
// outcome, step duration p50/p90 per provider, pass rate per provider and schema over time, the top
// failure signatures with their remedies, capability gaps, and which ladder fixes each provider
// needed most." These check the numbers and the page from real sessions; chromium.test.ts opens it.
import { appendFileSync, cpSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { newSessionId } from '../../src/ledger/session-id.js';
import { renderCharts } from '../../src/report/charts.js';
import { collectReport, type ReportData } from '../../src/report/collect.js';
import { esc, renderPage } from '../../src/report/page.js';
import { isSessionFolderName } from '../../src/memory/paths.js';
import { makeRoot } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { buildReportRoot, type ReportRoot } from './fixture.js';

let r: ReportRoot;
let data: ReportData;
beforeAll(async () => {
  r = await buildReportRoot();
  data = collectReport({ root: r.root, days: 30 });
}, 120_000);

const HOSTILE = '<script>alert("x")</script>';

/** A session written by the real ledger writer whose free-text fields all hold markup. */
function hostileSession(root: string): string {
  const id = newSessionId();
  const { ledger } = Ledger.open(join(root, 'sessions', id), id);
  const spent = { wall_ms: 1, model_calls: 0, cpu_ms: 1 };
  const who = `<img src=x onerror=alert(1)>`;
  ledger.append({ type: 'composition', hash: 'sha256:0', machine: 'sha256:0', config: 'composition.json' });
  ledger.append({ type: 'user_input', text: HOSTILE, trust: 'T0', budget_class: 'interactive', job: {} });
  ledger.append({ type: 'step_started', step: 's1', tool: null, trust: 'T1', capability: 'extract@1', schema: `s${HOSTILE}`, spent });
  ledger.append({ type: 'provider_called', step: 's1', provider: who, capability: 'extract@1', schema: `s${HOSTILE}`, duration_ms: 12, outcome: 'ok', attempt: 1, input_sha256: 'x', input_bytes: 1, output_blob: null, model_call: false });
  ledger.append({ type: 'validation_failed', step: 's1', provider: who, capability: 'extract@1', schema: `s${HOSTILE}`, error: `bad ${HOSTILE}`, attempt: 1, fixes: [`renamed ${HOSTILE} -> y`] });
  ledger.append({ type: 'capability_gap', step: 's2', provider: null, capability: `<svg onload=alert(1)>`, schema: HOSTILE, error: HOSTILE, attempt: 0, rejected: [{ provider: who, filter: HOSTILE, reason: HOSTILE }] });
  ledger.append({ type: 'answer_sent', outcome: 'declined', text: HOSTILE, missing: [HOSTILE], trust: 'T1', spent });
  ledger.commit();
  ledger.close();
  return id;
}

describe('report data', () => {
  it('counts jobs per day by outcome from the sessions of each day', () => {
    const byDay = new Map<string, Record<string, number>>();
    for (const row of data.jobs_per_day) byDay.set(row.day, { ...byDay.get(row.day), [row.outcome]: row.jobs });
    const days = [...byDay.keys()].sort();
    expect(days.length).toBe(3);
    expect(byDay.get(days[0]!)).toEqual({ answered: 2 });
    expect(byDay.get(days[1]!)).toEqual({ answered: 1, partial: 1 });
    expect(Object.values(byDay.get(days[2]!)!).reduce((a, b) => a + b, 0)).toBe(2);
    expect(data.counts.sessions).toBe(6);
    expect(data.range.first! < data.range.last!).toBe(true);
  });

  it('gives p50 and p90 per provider from every call, p50 never above p90', () => {
    const bad = data.durations.find((d) => d.provider === 'bad-extractor')!;
    expect(bad.calls).toBe(2);
    const disk = data.durations.find((d) => d.provider === 'disk-usage-parser')!;
    expect(disk.calls).toBe(6);
    for (const d of data.durations) expect(d.p50_ms).toBeLessThanOrEqual(d.p90_ms);
  });

  it('a provider that failed the ladder has its failures in its pass rate; the one it escalated to passes', () => {
    const today = data.pass_rate.filter((p) => p.schema === 'log_summary@2');
    expect(today.find((p) => p.provider === 'bad-extractor')).toMatchObject({ ok: 0, failed: 2, pass_rate: 0 });
    expect(today.find((p) => p.provider === 'good-extractor')).toMatchObject({ ok: 1, failed: 0, pass_rate: 1 });
    expect(new Set(data.pass_rate.map((p) => p.period)).size).toBe(3);
  });

  it('failure signatures carry the remedy that followed them, as failure memory resolves it', () => {
    const schema = data.signatures.find((s) => s.kind === 'schema')!;
    expect(schema).toMatchObject({ seen: 2, sessions: 1, remedy: 'escalated' });
    expect(data.signatures.find((s) => s.kind === 'tool_error')?.signature).toContain('<script>');
    expect(data.signatures_total).toBeGreaterThanOrEqual(3);
  });

  it('a capability gap is listed with the filters that removed each candidate', () => {
    expect(data.capability_gaps).toHaveLength(1);
    expect(data.capability_gaps[0]).toMatchObject({ capability: 'extract@1', schema: 'log_summary@2', seen: 1, sessions: 1 });
    expect(data.capability_gaps[0]!.filters.implements).toBeGreaterThan(0);
  });

  it('ladder fixes are counted per provider, on facts and on failed attempts apart', () => {
    const fenced = data.fixes.filter((f) => f.provider === 'fenced');
    expect(fenced.map((f) => f.kind).sort()).toEqual(['extracted', 'removed', 'renamed']);
    expect(fenced.every((f) => f.on_facts === 1 && f.on_failed === 0)).toBe(true);
    const bad = data.fixes.filter((f) => f.provider === 'bad-extractor');
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.every((f) => f.on_facts === 0 && f.on_failed === 2)).toBe(true);
  });

  it('--days leaves out sessions that started before the window, and ledgers last written before it unopened', () => {
    const two = collectReport({ root: r.root, days: 2 });
    expect(two.counts.sessions).toBe(4);
    expect(two.ledgers.outside_window).toBe(2);
    const root = tempDir('pico-report-window-');
    cpSync(join(r.root, 'sessions'), join(root, 'sessions'), { recursive: true });
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const id of readdirSync(join(root, 'sessions')).filter(isSessionFolderName)) utimesSync(join(root, 'sessions', id, 'events.jsonl'), old, old);
    expect(collectReport({ root, days: 30 })).toMatchObject({ counts: { sessions: 0 }, ledgers: { outside_window: 6 } });
  });
});

describe('jobs the ledger does not finish', () => {
  it('a job cancelled in the queue (a result.json, no ledger) counts as cancelled on its day; a ledger without an answer takes its result\'s outcome', () => {
    const root = tempDir('pico-report-cancel-');
    cpSync(join(r.root, 'sessions'), join(root, 'sessions'), { recursive: true });
    const queued = join(root, 'sessions', newSessionId());
    mkdirSync(queued);
    writeFileSync(join(queued, 'job.json'), '{}');
    writeFileSync(join(queued, 'result.json'), JSON.stringify({ result: 'result@1', outcome: 'cancelled', started_at: null, ended_at: new Date().toISOString() }));
    // a running job stopped at a step boundary: its ledger has no answer_sent, its result says cancelled
    const running = join(root, 'sessions', r.escalated);
    const lines = readFileSync(join(running, 'events.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(join(running, 'events.jsonl'), lines.filter((l) => !l.includes('"answer_sent"')).join('\n') + '\n');
    writeFileSync(join(running, 'result.json'), JSON.stringify({ result: 'result@1', outcome: 'cancelled', ended_at: new Date().toISOString() }));
    const d = collectReport({ root, days: 30 });
    expect(d.counts.sessions).toBe(7);
    expect(d.counts.by_outcome.cancelled).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    expect(d.jobs_per_day.find((j) => j.day === today && j.outcome === 'cancelled')?.jobs).toBe(2);
    // a folder with neither (claimed, not started) is counted apart, not as a job
    mkdirSync(join(root, 'sessions', newSessionId()));
    expect(collectReport({ root, days: 30 })).toMatchObject({ counts: { sessions: 7 }, ledgers: { no_ledger: 1 } });
  });
});

describe('damaged ledgers', () => {
  it('a ledger damaged before its end is skipped and named; a torn last line is read up to the tear', () => {
    const root = tempDir('pico-report-damage-');
    cpSync(join(r.root, 'sessions'), join(root, 'sessions'), { recursive: true });
    const damaged = join(root, 'sessions', r.fenced, 'events.jsonl');
    const lines = readFileSync(damaged, 'utf8').split('\n');
    lines[3] = '{"this is": not json';
    writeFileSync(damaged, lines.join('\n'));
    appendFileSync(join(root, 'sessions', r.gap, 'events.jsonl'), '{"seq":99,"t":"2026-');
    const d = collectReport({ root, days: 30 });
    expect(d.ledgers).toMatchObject({ read: 5, skipped: 1, torn_tail: 1 });
    expect(d.ledgers.skipped_list[0]).toMatchObject({ session: r.fenced });
    expect(d.ledgers.skipped_list[0]!.reason).toMatch(/line 4/);
    expect(d.counts.sessions).toBe(5);
    expect(d.fixes.some((f) => f.provider === 'fenced')).toBe(false);
    expect(d.capability_gaps).toHaveLength(1);
  });

  it('a root with no sessions makes a page that says there is nothing, not empty charts', async () => {
    const root = makeRoot('pico-report-empty-');
    const d = collectReport({ root, days: 30 });
    expect(d.counts.sessions).toBe(0);
    const html = renderPage(d, await renderCharts(d));
    expect(html).not.toContain('<svg');
    expect(html.match(/Nothing recorded in this window/g)!.length).toBeGreaterThanOrEqual(6);
  });
});

describe('untrusted text', () => {
  it('markup in an error, a provider id, a schema or a fix is shown as text, in the tables and in the charts', async () => {
    const root = tempDir('pico-report-hostile-');
    cpSync(join(r.root, 'sessions'), join(root, 'sessions'), { recursive: true });
    hostileSession(root);
    const d = collectReport({ root, days: 30 });
    expect(d.capability_gaps.map((g) => g.capability)).toContain('<svg onload=alert(1)>');
    const charts = await renderCharts(d);
    const html = renderPage(d, charts);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/<svg onload/i);
    expect(html).toContain(esc('<img src=x onerror=alert(1)>'));
    expect(html).toContain(`${esc("<script>")}document.title=`);
    // the drawn axis labels hold the provider id too, escaped by the SVG writer
    expect(charts.find((c) => c.id === 'durations')!.svg).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('esc leaves no character that could open a tag or end an attribute', () => {
    expect(esc(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
