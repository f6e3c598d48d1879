/**
 * Issue 3, "Done when": "The shipped unit's systemd-analyze exposure is
 * ≤ 2.5, checked automatically." Also the notify and state settings the
 * daemon relies on.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '../../bench/daemon.js';

const UNIT = fileURLToPath(new URL('../../systemd/picoharness.service', import.meta.url));
const text = readFileSync(UNIT, 'utf8');
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const haveAnalyze = analyze.status === 0;
if (!haveAnalyze) console.warn('systemd-analyze not found: skipping the exposure check of systemd/picoharness.service');

/** All values of a directive in the unit. */
function values(key: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
}

describe('systemd/picoharness.service', () => {
  it.skipIf(!haveAnalyze)('systemd-analyze security rates the unit at an exposure of 2.5 or lower', () => {
    const r = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT], { encoding: 'utf8' });
    const m = /Overall exposure level for picoharness\.service: ([0-9.]+)/.exec(r.stdout + r.stderr);
    expect(m, r.stdout + r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(2.5);
  });

  it('is Type=notify with a watchdog, NotifyAccess=all for the helper, and its root in StateDirectory', () => {
    expect(values('Type')).toEqual(['notify']);
    expect(values('NotifyAccess')).toEqual(['all']);
    expect(Number(values('WatchdogSec')[0])).toBeGreaterThan(0);
    expect(values('StateDirectory')).toEqual(['picoharness']);
    expect(values('ExecStart')[0]).toMatch(/dist\/src\/cli\/main\.js daemon --root \/var\/lib\/picoharness$/);
  });

  it('runs node with the same flags the bench measures idle RSS with', () => {
    const exec = values('ExecStart')[0]!.split(/\s+/);
    expect(exec.slice(1, 1 + DAEMON_NODE_FLAGS.length)).toEqual(DAEMON_NODE_FLAGS);
  });

  it('stops after the daemon\'s own grace period, and never sets MemoryDenyWriteExecute (V8 needs W+X)', () => {
    expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(20); // DEFAULT_GRACE_MS is 20 s
    expect(values('MemoryDenyWriteExecute')).toEqual([]);
  });
});
