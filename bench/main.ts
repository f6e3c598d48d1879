/**
 * `npm run bench [-- --json] [-- --only GROUP[,GROUP]]`: every speed and memory
 * goal of the project as a table a reader can compare between runs (or JSON
 * for scripts). Groups run one after another, never in parallel, so they do
 * not disturb each other's numbers.
 */
import { parseArgs } from 'node:util';
import type { BenchRow } from './types.js';

// The daemon runs before memory: memory's bench makes and deletes 5,000 sessions, and on ext4
// files created in the minute after a mass deletion cost more (bench/daemon.ts says why).
const GROUPS: Record<string, () => Promise<BenchRow[]>> = {
  ledger: async () => (await import('./ledger.js')).benchLedger(),
  daemon: async () => (await import('./daemon.js')).benchDaemon(),
  ladder: async () => (await import('./ladder.js')).benchLadder(),
  memory: async () => (await import('./memory.js')).benchMemory(),
  models: async () => (await import('./models.js')).benchModels(),
  agent: async () => (await import('./agent.js')).benchAgent(),
  planning: async () => (await import('./planning.js')).benchPlanning(),
  world: async () => (await import('./world.js')).benchWorld(),
  report: async () => (await import('./report.js')).benchReport(),
  fleet: async () => (await import('./fleet.js')).benchFleet(),
  install: async () => (await import('./install.js')).benchInstall(),
  writes: async () => (await import('./writes.js')).benchWrites(),
  followups: async () => (await import('./followups.js')).benchFollowups(),
};

const USAGE = `npm run bench [-- --json] [-- --only GROUP[,GROUP]]
  groups: ${Object.keys(GROUPS).join(', ')} (default: all, one after another)
  --json   rows as JSON for scripts instead of the table`;

async function main(): Promise<void> {
  let values: { json?: boolean; only?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ options: { json: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\nusage: ${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(`usage: ${USAGE}\n`);
    return;
  }
  const names = values.only ? values.only.split(',') : Object.keys(GROUPS);
  const rows: BenchRow[] = [];
  for (const name of names) {
    const run = GROUPS[name];
    if (!run) {
      process.stderr.write(`bench: unknown group "${name}"\nusage: ${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    if (!values.json) process.stderr.write(`bench: ${name}…\n`);
    try {
      rows.push(...(await run()));
    } catch (err) {
      rows.push({ group: name, name: 'ERROR', value: NaN, unit: '', note: (err as Error).message });
    }
  }
  if (values.json) {
    process.stdout.write(JSON.stringify({ machine: { cpus: (await import('node:os')).cpus().length, node: process.version }, rows }, null, 2) + '\n');
    return;
  }
  // For people: whole numbers from 100 up, three significant digits below; --json keeps every digit.
  const shown = rows.map((r) => ({ ...r, value: Number.isInteger(r.value) || Math.abs(r.value) >= 100 ? Math.round(r.value) : Number(r.value.toPrecision(3)) }));
  const w = (k: keyof BenchRow) => Math.max(k.length, ...shown.map((r) => String(r[k] ?? '').length));
  const cols: (keyof BenchRow)[] = ['group', 'name', 'value', 'unit', 'note'];
  const line = (r: Record<string, unknown>) => cols.map((c) => (c === 'value' ? String(r[c] ?? '').padStart(w(c)) : String(r[c] ?? '').padEnd(w(c)))).join('  ');
  process.stdout.write([line({ group: 'group', name: 'name', value: 'value', unit: 'unit', note: 'note' }), cols.map((c) => '-'.repeat(w(c))).join('  '), ...shown.map((r) => line(r as unknown as Record<string, unknown>))].join('\n') + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
