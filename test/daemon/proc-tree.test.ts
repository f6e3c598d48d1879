// The worker's process tree is stopped as one (issue 14 item 8): real processes, no mocks.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { descendants, killTree, procStat } from '../../src/daemon/proc-tree.js';

const MARK = String(800_000 + (process.pid % 90_000));

function marked(): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      if (readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(MARK) && procStat(Number(n))?.state !== 'Z') out.push(Number(n));
    } catch {
      // gone
    }
  }
  return out;
}

afterEach(() => {
  for (const p of marked()) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function settle(pred: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await sleep(20);
}

describe('killTree', () => {
  it('kills a process, its children, and a grandchild that moved to a process group of its own', async () => {
    // sh → (sh in a new group via setsid → sleep) and sh → sleep
    const top = spawn('sh', ['-c', `sleep ${MARK} & setsid sh -c 'sleep ${MARK}; :' & wait`], { stdio: 'ignore' });
    // wait for the three below the top (the top's own command line holds MARK too, so three marked
    // processes could be the top and two of them)
    await settle(() => descendants(top.pid!).length >= 3);
    expect(descendants(top.pid!).length).toBeGreaterThanOrEqual(3);
    killTree(top.pid!);
    await settle(() => marked().length === 0);
    expect(marked()).toEqual([]);
  });

  it('a process forking as fast as it can is frozen and killed with everything it started', async () => {
    const top = spawn('sh', ['-c', `while :; do sleep ${MARK} & done`], { stdio: 'ignore' });
    await settle(() => marked().length >= 50);
    const killed = killTree(top.pid!);
    expect(killed.length).toBeGreaterThanOrEqual(50);
    await settle(() => marked().length === 0);
    expect(marked()).toEqual([]);
  });

  it('a pid that is gone is not an error', () => {
    expect(() => killTree(2 ** 22 + 12345)).not.toThrow();
  });
});
