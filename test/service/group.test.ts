/**
 * Issue 15 item 9: "a `picoharness` group (members may submit jobs and read
 * results)". The layout install.sh makes (root 0750, sessions/inbox 2770, the
 * daemon under UMask=0027) is rebuilt in a temp folder with real users of
 * this machine: the daemon runs as `daemon` (uid 1), a member of the shared
 * group is `nobody` with the group `nogroup`, an outsider is `nobody` with
 * another group. Switching users needs root; elsewhere the suite is skipped.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { tempDir } from '../helpers/temp.js';
import { MAIN_JS } from '../daemon/spawn.js';
import { startDaemonToFile } from './daemon-file.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('not root: skipping the shared-group checks (they run processes as other users)');

const OWNER = { uid: 1, gid: 65534 }; // daemon, in the shared group nogroup
const MEMBER = { uid: 65534, gid: 65534 }; // nobody:nogroup
const OUTSIDER = { uid: 65534, gid: 2 }; // nobody, group bin only

/** chown -R */
function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) for (const n of readdirSync(path)) chownTree(join(path, n), uid, gid);
}

/** A root laid out as install.sh lays out /var/lib/picoharness, owned by OWNER. */
function sharedRoot(): { root: string; jobFile: string } {
  const top = tempDir('pico-group-');
  chmodSync(top, 0o755);
  const root = join(top, 'root');
  initRoot(root);
  chownTree(root, OWNER.uid, OWNER.gid);
  chmodSync(root, 0o750);
  chmodSync(join(root, 'sessions'), 0o750);
  chmodSync(join(root, 'sessions', 'inbox'), 0o2770);
  const jobFile = join(top, 'job.json');
  writeFileSync(jobFile, readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json')));
  chmodSync(jobFile, 0o644);
  return { root, jobFile };
}

/** A pico command as `who`, under a strict personal umask 077. */
function picoAs(who: { uid: number; gid: number }, args: string[]) {
  return spawnSync('sh', ['-c', 'umask 077; exec "$@"', 'sh', process.execPath, MAIN_JS, ...args], { ...who, encoding: 'utf8', timeout: 30_000 });
}

describe.skipIf(!isRoot)('the shared group of an installed root', () => {
  it('a member of the group submits with `pico submit` (umask 077), the daemon runs it, and the member reads status, watch, show and the result', async () => {
    const { root, jobFile } = sharedRoot();
    const log = join(root, '..', 'daemon.log');
    writeFileSync(log, '');
    const d = startDaemonToFile(root, log, { PICO_LOG_LEVEL: 'info' }, { ...OWNER, umask: '0027' });
    await d.waitFor((l) => l.includes('"event":"ready"'));
    const sub = picoAs(MEMBER, ['submit', jobFile, '--root', root]);
    expect(sub.status, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    await d.waitFor((l) => l.includes('"event":"finished"') && l.includes(id));
    const result = spawnSync('cat', [join(root, 'sessions', id, 'result.json')], { ...MEMBER, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'answered' });
    expect(statSync(join(root, 'sessions', id, 'result.json')).mode & 0o777).toBe(0o640); // group-readable, not world
    const status = picoAs(MEMBER, ['status', '--root', root, '--json']);
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'running' });
    for (const cmd of ['watch', 'show']) {
      const r = picoAs(MEMBER, [cmd, id, '--root', root]);
      expect(r.status, `pico ${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/answered/);
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 90_000);

  it('someone outside the group is refused by `pico submit` (exit 2) with the group to join, and nothing lands in the inbox', () => {
    const { root, jobFile } = sharedRoot();
    const r = picoAs(OUTSIDER, ['submit', jobFile, '--root', root]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/belongs to daemon \(uid 1\)/);
    expect(r.stderr).toMatch(/join the group nogroup, which may submit jobs: sudo usermod -aG nogroup nobody/);
    expect(readdirSync(join(root, 'sessions', 'inbox'))).toEqual([]);
  });

  it('a member is refused when the inbox is not group-writable, and told to chmod 2770 it', () => {
    const { root, jobFile } = sharedRoot();
    chmodSync(join(root, 'sessions', 'inbox'), 0o2750);
    const r = picoAs(MEMBER, ['submit', jobFile, '--root', root]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/you are in the group nogroup, but .*sessions\/inbox is not group-writable: chmod 2770 it/);
  });

  it('other commands that write stay the owner\'s alone, even for a member of the group', () => {
    const { root } = sharedRoot();
    const r = picoAs(MEMBER, ['memory', 'rebuild', '--root', root]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Run it as daemon: sudo -u daemon pico memory rebuild/);
  });
});
