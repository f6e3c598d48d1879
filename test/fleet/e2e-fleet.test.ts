/**
 * Issue 25, "Done when" (the small version, kept short for `npm test`): "an
 * end-to-end test on this one machine with real servers: … starts it with
 * JetStream on a loopback port in a temporary folder, a hub, and three
 * `pico init` roots each with its own daemon and agent (separate processes),
 * then submits … jobs across box=, model= and cap= selectors while it kills
 * agents and daemons with SIGKILL …, stops nats-server …, and runs with a
 * 1-second dedup window. Checks: every job id ends exactly once across the
 * fleet; no duplicate (session, seq) on the hub; the hub's views equal the
 * union of the boxes' own indexes; a box offline during submission takes its
 * box= jobs when it returns."
 *
 * Here, by default: 18 jobs, 4 SIGKILLs, the server away for 3 s, so
 * `npm test` stays quick; PICO_FLEET_E2E_FULL=1 runs the numbers: 60
 * jobs, 12 SIGKILLs, the server away for 30 s. The kills come at random
 * points: a seeded generator picks the victim (an agent or a daemon, taking
 * turns, on a random box), the pause before the kill and before the restart,
 * and the job after which the server stops. The seed is printed and named in
 * every failure; PICO_FLEET_E2E_SEED=N runs the same choices again (the
 * processes' own timing still varies).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectServer, ensureFleet, type Fleet } from '../../src/fleet/connect.js';
import { submit } from '../../src/fleet/commands.js';
import { MemoryIndex } from '../../src/memory/index.js';
import { runReport, type ReportResult } from '../../src/memory/reports.js';
import { parseJob, type Job } from '../../src/runtime/job.js';
import { initRoot } from '../../src/root/init.js';
import { isSessionId } from '../../src/ledger/session-id.js';
import { NATS_SERVER, natsInTemp, pico, sleep, startNats, startPico, type Proc } from './procs.js';

const BOXES = ['b1', 'b2', 'b3'] as const;
type Box = (typeof BOXES)[number];
const FULL = process.env.PICO_FLEET_E2E_FULL === '1';
const JOBS = FULL ? 60 : 18;
const SERVER_AWAY_MS = FULL ? 30_000 : 3_000;
const KILLS = FULL ? 12 : 4;
const SEED = process.env.PICO_FLEET_E2E_SEED !== undefined ? Number(process.env.PICO_FLEET_E2E_SEED) : Math.floor(Math.random() * 2 ** 31);
/** A small seeded generator (mulberry32): the same seed, the same choices. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Poll `cond` until true or the deadline; throws naming what was awaited. */
async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000, detail: () => unknown = () => ''): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}\n${JSON.stringify(detail(), null, 1)}`);
    await sleep(100);
  }
}

/** Rows of a query over an index, as sorted JSON strings (order-free comparison). */
function rows(ix: MemoryIndex, sql: string, box?: string): string[] {
  return (ix.db.prepare(sql).all() as Record<string, unknown>[]).map((r) => JSON.stringify(box ? { box, ...r } : r)).sort();
}

describe.skipIf(!NATS_SERVER)('a fleet of three boxes over a real nats-server', () => {
  it('every job ends exactly once across agents and daemons killed at random, a server stop and a box that was away; the hub equals the boxes', async () => {
    console.log(`fleet end-to-end: seed ${SEED} (run again with PICO_FLEET_E2E_SEED=${SEED})`);
    try {
      await run();
    } catch (err) {
      (err as Error).message = `[seed ${SEED}: PICO_FLEET_E2E_SEED=${SEED} replays the choices] ${(err as Error).message}`;
      throw err;
    }
  }, FULL ? 400_000 : 150_000);
});

async function run(): Promise<void> {
  // two sequences from the seed, so the kills' choices do not depend on how the two loops interleave
  const rand = seeded(SEED);
  const chaosRand = seeded(SEED ^ 0x5bd1e995);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(chaosRand() * xs.length)]!;
  const started = await natsInTemp('pico-fleet-e2e-');
  const { dir, port, server } = started;
  let nats = started.nats;
  const hubRoot = join(dir, 'hub');
  mkdirSync(hubRoot);
  const hub = startPico(['fleet', 'hub', '--root', hubRoot, '--server', server, '--dedup-ms', '1000']);
  await hub.waitFor((l) => l.event === 'ready');

  const roots = Object.fromEntries(BOXES.map((b) => [b, join(dir, b)])) as Record<Box, string>;
  const daemons = {} as Record<Box, Proc>;
  const agents = {} as Partial<Record<Box, Proc>>;
  const startAgent = (b: Box): Proc => (agents[b] = startPico(['fleet', 'agent', '--root', roots[b], '--box', b, '--server', server]));
  const startDaemon = (b: Box): Proc => (daemons[b] = startPico(['daemon', '--root', roots[b]]));
  for (const b of BOXES) {
    initRoot(roots[b]);
    startDaemon(b);
  }
  for (const b of BOXES) await daemons[b].waitFor((l) => l.event === 'ready');
  startAgent('b1');
  startAgent('b2'); // b3 is away while its jobs are submitted
  await Promise.all([agents.b1!.waitFor((l) => l.event === 'ready'), agents.b2!.waitFor((l) => l.event === 'ready')]);

  const good = parseJob(JSON.parse(readFileSync(join(roots.b1, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8')));
  // a job whose tool fails, so failure memory has rows to compare
  const failing: Job = { ...good, plan: good.plan!.map((s) => (s.tool === 'read_file' ? { ...s, args: { path: 'examples/data/no-such-file.txt' } } : s)) };
  const targets = ['box=b1', 'box=b3', 'model=disk-usage-parser', 'cap=extract@1', 'box=b2', 'model=log-summary-parser'];
  const client: Fleet = await ensureFleet(await connectServer({ server, name: 'test' }));
  const ids: { id: string; to: string }[] = [];
  const send = async (i: number): Promise<void> => {
    const to = targets[i % targets.length]!;
    const [kind, value] = to.split('=') as ['box' | 'model' | 'cap', string];
    const r = await submit(client, i % 3 === 2 ? failing : good, { kind, value }, null);
    ids.push({ id: r.id, to });
  };

  // the kills: an agent, then a daemon, and so on, each on a random box at a random moment,
  // restarted after a random pause (b3's agent only once it is back)
  const kills: string[] = [];
  let b3Back = false;
  let chaosOn = true;
  let serverAway = false;
  const chaos = (async () => {
    for (let k = 0; k < KILLS && chaosOn; k++) {
      await sleep(100 + chaosRand() * 1_100);
      while (serverAway && chaosOn) await sleep(100); // the kills land while jobs flow, not all in the server's absence
      const agent = k % 2 === 0;
      const b = pick(agent && !b3Back ? (['b1', 'b2'] as const) : BOXES);
      const pause = chaosRand() * 1_000;
      if (!chaosOn) return;
      kills.push(`${agent ? 'agent' : 'daemon'} ${b} at ${ids.length} jobs sent, back after ${Math.round(pause)} ms`);
      if (agent) await agents[b]!.kill('SIGKILL');
      else await daemons[b].kill('SIGKILL');
      await sleep(pause);
      if (agent) startAgent(b);
      else startDaemon(b);
    }
  })();

  const stopAfter = Math.floor(JOBS / 3 + rand() * (JOBS / 3));
  for (let i = 0; i < JOBS; i++) {
    await send(i);
    await sleep(rand() * 300);
    if (i === stopAfter) {
      // the server goes away and comes back with its store
      serverAway = true;
      await nats.kill('SIGTERM');
      await sleep(SERVER_AWAY_MS);
      nats = await startNats(port, join(dir, 'js'));
      serverAway = false;
      await until('the client is connected again and JetStream answers', () => client.jsm.streams.info('PICO_JOBS').then(() => true, () => false), 20_000);
    }
  }
  // a resubmission with the same id changes nothing
  const again = await submit(client, good, { kind: 'box', value: 'b1' }, ids[0]!.id);
  expect(again.queued).toBe(false);
  // b3 comes back and takes its box= jobs
  b3Back = true;
  startAgent('b3');

  const ranOn = (id: string): Box[] => BOXES.filter((b) => existsSync(join(roots[b], 'sessions', id)));
  const ended = (id: string): boolean => ranOn(id).some((b) => existsSync(join(roots[b], 'sessions', id, 'result.json')));
  const stuck = (): unknown => ({
    kills,
    open: ids.filter((j) => !ended(j.id)).map((j) => ({ ...j, on: ranOn(j.id) })),
    inboxes: BOXES.map((b) => readdirSync(join(roots[b], 'sessions', 'inbox'))),
    agents: BOXES.map((b) => ({ exit: agents[b]?.child.exitCode, stderr: agents[b]?.stderr(), lines: agents[b]?.lines.filter((l) => l.event !== 'shipped').slice(-12).map((l) => `${String(l.time)} ${String(l.msg)}`) })),
  });
  await until('every job ended on some box', () => ids.every((j) => ended(j.id)), FULL ? 180_000 : 60_000, stuck);
  chaosOn = false;
  await chaos;
  await until('every box is running its daemon and agent again', () => BOXES.every((b) => daemons[b].child.exitCode === null && agents[b]?.child.exitCode === null), 5_000, stuck);
  console.log(`fleet end-to-end: seed ${SEED}, kills: ${kills.join('; ')}; server away after job ${stopAfter}`);

  // every job id ran exactly once across the fleet, on the box it was sent to when it named one
  for (const j of ids) {
    expect(ranOn(j.id), `${j.id} (${j.to})`).toHaveLength(1);
    if (j.to.startsWith('box=')) expect(ranOn(j.id)[0]).toBe(j.to.slice(4));
  }
  expect(ids.filter((j) => j.to === 'box=b3').every((j) => ranOn(j.id)[0] === 'b3')).toBe(true);
  for (const b of BOXES) expect(readdirSync(join(roots[b], 'sessions', 'rejected')), b).toEqual([]);
  // ... and ended once: no session beside the jobs (nothing ran under a new id), one answer in each ledger
  const sessionsOf = (b: Box): string[] => readdirSync(join(roots[b], 'sessions')).filter(isSessionId).sort();
  expect(BOXES.flatMap(sessionsOf).sort()).toEqual(ids.map((j) => j.id).sort());
  for (const j of ids) {
    const ledger = readFileSync(join(roots[ranOn(j.id)[0]!], 'sessions', j.id, 'events.jsonl'), 'utf8');
    expect(ledger.split('\n').filter((l) => l.includes('"type":"answer_sent"')), j.id).toHaveLength(1);
  }

  // the hub's copy of every ledger equals the box's own, byte for byte (so no (session, seq) twice)
  const same = (b: Box, s: string): boolean => {
    const hubCopy = join(hubRoot, 'fleet', b, 'sessions', s, 'events.jsonl');
    return existsSync(hubCopy) && readFileSync(hubCopy, 'utf8') === readFileSync(join(roots[b], 'sessions', s, 'events.jsonl'), 'utf8');
  };
  await until('the hub holds every ledger whole', () => BOXES.every((b) => sessionsOf(b).every((s) => same(b, s))), 30_000);
  for (const b of BOXES) {
    for (const s of sessionsOf(b)) {
      const seqs = readFileSync(join(hubRoot, 'fleet', b, 'sessions', s, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq);
      expect(seqs).toEqual(seqs.map((_, i) => i));
    }
  }
  // the user's commands, as a person runs them
  const cli = async (...args: string[]): Promise<{ code: number | null; out: unknown }> => {
    const r = await pico(['fleet', ...args, '--server', server, '--json']);
    let out: unknown = null;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      out = r.stdout + r.stderr;
    }
    return { code: r.code, out };
  };
  const status = await cli('status');
  expect(status.code).toBe(0);
  expect((status.out as { box: string; online: boolean }[]).map((b) => [b.box, b.online])).toEqual(BOXES.map((b) => [b, true]));
  const listed = await cli('jobs');
  expect(listed.code).toBe(0);
  const byId = new Map((listed.out as { id: string; state: string; box: string }[]).map((r) => [r.id, r]));
  for (const j of ids) expect(byId.get(j.id)?.state, j.id).toBe('ended');
  for (const j of ids) expect(byId.get(j.id)?.box, j.id).toBe(ranOn(j.id)[0]);
  const resubmit = await cli('submit', join(roots.b1, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--to', 'box=b2', '--id', ids[0]!.id);
  expect(resubmit.out).toMatchObject({ id: ids[0]!.id, queued: false, claimed_by: ranOn(ids[0]!.id)[0] });
  const watched = await pico(['fleet', 'watch', ids[1]!.id, '--server', server, '--json', '--timeout', '10']);
  expect(watched.code, watched.stderr).toBe(0);
  const shown = watched.stdout.trim().split('\n').map((l) => JSON.parse(l) as { box: string; seq: number; type: string });
  expect(shown.map((e) => e.seq)).toEqual(shown.map((_, i) => i));
  expect(shown.at(-1)!.type).toBe('answer_sent');
  expect(new Set(shown.map((e) => e.box))).toEqual(new Set(ranOn(ids[1]!.id)));
  expect((await pico(['fleet', 'submit', join(dir, 'no-such-job.json'), '--to', 'box=b1', '--server', server])).code).toBe(2);
  expect((await pico(['fleet', 'submit', join(roots.b1, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--to', 'host=b1', '--server', server])).code).toBe(2);

  await sleep(500); // the hub's last ingest after its last flush
  expect(await hub.kill('SIGTERM')).toBe(0);
  for (const b of BOXES) await agents[b]!.kill('SIGTERM');
  for (const b of BOXES) await daemons[b]!.kill('SIGTERM');
  await client.nc.close();
  await nats.kill('SIGTERM');

  // the hub's views equal the union of the boxes' own indexes, with the box as a column
  const hubIx = MemoryIndex.open(join(hubRoot, 'memory', 'episodic.db'));
  const boxIx = Object.fromEntries(BOXES.map((b) => {
    const ix = MemoryIndex.open(join(roots[b], 'memory', 'episodic.db'));
    ix.ingestDir(join(roots[b], 'sessions'));
    return [b, ix];
  }));
  const perBox = (sql: string): string[] => BOXES.flatMap((b) => rows(boxIx[b]!, sql, b)).sort();
  expect(rows(hubIx, 'SELECT box, provider, schema, ok, failed, n FROM v_fleet_provider_health'))
    .toEqual(perBox('SELECT provider, schema, ok, failed, n FROM v_provider_health'));
  expect(rows(hubIx, 'SELECT box, kind, signature, seen, sessions FROM v_fleet_signature'))
    .toEqual(perBox('SELECT kind, signature, seen, sessions FROM v_signature'));
  expect(rows(hubIx, 'SELECT session, seq, kind, signature, state FROM v_unresolved'))
    .toEqual(BOXES.flatMap((b) => rows(boxIx[b]!, 'SELECT session, seq, kind, signature, state FROM v_unresolved')).sort());
  expect(rows(hubIx, 'SELECT box, capability, schema, seen FROM v_fleet_capability_gap'))
    .toEqual(perBox('SELECT capability, schema, seen FROM v_capability_gap'));
  expect(rows(hubIx, 'SELECT session, seq, provider, schema, duration_ms, outcome FROM provider_call'))
    .toEqual(BOXES.flatMap((b) => rows(boxIx[b]!, 'SELECT session, seq, provider, schema, duration_ms, outcome FROM provider_call')).sort());
  expect(hubIx.stats().failures).toBeGreaterThan(0);
  expect(hubIx.stats().episodes).toBe(ids.length);
  hubIx.close();
  // and so do the person's commands on the hub: each box's failure reports as the box gives them
  const fleetReports = JSON.parse((await pico(['failures', 'report', '--fleet', '--root', hubRoot, '--json'])).stdout) as ReportResult[];
  for (const r of fleetReports) {
    expect(r.rows.map((x) => JSON.stringify(x)).sort(), r.name)
      .toEqual(BOXES.flatMap((b) => runReport(boxIx[b]!.db, r.name).rows.map((x) => JSON.stringify({ box: b, ...x }))).sort());
  }
  for (const ix of Object.values(boxIx)) ix.close();
}
