/**
 * Report bench: how long `pico report` takes over 5,000 generated sessions
 * (the memory bench's ledgers, some 54,000 events): folding the ledgers, then
 * rendering the six charts and the page. The fold reads each ledger once and
 * keeps counters, so its time should grow with the events and its memory not.
 * Everything happens in a temporary folder that is removed afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderCharts } from '../src/report/charts.js';
import { collectReport } from '../src/report/collect.js';
import { renderPage } from '../src/report/page.js';
import { generateSessions } from './memory-gen.js';
import type { BenchRow } from './types.js';

const GROUP = 'report';
const ms = (t0: bigint): number => Math.round(Number(process.hrtime.bigint() - t0) / 1e5) / 10;

/** Run the report bench; `sessions` defaults to 5,000. */
export async function benchReport(sessions = 5000): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pico-bench-report-'));
  try {
    const gen = generateSessions(join(dir, 'sessions'), { sessions });
    // the generator's clock starts on 2026-01-01, one session a minute
    const now = new Date(Date.UTC(2026, 0, 20));
    const heap0 = process.memoryUsage().heapUsed;
    let t0 = process.hrtime.bigint();
    const data = collectReport({ root: dir, days: 30, now });
    const collectMs = ms(t0);
    const heapMb = Math.round((process.memoryUsage().heapUsed - heap0) / 1048576);
    if (data.counts.events !== gen.events) throw new Error(`bench: the report read ${data.counts.events} events, generated ${gen.events}`);
    t0 = process.hrtime.bigint();
    const charts = await renderCharts(data);
    const chartsMs = ms(t0);
    t0 = process.hrtime.bigint();
    const html = renderPage(data, charts);
    const pageMs = ms(t0);
    return [
      { group: GROUP, name: 'collect', value: collectMs, unit: 'ms', note: `${gen.sessions} sessions, ${gen.events} events` },
      { group: GROUP, name: 'collect events/s', value: Math.round(gen.events / (collectMs / 1000)), unit: 'events/s' },
      { group: GROUP, name: 'collect heap growth', value: heapMb, unit: 'MiB', note: 'before GC; counters and call durations only' },
      { group: GROUP, name: 'charts (6, SVG)', value: chartsMs, unit: 'ms' },
      { group: GROUP, name: 'page', value: pageMs, unit: 'ms', note: `${Math.round(html.length / 1024)} kB` },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
