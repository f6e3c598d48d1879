/**
 * Issue 25: "`pico report --fleet` / `pico failures --fleet` on the hub's
 * index", and the hub's views "run across the fleet, with the box as a
 * column".
 *
 * Two boxes' sessions (written in the ledger format by the memory bench's
 * generator) go to a hub's root through the hub's own code — each line
 * offered to the seq-order store, flushed, and ingested into the hub's index —
 * exactly as the hub does with lines pulled from the server. The commands
 * then run as a person runs them (the compiled CLI), and each box's rows must
 * equal what that box's own index and its own report say.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/memory-gen.js';
import { HubIndex } from '../../src/fleet/hub-index.js';
import { HubStore } from '../../src/fleet/hub-store.js';
import { MemoryIndex } from '../../src/memory/index.js';
import { REPORTS, runReport, type ReportResult } from '../../src/memory/reports.js';
import { collectReport, type ReportData } from '../../src/report/collect.js';
import { initRoot } from '../../src/root/init.js';
import { picoAsync as pico } from '../daemon/spawn.js';
import { tempDir } from '../helpers/temp.js';

const quiet = pino({ level: 'silent' });
const BOXES = { b1: [0, 10], b2: [10, 26] } as const;
const DAYS = '1000'; // the generator's sessions are dated 2026-01-01

let dir: string;
let hubRoot: string;
const boxRoot = (b: string): string => join(dir, b);

beforeAll(async () => {
  dir = tempDir('pico-fleet-views-');
  const scratch = join(dir, 'scratch');
  generateSessions(scratch, { sessions: 26, failEvery: 3 });
  const ids = readdirSync(scratch).sort();
  for (const [b, [from, to]] of Object.entries(BOXES)) {
    mkdirSync(join(boxRoot(b), 'sessions'), { recursive: true });
    for (const id of ids.slice(from, to)) renameSync(join(scratch, id), join(boxRoot(b), 'sessions', id));
  }
  // the hub's path for every line: the seq-order store, a durable flush, then one ingest
  hubRoot = join(dir, 'hub');
  mkdirSync(hubRoot);
  const store = new HubStore(hubRoot);
  for (const b of Object.keys(BOXES)) {
    for (const id of readdirSync(join(boxRoot(b), 'sessions'))) {
      const lines = readFileSync(join(boxRoot(b), 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n');
      for (const l of lines.reverse()) store.offer(b, id, (JSON.parse(l) as { seq: number }).seq, l); // all but seq 0 arrive early
      for (const l of lines.reverse()) expect(store.offer(b, id, (JSON.parse(l) as { seq: number }).seq, l)).not.toBe('early');
    }
  }
  const touched = await store.flush();
  store.close();
  const hub = new HubIndex(hubRoot, quiet);
  hub.ingest(touched);
  hub.close();
});

/** Run a pico command that prints JSON; fail with its stderr when it does not exit 0. */
async function json<T>(args: string[]): Promise<T> {
  const r = await pico(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** Rows as sorted JSON text, so row order does not matter. */
const sorted = (rows: readonly object[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('pico failures report --fleet', () => {
  it('gives every report once per box, each box\'s rows equal to its own index\'s, the box first', async () => {
    const results = await json<ReportResult[]>(['failures', 'report', '--fleet', '--root', hubRoot, '--json']);
    expect(results.map((r) => r.name)).toEqual(REPORTS.map((r) => r.name));
    for (const b of Object.keys(BOXES)) {
      const own = MemoryIndex.open(join(boxRoot(b), 'memory', 'episodic.db'));
      own.ingestDir(join(boxRoot(b), 'sessions'));
      for (const r of results) {
        expect(r.columns[0]).toBe('box');
        const mine = runReport(own.db, r.name);
        expect(r.columns.slice(1), r.name).toEqual(mine.columns);
        expect(sorted(r.rows.filter((x) => x.box === b)), `${r.name} on ${b}`).toEqual(sorted(JSON.parse(JSON.stringify(mine.rows.map((x) => ({ box: b, ...x })))) as Record<string, unknown>[]));
      }
      own.close();
    }
    // rows of both boxes, and the whole fleet's failures among them
    const top = results.find((r) => r.name === 'failing_sessions')!;
    expect(new Set(top.rows.map((x) => x.box))).toEqual(new Set(Object.keys(BOXES)));
    const health = results.find((r) => r.name === 'provider_health')!;
    expect(health.rows.some((x) => x.box === 'b1' && (x.failed as number) > 0)).toBe(true);
  });

  it('takes the same flags as on a box: one report by name, its limit per box; a person reads a table with a box column', async () => {
    const one = await json<ReportResult[]>(['failures', 'report', '--fleet', '--name', 'failing_sessions', '--limit', '2', '--root', hubRoot, '--json']);
    expect(one.map((r) => r.name)).toEqual(['failing_sessions']);
    expect(one[0]!.rows.map((r) => r.box)).toEqual(['b1', 'b1', 'b2', 'b2']);
    const text = await pico(['failures', 'report', '--fleet', '--name', 'provider_health', '--root', hubRoot]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^== provider_health/);
    expect(text.stdout).toMatch(/\bbox\b.*\bprovider\b/);
    expect(text.stdout).toMatch(/^b2\s+extract-1\.2b-q4/m);
  });
});

describe('pico report --fleet', () => {
  it('is each box\'s own report side by side: counts summed, every row naming its box, one line per box', async () => {
    const fleet = await json<ReportData>(['report', '--fleet', '--root', hubRoot, '--days', DAYS, '--json']);
    const own = Object.fromEntries(Object.keys(BOXES).map((b) => [b, collectReport({ root: boxRoot(b), days: Number(DAYS) })]));
    expect(fleet.boxes!.map((l) => [l.box, l.jobs])).toEqual(Object.keys(BOXES).map((b) => [b, own[b]!.counts.sessions]));
    expect(fleet.counts.sessions).toBe(26);
    expect(fleet.counts.failures).toBe(own.b1!.counts.failures + own.b2!.counts.failures);
    const strip = <T extends { box?: string }>(rows: readonly T[], b: string): string[] => sorted(rows.filter((r) => r.box === b).map(({ box: _box, ...r }) => r));
    for (const b of Object.keys(BOXES)) {
      expect(strip(fleet.durations, b), b).toEqual(sorted(own[b]!.durations));
      expect(strip(fleet.pass_rate, b), b).toEqual(sorted(own[b]!.pass_rate));
      expect(strip(fleet.signatures, b), b).toEqual(sorted(own[b]!.signatures));
      expect(strip(fleet.fixes, b), b).toEqual(sorted(own[b]!.fixes));
    }
    const jobs = (d: ReportData): number => d.jobs_per_day.reduce((n, r) => n + r.jobs, 0);
    expect(jobs(fleet)).toBe(jobs(own.b1!) + jobs(own.b2!));
  });

  it('writes the page with a boxes table and a box column', async () => {
    const out = join(dir, 'fleet.html');
    const r = await pico(['report', '--fleet', '--root', hubRoot, '--days', DAYS, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('26 jobs on 2 boxes');
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('a fleet of 2 boxes');
    expect(html).toMatch(/<h2 id="h-boxes">Boxes<\/h2>/);
    expect(html).toMatch(/<th scope="col">box<\/th><th scope="col">provider<\/th><th scope="col">calls<\/th>/);
    expect(html).toMatch(/<td>b2<\/td><td>extract-1\.2b-q4<\/td>/);
  });
});

describe('a root that is not a hub', () => {
  it('is refused by name with the fix, exit 3, for both commands; --fleet goes with report only, and a report name must exist (exit 2)', async () => {
    const box = join(dir, 'a-box');
    initRoot(box);
    mkdirSync(join(box, 'fleet'), { recursive: true });
    writeFileSync(join(box, 'fleet', '.agent.json'), '{}');
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    for (const args of [['report', '--fleet', '--json'], ['failures', 'report', '--fleet']]) {
      const r = await pico([...args, '--root', box]);
      expect(r.code, `${args.join(' ')} ${box}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(`${box} is not a fleet hub's root`);
      expect(r.stderr).toMatch(/fix: pass --root the folder `pico fleet hub --root DIR` writes into/);
      // a folder that is no root at all is the one root check's (src/root/place.ts): the user's mistake
      const none = await pico([...args, '--root', empty]);
      expect(none.code, `${args.join(' ')} ${empty}: ${none.stderr}`).toBe(2);
      expect(none.stderr).toContain(`no root at ${empty}`);
    }
    expect((await pico(['report', '--fleet', '--root', box])).stderr).toContain("it is a box's root");
    const typo = await pico(['failures', 'report', '--fleet', '--name', 'provider_healt', '--root', hubRoot]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no report named "provider_healt"; available: top_signatures');
    const list = await pico(['failures', 'list', '--fleet', '--root', hubRoot]);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('--fleet goes with `pico failures report`');
  }, 120_000); // seven commands, each a process start: many seconds apiece on a loaded box
});
