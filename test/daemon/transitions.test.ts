/**
 * Issue 3 items 2–4: "claim by atomic rename into the job's session folder,
 * so a job runs at most once even across crashes"; bad input "moved (or, for
 * a symlink, the link itself) to sessions/rejected/ beside a reason"; "on
 * start, every claimed session without a terminal event is resumed".
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimJob, syncClaims } from '../../src/daemon/claim.js';
import { daemonPaths, sessionFiles } from '../../src/daemon/paths.js';
import { JobQueue } from '../../src/daemon/queue.js';
import { workerEnv, workerExecArgv } from '../../src/daemon/worker-host.js';
import { findUnfinished } from '../../src/daemon/recovery.js';
import { rejectEntry, sanitiseName } from '../../src/daemon/reject.js';
import { goodJob, tempRoot } from './helpers.js';

describe('claim', () => {
  it('a claimed job leaves the inbox and is job.json of its session, under the id its name carries', async () => {
    const p = daemonPaths(tempRoot());
    const id = '20261129-113512-3fa9c01b2d4e';
    writeFileSync(join(p.inbox, `${id}.json`), JSON.stringify(goodJob()));
    const c = await claimJob(p, `${id}.json`, id);
    await syncClaims(p, [c!.id]);
    expect(c!.id).toBe(id);
    expect(readdirSync(p.inbox)).toEqual([]);
    expect(JSON.parse(readFileSync(sessionFiles(p, id).job, 'utf8')).goal).toBe('why is the disk full?');
  });

  it('a name whose id an existing session owns still runs, under a new id, and the old session is untouched', async () => {
    const p = daemonPaths(tempRoot());
    const id = '20261129-113512-3fa9c01b2d4e';
    mkdirSync(sessionFiles(p, id).dir, { recursive: true });
    writeFileSync(sessionFiles(p, id).job, '{"old":true}');
    writeFileSync(join(p.inbox, `${id}.json`), JSON.stringify(goodJob()));
    const c = await claimJob(p, `${id}.json`, id);
    expect(c!.id).not.toBe(id);
    expect(readFileSync(sessionFiles(p, id).job, 'utf8')).toBe('{"old":true}');
    expect(existsSync(sessionFiles(p, c!.id).job)).toBe(true);
  });

  it('an empty session folder left by a crash between mkdir and rename is reused', async () => {
    const p = daemonPaths(tempRoot());
    const id = '20261129-113512-aaaaaaaaaaaa';
    mkdirSync(sessionFiles(p, id).dir, { recursive: true });
    writeFileSync(join(p.inbox, `${id}.json`), JSON.stringify(goodJob()));
    expect((await claimJob(p, `${id}.json`, id))!.id).toBe(id);
  });

  it('a file that vanished before the claim yields null and leaves no session folder', async () => {
    const p = daemonPaths(tempRoot());
    expect(await claimJob(p, 'gone.json', '20261129-113512-bbbbbbbbbbbb')).toBeNull();
    expect(existsSync(sessionFiles(p, '20261129-113512-bbbbbbbbbbbb').dir)).toBe(false);
  });

  it('two claims of one file: exactly one wins', async () => {
    const p = daemonPaths(tempRoot());
    writeFileSync(join(p.inbox, 'race.json'), JSON.stringify(goodJob()));
    const [a, b] = await Promise.all([claimJob(p, 'race.json', null), claimJob(p, 'race.json', null)]);
    expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    const sessions = readdirSync(p.sessions).filter((n) => n !== 'inbox');
    expect(sessions).toHaveLength(1);
  });
});

describe('reject', () => {
  it('a rejected file moves to rejected/ beside a reason naming the problem, the fix and the original name', async () => {
    const p = daemonPaths(tempRoot());
    writeFileSync(join(p.inbox, 'bad.json'), 'not json');
    const r = await rejectEntry(p, 'bad.json', 'bad.json is not valid JSON', 'fix the syntax');
    expect(readdirSync(p.inbox)).toEqual([]);
    expect(readFileSync(join(p.rejected, r!.stored_as), 'utf8')).toBe('not json');
    const reason = JSON.parse(readFileSync(join(p.rejected, `${r!.stored_as}.reason.json`), 'utf8'));
    expect(reason).toMatchObject({ original_name: 'bad.json', problem: 'bad.json is not valid JSON', fix: 'fix the syntax' });
  });

  it('a symlink is moved as the link itself; its target stays where it was', async () => {
    const root = tempRoot();
    const p = daemonPaths(root);
    const target = join(root, 'target.json');
    writeFileSync(target, 'precious');
    symlinkSync(target, join(p.inbox, 'link.json'));
    const r = await rejectEntry(p, 'link.json', 'a symlink', 'copy the file');
    const moved = join(p.rejected, r!.stored_as);
    expect(lstatSync(moved).isSymbolicLink()).toBe(true);
    expect(readlinkSync(moved)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });

  it('the same bad name rejected twice keeps both copies', async () => {
    const p = daemonPaths(tempRoot());
    writeFileSync(join(p.inbox, 'x.json'), 'one');
    const a = await rejectEntry(p, 'x.json', 'p', 'f');
    writeFileSync(join(p.inbox, 'x.json'), 'two');
    const b = await rejectEntry(p, 'x.json', 'p', 'f');
    expect(a!.stored_as).not.toBe(b!.stored_as);
    expect(readdirSync(p.rejected).sort()).toHaveLength(4);
  });

  it('a hostile name is stored under a safe name', () => {
    const s = sanitiseName('../../etc/passwd');
    expect(s).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/);
    expect(s).not.toContain('..');
    expect(s).toMatch(/etc_passwd$/);
    expect(sanitiseName('a\nb\u0007.json')).toBe('a_b_.json');
    expect(sanitiseName('')).toBe('_');
  });
});

describe('queue', () => {
  it('runs interactive before attended before background before batch, then by arrival', () => {
    const q = new JobQueue();
    q.push('b1', 'batch');
    q.push('g1', 'background');
    q.push('a1', 'attended');
    q.push('i1', 'interactive');
    q.push('a2', 'attended');
    q.push('i2', 'interactive');
    q.push('b2', 'batch');
    expect(q.byClass()).toEqual({ interactive: 2, attended: 2, background: 1, batch: 2 });
    const order: string[] = [];
    for (let it = q.shift(); it; it = q.shift()) order.push(it.id);
    expect(order).toEqual(['i1', 'i2', 'a1', 'a2', 'g1', 'b1', 'b2']);
  });

  it('a session already queued is not queued twice', () => {
    const q = new JobQueue();
    expect(q.push('s', 'batch')).not.toBeNull();
    expect(q.push('s', 'batch')).toBeNull();
    expect(q.size).toBe(1);
  });

  it('a job taken back from the worker (cancelled, interrupted) returns to its place: its class, its arrival', () => {
    const q = new JobQueue();
    q.push('a1', 'attended');
    q.push('a2', 'attended');
    q.push('b1', 'batch');
    const first = q.shift()!;
    const second = q.shift()!;
    q.push('a3', 'attended');
    q.push('i1', 'interactive');
    expect(q.peek()!.id).toBe('i1');
    expect(JobQueue.outranks(q.peek()!, second)).toBe(true); // a more urgent class outranks a handed-over job
    expect(JobQueue.outranks(first, second)).toBe(true); // same class: earlier arrival first
    expect(JobQueue.outranks(second, first)).toBe(false);
    q.requeue(second);
    q.requeue(first);
    q.requeue(first); // twice is once
    const order: string[] = [];
    for (let it = q.shift(); it; it = q.shift()) order.push(it.id);
    expect(order).toEqual(['i1', 'a1', 'a2', 'a3', 'b1']);
  });
});

describe('session worker flags', () => {
  it('the worker runs without the flags that keep the daemon small, and with every other node flag', () => {
    expect(workerExecArgv(['--max-semi-space-size=1', '--lite-mode', '--no-expose-wasm', '--cpu-prof', '--max-old-space-size=512'])).toEqual(['--cpu-prof', '--max-old-space-size=512']);
    expect(workerExecArgv([])).toEqual([]);
  });

  it("the worker does not inherit systemd's notify socket or watchdog: only the daemon talks to systemd", () => {
    const env = workerEnv({ PATH: '/usr/bin', NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000', WATCHDOG_PID: '1', PICO_LOG_LEVEL: 'info' });
    expect(env).toEqual({ PATH: '/usr/bin', PICO_LOG_LEVEL: 'info' });
  });
});

describe('recovery', () => {
  it('finds claimed sessions without result.json, oldest claim first, and skips finished ones', async () => {
    const p = daemonPaths(tempRoot());
    const mk = (id: string, opts: { result?: boolean; ledger?: string; cls?: string; mtime?: number }): void => {
      const f = sessionFiles(p, id);
      mkdirSync(f.dir, { recursive: true });
      writeFileSync(f.job, JSON.stringify(goodJob(opts.cls ?? 'attended')));
      if (opts.result) writeFileSync(f.result, '{}');
      if (opts.ledger !== undefined) writeFileSync(f.ledger, opts.ledger);
    };
    const begun = '{"seq":0,"type":"composition"}\n';
    mk('20261129-000001-000000000001', { ledger: begun });
    mk('20261129-000002-000000000002', { result: true, ledger: begun });
    mk('20261129-000003-000000000003', { cls: 'batch', ledger: '' }); // claimed (the claim makes an empty ledger), not begun
    mkdirSync(sessionFiles(p, '20261129-000004-000000000004').dir); // mkdir done, rename not: not a claim
    const { unfinished, closed } = await findUnfinished(p);
    expect(closed).toEqual([]);
    expect(unfinished.map((u) => [u.id, u.budgetClass, u.started])).toEqual([
      ['20261129-000001-000000000001', 'attended', true],
      ['20261129-000003-000000000003', 'batch', false],
    ]);
  });

  it('a claimed job.json that no longer parses is closed with an explicit declined result', async () => {
    const p = daemonPaths(tempRoot());
    const f = sessionFiles(p, '20261129-000001-00000000000f');
    mkdirSync(f.dir, { recursive: true });
    writeFileSync(f.job, '{"job":"job@1"}');
    const { unfinished, closed } = await findUnfinished(p);
    expect(unfinished).toEqual([]);
    expect(closed[0]!.problem).toMatch(/not a valid job@1/);
    expect(JSON.parse(readFileSync(f.result, 'utf8'))).toMatchObject({ outcome: 'declined', closed_by: 'daemon recovery' });
  });
});
