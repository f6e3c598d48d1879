/**
 * Issue 25, the parts that need no server: "the daemon must then treat a fleet
 * job id that already exists as already taken", the hub appends "only when its
 * seq is the next one (so the hub's dedup does not depend on the server's
 * window)", and the names every part shares.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { fleetInboxName, fleetJobId } from '../../src/daemon/claim.js';
import { takeIn } from '../../src/daemon/intake.js';
import { daemonPaths, sessionFiles } from '../../src/daemon/paths.js';
import { HubStore, boxSessionsDir } from '../../src/fleet/hub-store.js';
import { eventSubject, jobConsumer, jobSubject, parseEventSubject, parseSelector, token } from '../../src/fleet/names.js';
import { parseFleetJob } from '../../src/fleet/envelope.js';
import { goodJob, tempRoot } from '../daemon/helpers.js';
import { tempDir } from '../helpers/temp.js';

const quiet = pino({ level: 'silent' });
const ID = '20261202-010203-0123456789ab';

describe('the daemon and fleet job ids', () => {
  it('a fleet job whose session exists is taken already: its inbox copy is removed unrun, not run under a new id', async () => {
    const p = daemonPaths(tempRoot());
    writeFileSync(join(p.inbox, fleetInboxName(ID)), JSON.stringify(goodJob()));
    const first = await takeIn(p, [fleetInboxName(ID)], quiet);
    expect(first.claimed.map((c) => c.id)).toEqual([ID]);
    // the agent drops the same job again (a crash between drop and ack): nothing new runs
    writeFileSync(join(p.inbox, fleetInboxName(ID)), JSON.stringify(goodJob()));
    const second = await takeIn(p, [fleetInboxName(ID)], quiet);
    expect(second.claimed).toEqual([]);
    expect(second.failed).toEqual([]);
    expect(readdirSync(p.inbox)).toEqual([]);
    expect(readdirSync(p.sessions).filter((n) => /^\d{8}-/.test(n))).toEqual([ID]);
    expect(existsSync(sessionFiles(p, ID).job)).toBe(true);
  });

  it('a plain job name whose id exists still runs under a new id (the fleet rule is only for fleet jobs)', async () => {
    const p = daemonPaths(tempRoot());
    writeFileSync(join(p.inbox, `${ID}.json`), JSON.stringify(goodJob()));
    await takeIn(p, [`${ID}.json`], quiet);
    writeFileSync(join(p.inbox, `${ID}.json`), JSON.stringify(goodJob()));
    const again = await takeIn(p, [`${ID}.json`], quiet);
    expect(again.claimed).toHaveLength(1);
    expect(again.claimed[0]!.id).not.toBe(ID);
  });

  it('only fleet-<session id>.json names are fleet jobs', () => {
    expect(fleetJobId(fleetInboxName(ID))).toBe(ID);
    expect(fleetJobId(`${ID}.json`)).toBeNull();
    expect(fleetJobId('fleet-../x.json')).toBeNull();
    expect(fleetJobId('fleet-disk.json')).toBeNull();
  });
});

describe('the hub store', () => {
  const line = (seq: number): string => JSON.stringify({ seq, t: '2026-12-02T00:00:00Z', type: 'user_input', session_id: ID, text: `line ${seq}` });

  it('appends in seq order: a second copy is dropped, an early line waits, whatever order they come in', async () => {
    const root = tempDir('pico-hub-');
    const s = new HubStore(root);
    expect(s.offer('b1', ID, 0, line(0))).toBe('appended');
    expect(s.offer('b1', ID, 2, line(2))).toBe('early');
    expect(s.offer('b1', ID, 0, line(0))).toBe('duplicate');
    expect(s.offer('b1', ID, 1, line(1))).toBe('appended');
    expect(s.offer('b1', ID, 2, line(2))).toBe('appended');
    expect(await s.flush()).toEqual([join(boxSessionsDir(root, 'b1'), ID)]);
    s.close();
    const text = readFileSync(join(boxSessionsDir(root, 'b1'), ID, 'events.jsonl'), 'utf8');
    expect(text).toBe([0, 1, 2].map(line).join('\n') + '\n');
  });

  it('after a crash mid-append, a reopened store cuts the torn tail and continues at the next seq', () => {
    const root = tempDir('pico-hub-');
    const s = new HubStore(root);
    s.offer('b1', ID, 0, line(0));
    s.offer('b1', ID, 1, line(1));
    s.close();
    const path = join(boxSessionsDir(root, 'b1'), ID, 'events.jsonl');
    appendFileSync(path, line(2).slice(0, 10)); // the crash
    const again = new HubStore(root);
    expect(again.offer('b1', ID, 1, line(1))).toBe('duplicate');
    expect(again.offer('b1', ID, 2, line(2))).toBe('appended');
    again.close();
    expect(readFileSync(path, 'utf8')).toBe([0, 1, 2].map(line).join('\n') + '\n');
  });

  it('a line is written to its file at the flush, whole, and only lines of the right seq are', async () => {
    const root = tempDir('pico-hub-');
    const s = new HubStore(root);
    const path = join(boxSessionsDir(root, 'b1'), ID, 'events.jsonl');
    for (const seq of [0, 1, 2]) s.offer('b1', ID, seq, line(seq));
    s.offer('b1', ID, 1, line(1));
    expect(readFileSync(path, 'utf8')).toBe(''); // held until the flush
    const before = s.syncs;
    await s.flush();
    expect(s.syncs - before).toBe(1); // one file, one sync, for three lines
    expect(readFileSync(path, 'utf8')).toBe([0, 1, 2].map(line).join('\n') + '\n');
    s.offer('b1', ID, 3, line(3));
    s.close(); // what was not flushed is written on close
    expect(readFileSync(path, 'utf8')).toBe([0, 1, 2, 3].map(line).join('\n') + '\n');
  });

  it('keeps boxes apart: the same session id under two boxes is two files', () => {
    const root = tempDir('pico-hub-');
    const s = new HubStore(root);
    s.offer('b1', ID, 0, line(0));
    expect(s.offer('b2', ID, 0, line(0))).toBe('appended');
    s.close();
    expect(existsSync(join(boxSessionsDir(root, 'b2'), ID, 'events.jsonl'))).toBe(true);
  });
});

describe('fleet names', () => {
  it('a selector value with a dot or a wildcard becomes one subject token', () => {
    expect(token('qwen2.5-1.5b')).toBe('qwen2~2e5-1~2e5b');
    expect(token('a*b>c d')).not.toMatch(/[.*> ]/);
    expect(jobSubject({ kind: 'cap', value: 'extract@1' })).toBe('pico.job.cap.extract@1');
    expect(jobConsumer({ kind: 'model', value: 'x.y' })).toBe('job_model_x~2ey');
  });

  it('reads --to as box=, model= or cap= and refuses anything else', () => {
    expect(parseSelector('box=shop-17')).toEqual({ kind: 'box', value: 'shop-17' });
    expect(parseSelector('model=qwen2.5')).toEqual({ kind: 'model', value: 'qwen2.5' });
    expect(parseSelector('box=../etc')).toBeNull();
    expect(parseSelector('host=x')).toBeNull();
    expect(parseSelector('cap=')).toBeNull();
  });

  it('an event subject names its box and session, and nothing else parses as one', () => {
    expect(parseEventSubject(eventSubject('b1', ID))).toEqual({ box: 'b1', session: ID });
    expect(parseEventSubject('pico.job.box.b1')).toBeNull();
  });

  it('a fleet job message with a bad job is refused with the field that is wrong', () => {
    const bad = { fleet_job: 'fleet-job@1', id: ID, to: 'box=b1', submitted_at: 'now', job: { ...goodJob(), budget: 1 } };
    expect(() => parseFleetJob(Buffer.from(JSON.stringify(bad)))).toThrow(/unknown field/);
    expect(() => parseFleetJob(Buffer.from(JSON.stringify({ ...bad, id: '../x' })))).toThrow(/not a session id/);
  });
});

describe('the fleet systemd units', () => {
  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  for (const name of ['picoharness-fleet-agent', 'picoharness-fleet-hub']) {
    const unit = fileURLToPath(new URL(`../../systemd/${name}.service`, import.meta.url));
    it.skipIf(!analyze)(`${name}: systemd-analyze rates it at 2.0 or lower and verify finds nothing wrong`, () => {
      const sec = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', unit], { encoding: 'utf8' });
      const m = /Overall exposure level for [\w-]+\.service: ([0-9.]+)/.exec(sec.stdout + sec.stderr);
      expect(m, sec.stdout + sec.stderr).not.toBeNull();
      expect(Number(m![1])).toBeLessThanOrEqual(2.0);
      const v = spawnSync('systemd-analyze', ['verify', '--man=no', unit], { encoding: 'utf8' });
      expect((v.stdout + v.stderr).split('\n').filter((l) => l.trim() !== '' && !l.includes('/opt/picoharness/') && !l.includes('/etc/picoharness/'))).toEqual([]);
    });
  }

  it('the agent runs as the daemon\'s user on the daemon\'s root, and takes its settings from an environment file, never the command line', () => {
    const text = readFileSync(fileURLToPath(new URL('../../systemd/picoharness-fleet-agent.service', import.meta.url)), 'utf8');
    expect(text).toMatch(/^User=picoharness$/m);
    expect(text).toMatch(/^EnvironmentFile=\/etc\/picoharness\/fleet\.env$/m);
    expect(text).toMatch(/^ExecStart=.* fleet agent --root \/var\/lib\/picoharness$/m);
    expect(text).not.toMatch(/^ExecStart=.*(PASSWORD|--creds)/m);
  });
});
