/**
 * Issue 3, "Done when": "The shipped unit's systemd-analyze exposure is
 * ≤ 2.5, checked automatically"; issue 15 lowers it: "`systemd-analyze
 * security` stays at or below 2.0", and "the unit changes are checked by
 * `systemd-analyze verify`". Also the notify, state, user and reload settings
 * the daemon and install.sh rely on.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../bench/daemon.js';

const UNIT = fileURLToPath(new URL('../../systemd/picoharness.service', import.meta.url));
const text = readFileSync(UNIT, 'utf8');
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const haveAnalyze = analyze.status === 0;
if (!haveAnalyze) console.warn('systemd-analyze not found (Debian: apt install systemd): skipping the exposure and verify checks of systemd/picoharness.service');

/** All values of a directive in the unit. */
function values(key: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
}

describe('systemd/picoharness.service', () => {
  it.skipIf(!haveAnalyze)('systemd-analyze security rates the unit at an exposure of 2.0 or lower', () => {
    const r = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT], { encoding: 'utf8' });
    const m = /Overall exposure level for picoharness\.service: ([0-9.]+)/.exec(r.stdout + r.stderr);
    expect(m, r.stdout + r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(2.0);
  });

  it.skipIf(!haveAnalyze)('systemd-analyze verify finds nothing wrong in the unit (unknown keys, bad values, a missing node)', () => {
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', UNIT], { encoding: 'utf8' });
    // a line about ExecStart's app path is expected where /opt/picoharness is not installed (a build box); nothing else
    const complaints = (r.stdout + r.stderr).split('\n').filter((l) => l.trim() !== '' && !l.includes('/opt/picoharness/'));
    expect(complaints).toEqual([]);
  });

  it('runs as the static user and group picoharness, also in adm (for /var/log), with a private tmp and no home', () => {
    expect(values('User')).toEqual(['picoharness']);
    expect(values('Group')).toEqual(['picoharness']);
    expect(values('DynamicUser')).toEqual([]);
    expect(values('SupplementaryGroups')).toEqual(['adm']);
    expect(values('PrivateUsers')).toEqual([]); // it would unmap adm
    expect(values('UMask')).toEqual(['0027']); // group-readable results for the group's members
    expect(values('ProtectHome')).toEqual(['yes']);
    expect(values('PrivateTmp')).toEqual(['yes']);
  });

  it('reloads with SIGHUP to the main process (systemctl reload)', () => {
    expect(values('ExecReload')).toEqual(['/bin/kill -HUP $MAINPID']);
  });

  it('is Type=notify with a watchdog, NotifyAccess=all for the helper, and its root in StateDirectory', () => {
    expect(values('Type')).toEqual(['notify']);
    expect(values('NotifyAccess')).toEqual(['all']);
    expect(Number(values('WatchdogSec')[0])).toBeGreaterThan(0);
    expect(values('StateDirectory')).toEqual(['picoharness']);
    expect(values('ExecStart')[0]).toMatch(/dist\/src\/cli\/main\.js daemon --root \/var\/lib\/picoharness$/);
  });

  it('runs node with the same flags and memory environment the bench measures idle RSS with', () => {
    const exec = values('ExecStart')[0]!.split(/\s+/);
    expect(exec.slice(1, 1 + DAEMON_NODE_FLAGS.length)).toEqual(DAEMON_NODE_FLAGS);
    const env = Object.fromEntries(values('Environment').flatMap((v) => v.split(/\s+/)).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    for (const [k, v] of Object.entries(DAEMON_ENV)) expect(env[k], k).toBe(v);
  });

  it('stops after the daemon\'s own grace period, and never sets MemoryDenyWriteExecute (V8 needs W+X)', () => {
    expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(20); // DEFAULT_GRACE_MS is 20 s
    expect(values('MemoryDenyWriteExecute')).toEqual([]);
  });
});
