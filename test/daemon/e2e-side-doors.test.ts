/**
 * Issue 20, "No side doors": each finding of the attack on the landed daemon, reproduced against
 * the real compiled daemon and CLI on real files (a real FIFO, real symlinks, a file written by a
 * real second user through setpriv), and shown to hold: only a person approves, nothing outside
 * the root is touched, no file can stall the daemon, errors quote nothing, wrappers do not hide
 * an interpreter, manifests mean one thing, a worker killed before READY is survived, a pause on
 * inodes shows in status, and ledger text never drives a terminal.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userName } from '../../src/base/user-name.js';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { readLedgerText } from '../../src/ledger/ledger.js';
import { initRoot } from '../../src/root/init.js';
import { makeRoot } from '../helpers/root.js';
import { tempDir } from '../helpers/temp.js';
import { tmpfsProbe } from '../helpers/tmpfs.js';
import { until } from '../helpers/until.js';
import { goodJob, pruneJob } from './helpers.js';
import { finished, picoAsync as pico, readyDaemon, startDaemon, stopDaemon, waitsForApproval, type RunningDaemon } from './spawn.js';

const isRoot = process.geteuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

const events = (root: string, id: string) => readLedgerText(readFileSync(join(root, 'sessions', id, 'events.jsonl'), 'utf8'), id).events;

const grant = (by = 'mallory') => JSON.stringify({ decision: 'granted', step: 'prune', by, at: new Date().toISOString(), reason: null });

/** A file written by uid 65534 itself (setpriv), then moved to `dest` on the same filesystem (it keeps its owner). */
function writeAsNobody(dest: string, text: string): void {
  const drop = tempDir('pico-doors-drop-');
  chmodSync(drop, 0o1777);
  const made = join(drop, 'f');
  execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', 'umask 077; cat > "$1"', 'sh', made], { input: text });
  renameSync(made, dest);
}

/** A fresh job is answered within `ms`: the daemon is not stalled. */
async function answersFreshJob(d: RunningDaemon, root: string, ms = 20_000): Promise<void> {
  const id = (await dropIntoInbox(Buffer.from(JSON.stringify(goodJob('interactive'))), root)).id;
  await d.waitFor(finished(id), ms);
}

describe('only a person approves (real daemon)', () => {
  it.skipIf(!isRoot || !hasSetpriv)('a symlinked decision, a symlinked approvals/ folder, another user\'s grant, a 0666 grant and a FIFO are refused with an event naming why; the sessions keep waiting, FIFOs stall nothing, and pico approve still works', async () => {
    const root = makeRoot('pico-doors-approve-');
    const outside = tempDir('pico-doors-outside-');
    const archive = join(root, 'examples', 'archive');
    const before = readdirSync(archive).length;
    const d = await readyDaemon(root);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = (await dropIntoInbox(pruneJob(), root)).id;
      await d.waitFor(waitsForApproval(id));
      ids.push(id);
    }
    const [link, folder, other, loose, fifo] = ids as [string, string, string, string, string];
    const approvals = (id: string) => join(root, 'sessions', id, 'approvals');
    const decision = (id: string) => join(approvals(id), 'prune.json');

    // a decision file that is a symlink to a grant elsewhere
    writeFileSync(join(outside, 'grant.json'), grant(), { mode: 0o600 });
    mkdirSync(approvals(link), { mode: 0o700 });
    symlinkSync(join(outside, 'grant.json'), decision(link));
    // an approvals/ folder that is a symlink out of the session
    mkdirSync(join(outside, 'approvals'), { mode: 0o700 });
    writeFileSync(join(outside, 'approvals', 'prune.json'), grant(), { mode: 0o600 });
    symlinkSync(join(outside, 'approvals'), approvals(folder));
    // a grant written by another user (uid 65534)
    mkdirSync(approvals(other), { mode: 0o700 });
    writeAsNobody(decision(other), grant());
    // a world-writable grant
    mkdirSync(approvals(loose), { mode: 0o700 });
    writeFileSync(decision(loose), grant(process.env.USER ?? 'root'));
    chmodSync(decision(loose), 0o666);
    // a FIFO as the decision file, and as the cancel request
    mkdirSync(approvals(fifo), { mode: 0o700 });
    execFileSync('mkfifo', [decision(fifo), join(root, 'sessions', fifo, 'cancel.json')]);

    // nothing stalls: a fresh job is answered while all five are planted
    await answersFreshJob(d, root);
    // each refusal is an event naming the session and why
    const want: [string, string][] = [[link, 'symlink'], [folder, 'symlink'], [other, 'owner'], [loose, 'mode'], [fifo, 'not_regular']];
    for (const [id, reason] of want) {
      const l = await d.waitFor((x) => x.event === 'decision_refused' && x.session === id, 10_000);
      expect(l.reason, id).toBe(reason);
    }
    expect(d.lines.find((x) => x.event === 'decision_refused' && x.session === other)!.msg).toContain('uid 65534');
    // none of them ran the step: no grant in the ledger, the archive untouched, all five still wait
    for (const id of ids) {
      expect(events(root, id).some((e) => e.type === 'approval_granted' || (e.type === 'tool_output' && e.step === 'prune')), id).toBe(false);
      expect(existsSync(join(root, 'sessions', id, 'result.json')), id).toBe(false);
    }
    expect(readdirSync(archive).length).toBe(before);
    const status = await until('status.json to list the five waiting sessions', async () => {
      const s = JSON.parse((await pico(['status', '--root', root, '--json'])).stdout) as { status: { waiting?: { session: string }[] } };
      const w = (s.status.waiting ?? []).map((x) => x.session).sort();
      return w.length === 5 ? w : null;
    }, 10_000);
    expect(status).toEqual([...ids].sort());
    const shown = (JSON.parse((await pico(['status', '--root', root, '--json'])).stdout) as { status: { waiting: { session: string; refused?: string }[] } }).status.waiting;
    expect(shown.find((w) => w.session === other)?.refused).toMatch(/uid 65534/);
    // the FIFO cancel.json is no request either, and says so
    expect((await d.waitFor((x) => x.event === 'cancel_refused' && x.session === fifo, 10_000)).reason).toBe('not_regular');

    // a person's decision still works once the planted link is gone, and names the file's owner
    unlinkSync(decision(link));
    const ok = await pico(['approve', link, '--root', root]);
    expect(ok.code, ok.stderr).toBe(0);
    await d.waitFor(finished(link));
    const granted = events(root, link).find((e) => e.type === 'approval_granted') as { by: string } | undefined;
    expect(granted?.by).toBe(userName(process.geteuid!()) ?? `uid ${process.geteuid!()}`);
    // pico approve refuses to write through the planted approvals/ link
    const through = await pico(['approve', folder, '--root', root]);
    expect(through.code).toBe(2);
    expect(through.stderr).toMatch(/symlink/);
    expect(readdirSync(join(outside, 'approvals'))).toEqual(['prune.json']);
    await stopDaemon(d);
  }, 120_000);
});

describe('settings.json cannot stall or leak (real daemon)', () => {
  it('a FIFO as settings.json at start is refused at once (exit 3, naming the file and FIFO); a symlink to a secret is refused without quoting it', async () => {
    const root = makeRoot('pico-doors-settings-');
    execFileSync('mkfifo', [join(root, 'settings.json')]);
    const t0 = Date.now();
    const fifo = await pico(['daemon', '--root', root]); // (await pico()) gives up after 30 s: a hang fails here
    expect(fifo.code).toBe(3);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(fifo.stderr).toMatch(/settings\.json.*FIFO/);
    rmSync(join(root, 'settings.json'));

    // a link to a secret: /etc/shadow where it can be read, else a secret file of our own outside the root
    const secretFile = existsSync('/etc/shadow') && isRoot ? '/etc/shadow' : join(tempDir('pico-doors-secret-'), 'secret');
    if (secretFile !== '/etc/shadow') writeFileSync(secretFile, 'root:$y$j9T$notarealhash:19000:0:99999:7:::\n', { mode: 0o600 });
    const firstLine = readFileSync(secretFile, 'utf8').split('\n')[0]!;
    symlinkSync(secretFile, join(root, 'settings.json'));
    const s = await pico(['daemon', '--root', root]);
    expect(s.code).toBe(3);
    const said = s.stdout + s.stderr + (await pico(['status', '--root', root])).stdout + (await pico(['status', '--root', root])).stderr;
    expect(s.stderr).toContain('settings.json');
    expect(s.stderr).toMatch(/symlink/);
    for (const piece of [firstLine, firstLine.slice(0, 12), firstLine.split(':')[1]!].filter((p) => p.length >= 4)) expect(said).not.toContain(piece);
  }, 60_000);

  it('a FIFO as settings.json on SIGHUP is refused, the daemon keeps its settings and answers fresh jobs', async () => {
    const root = makeRoot('pico-doors-hup-');
    const d = await readyDaemon(root);
    execFileSync('mkfifo', [join(root, 'settings.json')]);
    d.child.kill('SIGHUP');
    const failed = await d.waitFor((l) => l.event === 'reload_failed', 10_000);
    expect(String(failed.msg)).toMatch(/settings\.json.*FIFO/);
    await answersFreshJob(d, root);
    await stopDaemon(d);
  }, 60_000);
});

describe('gc reaches nothing outside the root', () => {
  it('a symlink planted in sessions/ is reported and left, and what it points to is unchanged', async () => {
    const root = makeRoot('pico-doors-gc-');
    const outside = tempDir('pico-doors-gc-outside-');
    // what the link points at looks like an old finished session
    const fake = '20200101-000000-aaaaaaaaaaaa';
    writeFileSync(join(outside, 'result.json'), JSON.stringify({ session_id: fake, outcome: 'answered', ended_at: '2020-01-01T00:00:00.000Z' }));
    writeFileSync(join(outside, 'events.jsonl'), '');
    writeFileSync(join(outside, 'precious.txt'), 'keep me');
    symlinkSync(outside, join(root, 'sessions', fake));
    // a rejected/ folder that is a link out of the root
    const rejOut = tempDir('pico-doors-rej-outside-');
    writeFileSync(join(rejOut, 'x.json'), '{}');
    writeFileSync(join(rejOut, 'x.json.reason.json'), JSON.stringify({ at: '2020-01-01T00:00:00.000Z' }));
    rmSync(join(root, 'sessions', 'rejected'), { recursive: true, force: true });
    symlinkSync(rejOut, join(root, 'sessions', 'rejected'));
    const r = await pico(['gc', '--older-than', '1d', '--root', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessions: number; rejected: number; kept: { name: string; why: string }[] };
    expect(doc.sessions + doc.rejected).toBe(0);
    expect(doc.kept.map((k) => k.name)).toEqual(expect.arrayContaining([fake, 'rejected']));
    expect(doc.kept.find((k) => k.name === fake)!.why).toMatch(/symlink/);
    expect(lstatSync(join(root, 'sessions', fake)).isSymbolicLink()).toBe(true);
    expect(readdirSync(outside).sort()).toEqual(['events.jsonl', 'precious.txt', 'result.json']);
    expect(readdirSync(rejOut).sort()).toEqual(['x.json', 'x.json.reason.json']);
  });

  it('sessions/archive/ as a symlink out of the root: gc --archive writes nothing through it and removes nothing', async () => {
    const root = makeRoot('pico-doors-gc-arch-');
    const r0 = await pico(['run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root, '--json']);
    const id = (JSON.parse(r0.stdout) as { session_id: string }).session_id;
    expect(id, r0.stderr).toBeTruthy();
    const result = join(root, 'sessions', id, 'result.json');
    const doc = JSON.parse(readFileSync(result, 'utf8')) as { ended_at: string };
    doc.ended_at = '2020-01-01T00:00:00.000Z';
    writeFileSync(result, JSON.stringify(doc));
    const outside = tempDir('pico-doors-arch-outside-');
    symlinkSync(outside, join(root, 'sessions', 'archive'));
    const r = await pico(['gc', '--older-than', '1d', '--archive', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/kept sessions\/archive: .*symlink/);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(root, 'sessions', id))).toBe(true);
    expect(lstatSync(join(root, 'sessions', 'archive')).isSymbolicLink()).toBe(true);
  }, 60_000);
});

describe('report walks follow nothing', () => {
  it('a FIFO or a symlink as a session\'s ledger is skipped and named; the report neither hangs nor reads through the link', async () => {
    const root = makeRoot('pico-doors-report-');
    const outside = tempDir('pico-doors-report-outside-');
    writeFileSync(join(outside, 'events.jsonl'), 'secret-ledger-text\n');
    const a = join(root, 'sessions', '20261202-000001-aaaaaaaaaaaa');
    const b = join(root, 'sessions', '20261202-000002-bbbbbbbbbbbb');
    mkdirSync(a, { mode: 0o700 });
    mkdirSync(b, { mode: 0o700 });
    execFileSync('mkfifo', [join(a, 'events.jsonl')]);
    symlinkSync(join(outside, 'events.jsonl'), join(b, 'events.jsonl'));
    const r = await pico(['report', '--root', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('secret-ledger-text');
    const skipped = (JSON.parse(r.stdout) as { ledgers: { skipped_list: { session: string; reason: string }[] } }).ledgers.skipped_list;
    expect(skipped.find((x) => x.session.endsWith('aaaaaaaaaaaa'))?.reason).toMatch(/FIFO/);
    expect(skipped.find((x) => x.session.endsWith('bbbbbbbbbbbb'))?.reason).toMatch(/symlink/);
  }, 60_000);
});

/** A root whose manifests the attack changed; `pico manifests check`'s exit and output. */
async function checkManifests(change: (root: string) => void): Promise<{ code: number | null; out: string }> {
  const root = makeRoot('pico-doors-man-');
  change(root);
  const r = await pico(['manifests', 'check', '--root', root]);
  return { code: r.code, out: r.stdout + r.stderr };
}

const toolWith = (command: string[]) => ({
  manifest: 'tool@1', name: 'evil', description: 'x', command,
  input_schema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false },
  output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1',
  limits: { timeout_ms: 1000, max_output_bytes: 1000 },
});

describe('interpreter code from arguments (pico manifests check)', () => {
  it('a wrapper in front of the interpreter does not hide it, and "--" does not hide -c', async () => {
    const forms = [
      ['sh', '-c', '--', '{x}'], ['timeout', '5', 'sh', '-c', '{x}'], ['nice', 'sh', '-c', '{x}'], ['setsid', 'sh', '-c', '{x}'],
      ['nohup', 'sh', '-c', '{x}'], ['stdbuf', '-o0', 'sh', '-c', '{x}'], ['find', '.', '-exec', 'sh', '-c', '{x}', ';'], ['xargs', 'sh', '-c', '{x}'],
    ];
    for (const command of forms) {
      const r = await checkManifests((root) => writeFileSync(join(root, 'manifests', 'tools', 'evil.json'), JSON.stringify(toolWith(command))));
      expect(r.code, JSON.stringify(command)).toBe(3);
      expect(r.out, JSON.stringify(command)).toMatch(/evil\.json.*command\.\d+.*as code/s);
    }
  }, 120_000);
});

describe('manifests that load but should not (pico manifests check)', () => {
  it('two schemas with one id are a load error naming both files', async () => {
    const r = await checkManifests((root) => {
      const dir = join(root, 'manifests', 'schemas');
      const name = readdirSync(dir).find((n) => n.endsWith('.json'))!;
      writeFileSync(join(dir, `copy-of-${name}`), readFileSync(join(dir, name)));
    });
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/copy-of-.*\.json/);
    expect(r.out).toMatch(/already|twice|duplicate/i);
  }, 30_000);

  it('a duplicate key within one manifest is a load error naming both lines', async () => {
    const r = await checkManifests((root) => {
      const text = JSON.stringify(toolWith(['cat']), null, 2).replace('"effect": "read_only"', '"effect": "destructive",\n  "effect": "read_only"');
      writeFileSync(join(root, 'manifests', 'tools', 'evil.json'), text);
    });
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/evil\.json.*"effect" appears twice, at line \d+ and again at line \d+/s);
  }, 30_000);

  it('a manifest that is not UTF-8 is a load error naming the byte', async () => {
    const r = await checkManifests((root) => {
      const text = Buffer.from(JSON.stringify(toolWith(['cat'])).replace('"x"', '"caf\u00e9"'), 'latin1');
      writeFileSync(join(root, 'manifests', 'tools', 'evil.json'), text);
    });
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/evil\.json.*not UTF-8/s);
  }, 30_000);

  it('one provider serving a control and a data capability is a load error', async () => {
    const r = await checkManifests((root) => {
      const dir = join(root, 'manifests', 'providers');
      const name = readdirSync(dir).find((n) => {
        const p = JSON.parse(readFileSync(join(dir, n), 'utf8')) as { implements?: string[] };
        return (p.implements ?? []).includes('plan@1');
      });
      if (!name) throw new Error('no shipped provider implements plan@1');
      const p = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { implements: string[]; security: Record<string, unknown> };
      p.implements.push('extract@1');
      p.security['extract@1'] = { max_trust_in: 'T1', may_emit_control: false };
      writeFileSync(join(dir, name), JSON.stringify(p, null, 2));
    });
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/control.*data capabilit|data.*control capabilit/i);
  }, 30_000);
});

describe('crash and recovery (real daemon)', () => {
  /** The pid of the worker recorded now that is not among `seen` (a new worker), polled every 2 ms. */
  const nextWorker = (root: string, seen: Set<number>) => until('a new worker to be recorded', () => {
    try {
      const pid = Number(readFileSync(join(root, 'sessions', '.daemon', 'worker'), 'utf8').split('\n')[0]);
      return pid > 0 && !seen.has(pid) ? pid : null;
    } catch {
      return null;
    }
  }, 20_000, 2);

  it('a worker SIGKILLed before READY is replaced: the daemon becomes ready and answers, every round', async () => {
    for (let round = 0; round < 3; round++) {
      const root = makeRoot('pico-doors-crash-');
      const d = startDaemon(root);
      process.kill(await nextWorker(root, new Set()), 'SIGKILL');
      const failed = await d.waitFor((l) => l.event === 'worker_start_failed', 20_000);
      expect(failed.attempt).toBe(1);
      await d.waitFor((l) => l.event === 'ready', 30_000);
      await answersFreshJob(d, root);
      await stopDaemon(d);
    }
  }, 180_000);

  it('a worker that keeps dying before READY stops the daemon after the last try, with the reason (exit 1: systemd restarts it)', async () => {
    const root = makeRoot('pico-doors-crash-loop-');
    const d = startDaemon(root);
    const seen = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const pid = await nextWorker(root, seen);
      seen.add(pid);
      process.kill(pid, 'SIGKILL');
    }
    expect(await d.exited).toBe(1);
    const fatal = d.lines.find((l) => l.event === 'failed' && l.level === 60);
    expect(String(fatal?.msg)).toMatch(/died before it was ready 5 times in a row \(.*killed by SIGKILL/);
    expect(d.lines.some((l) => l.event === 'ready')).toBe(false);
  }, 60_000);
});

/** GET path over the API's unix socket: status code and parsed body. */
function getOverSocket(socketPath: string, path: string): Promise<{ code: number; body: Record<string, unknown> }> {
  return new Promise((ok, fail) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => ok({ code: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('a pause for inodes shows (real daemon, real tmpfs)', () => {
  it.skipIf(tmpfsProbe !== null)('with free bytes but no free inodes, status.json, pico status and /health say paused; freeing inodes runs the job', async () => {
    const base = tempDir('pico-doors-inodes-');
    const mnt = join(base, 'mnt');
    mkdirSync(mnt);
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,nr_inodes=3000,mode=0700', 'tmpfs', mnt], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    try {
      const root = join(mnt, 'root');
      mkdirSync(join(root, 'sessions', 'inbox'), { recursive: true, mode: 0o700 });
      initRoot(root);
      const socket = join(base, 'api.sock');
      writeFileSync(join(root, 'settings.json'), JSON.stringify({ settings: 'settings@1', listen: `unix:${socket}` }));
      const d = await readyDaemon(root);
      await answersFreshJob(d, root); // a worker was up once; it may idle away
      const staged = join(root, 'staged-job.json');
      writeFileSync(staged, JSON.stringify(goodJob('interactive')));
      // use up every inode left, keeping the bytes free
      const filler = join(mnt, 'filler');
      mkdirSync(filler);
      for (let i = 0; ; i++) {
        try {
          writeFileSync(join(filler, String(i)), '');
        } catch (err) {
          expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
          break;
        }
      }
      expect(statfsSync(mnt).bavail).toBeGreaterThan(1000);
      const id = '20261202-000000-0123456789ab';
      renameSync(staged, join(root, 'sessions', 'inbox', `${id}.json`)); // a rename needs no new inode
      await d.waitFor((l) => l.event === 'paused', 30_000);
      const paused = await until('status.json to say paused', async () => {
        const s = JSON.parse((await pico(['status', '--root', root, '--json'])).stdout) as { status: { paused?: { code: string } | null } };
        return s.status.paused ?? null;
      }, 20_000, 200);
      expect(paused.code).toBe('ENOSPC');
      expect((await pico(['status', '--root', root])).stdout).toMatch(/paused: +ENOSPC/);
      const h = await getOverSocket(socket, '/health');
      expect(h.code).toBe(503);
      expect(h.body.paused).toMatchObject({ code: 'ENOSPC' });
      rmSync(filler, { recursive: true, force: true });
      await d.waitFor(finished(id), 30_000);
      await until('status.json to say the pause is over', async () => {
        const s = JSON.parse((await pico(['status', '--root', root, '--json'])).stdout) as { status: { paused?: unknown } };
        return s.status.paused == null;
      }, 20_000, 200);
      await stopDaemon(d);
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  }, 120_000);
});

describe('terminal injection', () => {
  it('pico show --full and pico watch print control characters from ledger text as escapes', async () => {
    const root = makeRoot('pico-doors-tty-');
    const job = { ...goodJob('interactive'), goal: 'why is the disk full?\u0007\u0008\r\u001b[2J\u001b]0;owned\u0007' };
    const jobFile = join(tempDir('pico-doors-job-'), 'job.json');
    writeFileSync(jobFile, JSON.stringify(job));
    const run = await pico(['run', jobFile, '--root', root, '--json']);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const show = await pico(['show', id, '--full', '--root', root]);
    const watch = await pico(['watch', id, '--root', root]);
    for (const out of [show.stdout, watch.stdout]) {
      expect(out).toContain('\\u001b[2J');
      expect(out).not.toMatch(/[\u0007\u0008\r\u001b]/);
    }
  }, 60_000);
});
