/**
 * `pico report [--root DIR] [--out FILE.html] [--days N] [--json]`: one
 * self-contained HTML page about the root's recent jobs (src/report/), or with
 * `--json` the aggregated numbers instead. Reads the ledgers only; writes
 * nothing but the page: `--out FILE`, else `report.html` in the root (never
 * the current folder, which may be the checkout). `--fleet` on a fleet hub's root reads the hub's copy
 * of every box's ledgers instead, the box as a column (src/report/fleet.ts;
 * the fleet code that finds the boxes is loaded only then).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomicSync } from '../base/durable-file.js';
import { sessionsDirFor } from '../memory/paths.js';
import { renderCharts } from '../report/charts.js';
import { collectReport } from '../report/collect.js';
import { collectFleetReport } from '../report/fleet.js';
import { renderPage } from '../report/page.js';
import { EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';

const USAGE = 'pico report [--root DIR] [--fleet] [--out FILE.html] [--days N] [--json]';
const DEFAULT_DAYS = 30;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, out: { type: 'string' }, days: { type: 'string' }, fleet: { type: 'boolean' } }, USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  const days = values.days === undefined ? DEFAULT_DAYS : Number(values.days);
  if (!Number.isInteger(days) || days < 1) throw new UsageError(`--days must be a whole number of days, 1 or more, got "${values.days}"`);
  const root = rootOf(values);
  const hub = values.fleet ? (await import('../fleet/hub-views.js')).openHubRoot(root) : null;
  if (!hub && !existsSync(sessionsDirFor(root))) {
    throw new UsageError(`${root} is not a picoharness root (it has no sessions/ folder); pass --root DIR, or run \`pico init DIR\` to make one`);
  }
  // the page belongs to the root it reports on: never the current folder, which may be the checkout
  const out = values.out === undefined ? join(root, 'report.html') : resolve(values.out);
  if (!values.json) {
    const parent = dirname(out);
    if (!existsSync(parent) || !statSync(parent).isDirectory()) throw new UsageError(`--out ${out}: the folder ${parent} does not exist; create it or name another file`);
    if (existsSync(out) && statSync(out).isDirectory()) throw new UsageError(`--out ${out} is a folder; name a file, e.g. ${out}/report.html`);
  }
  const data = hub ? collectFleetReport({ root, days, boxes: hub.boxes }) : collectReport({ root, days });
  if (values.json) {
    process.stdout.write(JSON.stringify(data, null, 2) + '\n');
    return EXIT.ok;
  }
  const html = renderPage(data, await renderCharts(data));
  writeFileAtomicSync(out, html, true);
  const skipped = data.ledgers.skipped > 0 ? `; ${data.ledgers.skipped} damaged ledger(s) skipped (listed in the page)` : '';
  const boxes = data.boxes ? ` on ${data.boxes.length} boxes` : '';
  process.stdout.write(`wrote ${out} (${data.counts.sessions} jobs${boxes} over the last ${days} days, ${Math.round(html.length / 1024)} kB${skipped})\n`);
  return EXIT.ok;
}
