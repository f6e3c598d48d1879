/**
 * The session worker, end to end on the real compiled daemon: the daemon runs
 * every job in one child process (src/daemon/worker.ts) that holds the
 * runtime and memory. A worker that dies mid-session is replaced and the
 * session resumes; one that keeps dying on the same session gets it closed
 * with a reason, by a run that starts no step; an idle worker exits and a new job starts a new one; a
 * worker left by a killed daemon is killed before a new one starts; a signal
 * to the worker alone sends its session back to the queue; a root that broke
 * while the worker was away keeps its last good manifests in force; a schema that does not
 * compile stops the daemon at start although the worker compiles schemas after its ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processIdentity, pidExists } from '../../src/daemon/proc.js';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { readLedgerText } from '../../src/ledger/ledger.js';
import { initRoot } from '../../src/root/init.js';
import { slowExampleJob, tempRoot } from './helpers.js';
import { picoAsync, startDaemon, stepStarted, stopDaemon, type LogLine, type RunningDaemon } from './spawn.js';

function exampleRoot(): string {
  const root = tempRoot('pico-e2e-worker-');
  initRoot(root);
  return root;
}

/** The live worker's pid, as the daemon records it. */
function workerPid(root: string): number {
  return Number(readFileSync(join(root, 'sessions', '.daemon', 'worker'), 'utf8').split('\n')[0]);
}

/** Every answer_sent in a session's ledger, after checking the ledger is whole and dense. */
function answers(root: string, id: string): number {
  const path = join(root, 'sessions', id, 'events.jsonl');
  const text = readFileSync(path, 'utf8');
  const { events, intactBytes } = readLedgerText(text, path);
  expect(intactBytes).toBe(Buffer.byteLength(text));
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  return events.filter((e) => e.type === 'answer_sent').length;
}


const sleepers: ChildProcess[] = [];
afterEach(() => {
  for (const c of sleepers.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A harmless long-running process that stands in for someone else's. */
function sleeper(): ChildProcess {
  const c = spawn('sleep', ['120'], { stdio: 'ignore' });
  sleepers.push(c);
  return c;
}

/** The first log line at or after index `from` that matches. */
function after(d: RunningDaemon, from: number, pred: (l: LogLine) => boolean): Promise<LogLine> {
  return d.waitFor((l) => d.lines.indexOf(l) >= from && pred(l), 30_000);
}

/** A daemon on a fresh root whose worker is in the middle of a step of a slow job. */
async function slowJobInFlight(): Promise<{ root: string; d: RunningDaemon; id: string; first: number }> {
  const root = exampleRoot();
  const d = startDaemon(root);
  await d.waitFor((l) => l.event === 'ready');
  const { id } = await dropIntoInbox(slowExampleJob(root), root);
  await d.waitFor(stepStarted(id));
  return { root, d, id, first: workerPid(root) };
}

describe('the session worker', () => {
  it('a worker killed mid-session is replaced: the session resumes and answers once, the daemon stays up', async () => {
    const { root, d, id, first } = await slowJobInFlight();
    process.kill(first, 'SIGKILL');
    const died = await d.waitFor((l) => l.event === 'worker_died' && l.session === id);
    expect(died.how).toBe('killed by SIGKILL');
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    expect(fin.outcome).toBe('answered');
    expect(workerPid(root)).not.toBe(first);
    expect(answers(root, id)).toBe(1);
    const ledger = readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8');
    expect(ledger).toMatch(/"type":"resumed"/);
    await stopDaemon(d);
  }, 60_000);

  it('a session on which the worker dies three times is closed: its ledger ends with the steps not run and a declined answer, and the next job still runs', async () => {
    const root = exampleRoot();
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const { id } = await dropIntoInbox(slowExampleJob(root), root);
    let from = 0;
    for (let death = 1; death <= 3; death++) {
      // each time a worker takes the session up, it dies in a step (the test plays the crashing provider)
      const step = await after(d, from, stepStarted(id));
      process.kill(workerPid(root), 'SIGKILL');
      const seen = await after(d, d.lines.indexOf(step), (l) => (l.event === 'worker_died' || l.event === 'closing') && l.session === id);
      expect(seen.event).toBe(death < 3 ? 'worker_died' : 'closing');
      from = d.lines.indexOf(seen);
    }
    const closing = d.lines[from]!;
    expect(closing.problem).toMatch(/the session worker died 3 times while running this session \(last: killed by SIGKILL\)/);
    // closed by one more run that starts no step: the ledger ends as every session's does
    const fin = await after(d, from, (l) => l.event === 'finished' && l.session === id);
    expect(fin.outcome).toBe('declined');
    expect(d.lines.slice(from).some((l) => stepStarted(id)(l))).toBe(false);
    expect(answers(root, id)).toBe(1);
    const path = join(root, 'sessions', id, 'events.jsonl');
    const notRun = readLedgerText(readFileSync(path, 'utf8'), path).events.filter((e) => e.type === 'step_failed');
    expect(notRun).toHaveLength(3);
    for (const e of notRun) expect(e.error).toMatch(/^not run: the session worker died 3 times .*fix or remove that provider/);
    const result = JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { outcome: string; missing: string[] };
    expect(result.outcome).toBe('declined');
    expect(result.missing).toHaveLength(3);
    const next = await dropIntoInbox(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')), root);
    expect((await d.waitFor((l) => l.event === 'finished' && l.session === next.id, 30_000)).outcome).toBe('answered');
    await stopDaemon(d);
  }, 90_000);

  it('jobs handed to the worker but not begun are taken back when a more urgent job arrives', async () => {
    const root = exampleRoot();
    const slow = JSON.parse(slowExampleJob(root, 0.3).toString('utf8')) as Record<string, unknown>;
    const batch = Buffer.from(JSON.stringify({ ...slow, budget_class: 'batch' }));
    const urgent = Buffer.from(JSON.stringify({ ...slow, budget_class: 'interactive' }));
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const b1 = await dropIntoInbox(batch, root);
    const b2 = await dropIntoInbox(batch, root);
    const b3 = await dropIntoInbox(batch, root);
    await d.waitFor(stepStarted(b1.id)); // b1 runs; b2 and b3 wait in the worker
    const i1 = await dropIntoInbox(urgent, root);
    for (const id of [b1.id, b2.id, b3.id, i1.id]) await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    const order = d.lines.filter((l) => l.event === 'started').map((l) => l.session);
    expect(order).toEqual([b1.id, i1.id, b2.id, b3.id]);
    // b2 and b3 had already been handed to the worker, and were taken back for i1
    expect(d.lines.filter((l) => l.event === 'taken_back' && l.for === i1.id).map((l) => l.session).sort()).toEqual([b2.id, b3.id].sort());
    await stopDaemon(d);
  }, 60_000);

  it('the worker exits when the daemon is idle, and the next job starts a new one', async () => {
    const root = exampleRoot();
    const d = startDaemon(root, {}, ['--worker-idle-ms', '300']);
    await d.waitFor((l) => l.event === 'ready');
    const job = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'));
    const a = await dropIntoInbox(job, root);
    await d.waitFor((l) => l.event === 'finished' && l.session === a.id);
    const gone = await d.waitFor((l) => l.event === 'worker_stopped' && l.why === 'idle');
    expect(pidExists(gone.worker as number)).toBe(false);
    expect(existsSync(join(root, 'sessions', '.daemon', 'worker'))).toBe(false);
    // the idle daemon's memory ingest ran before the worker left
    expect(d.lines.some((l) => l.event === 'ingested')).toBe(true);
    const b = await dropIntoInbox(job, root);
    expect((await d.waitFor((l) => l.event === 'finished' && l.session === b.id)).outcome).toBe('answered');
    const readies = d.lines.filter((l) => l.event === 'worker_ready');
    expect(readies).toHaveLength(2);
    expect(readies[1]!.worker).not.toBe(readies[0]!.worker);
    // the new worker took what the first one's check of the same files gave (root/checked-set.ts), and ran on the same composition
    expect(d.lines.filter((l) => l.event === 'worker_warm').map((l) => l.manifests_from_record)).toEqual([false, true]);
    const composition = (id: string): unknown => (JSON.parse(readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8').split('\n')[0]!) as { hash: unknown }).hash;
    expect(composition(b.id)).toBe(composition(a.id));
    await stopDaemon(d);
  }, 60_000);

  it('a worker recorded by a previous daemon that still runs is killed before the new daemon starts its own', async () => {
    const root = exampleRoot();
    // stands in for a worker whose daemon was SIGKILLed while the worker hung
    const survivor = sleeper();
    const exited = new Promise<string | null>((ok) => survivor.once('exit', (_code, sig) => ok(sig)));
    mkdirSync(join(root, 'sessions', '.daemon'), { recursive: true });
    writeFileSync(join(root, 'sessions', '.daemon', 'worker'), `${survivor.pid}\n${processIdentity(survivor.pid!)}\n`);
    const d = startDaemon(root);
    const warned = await d.waitFor((l) => l.event === 'worker_survivor');
    expect(warned.worker).toBe(survivor.pid);
    expect(await exited).toBe('SIGKILL');
    await d.waitFor((l) => l.event === 'ready');
    await stopDaemon(d);
  }, 60_000);

  it('a recorded pid that now belongs to another process (identity differs) is left alone', async () => {
    const root = exampleRoot();
    const bystander = sleeper();
    mkdirSync(join(root, 'sessions', '.daemon'), { recursive: true });
    writeFileSync(join(root, 'sessions', '.daemon', 'worker'), `${bystander.pid}\nsome-other-boot:${bystander.pid}:1\n`);
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    expect(d.lines.some((l) => l.event === 'worker_survivor')).toBe(false);
    expect(pidExists(bystander.pid!)).toBe(true);
    bystander.kill('SIGKILL');
    await stopDaemon(d);
  }, 60_000);

  it('SIGTERM to the worker alone finishes its step; the session goes back to the queue and a new worker answers it', async () => {
    const { root, d, id, first } = await slowJobInFlight();
    process.kill(first, 'SIGTERM');
    await d.waitFor((l) => l.event === 'worker_signalled' && l.worker === first);
    await d.waitFor((l) => l.event === 'interrupted' && l.session === id);
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    expect(fin.outcome).toBe('answered');
    expect(workerPid(root)).not.toBe(first);
    expect(d.lines.find((l) => l.event === 'worker_stopped' && l.worker === first)?.how).toBe('exit code 0');
    expect(answers(root, id)).toBe(1);
    await stopDaemon(d);
  }, 60_000);

  it('a typo in a provider manifest while the worker was away: the last good set stays in force and the job is answered', async () => {
    const root = exampleRoot();
    const d = startDaemon(root, {}, ['--worker-idle-ms', '200']);
    await d.waitFor((l) => l.event === 'ready');
    await d.waitFor((l) => l.event === 'worker_stopped' && l.why === 'idle');
    const manifest = join(root, 'manifests', 'providers', 'disk-usage-parser.json');
    const good = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, good.replace('"escalates_to"', '"escalates_too"'));
    const { id } = await dropIntoInbox(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')), root);
    expect((await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000)).outcome).toBe('answered');
    const broken = d.lines.find((l) => l.event === 'manifests_broken');
    expect(broken?.err).toMatch(/disk-usage-parser\.json[\s\S]*escalates_too/);
    expect(d.lines.some((l) => l.event === 'worker_failed')).toBe(false);
    // fixed again: the next worker loads the files themselves, without a word about broken manifests
    writeFileSync(`${manifest}.tmp`, good);
    renameSync(`${manifest}.tmp`, manifest);
    await d.waitFor((l) => l.event === 'worker_stopped' && l.why === 'idle' && d.lines.indexOf(l) > d.lines.indexOf(broken!));
    const from = d.lines.length;
    const second = await dropIntoInbox(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')), root);
    expect((await d.waitFor((l) => l.event === 'finished' && l.session === second.id, 30_000)).outcome).toBe('answered');
    expect(d.lines.slice(from).some((l) => l.event === 'manifests_broken')).toBe(false);
    await stopDaemon(d);
  }, 60_000);

  it('a schema that does not compile stops the daemon at start (exit 3, naming the file and the fix), though the worker compiles after saying ready', async () => {
    const root = exampleRoot();
    const file = join(root, 'manifests', 'schemas', 'thermal@1.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
    doc.properties.zone_note = { type: 'strin' };
    writeFileSync(file, JSON.stringify(doc));
    const r = await picoAsync(['daemon', '--root', root]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/thermal@1\.json: not a usable JSON Schema: schema thermal@1: does not compile[^\n]*fix the schema so it compiles/);
    // the broken set was never kept as the last good one, which a later worker would fall back to, nor recorded as checked
    expect(existsSync(join(root, 'sessions', '.daemon', 'manifests.last-good.json'))).toBe(false);
    expect(existsSync(join(root, 'sessions', '.daemon', 'manifests.checked-set'))).toBe(false);
  }, 60_000);
});
