/**
 * Follow-up bench rows (issue 31): how long a two-round "why" answer takes,
 * measured against the `interactive` budget it must fit (5 s wall, of which 80 %
 * may be spent before a step stops starting). The example data is a small
 * tmpfs staged full of folders of real files in a private mount namespace, so
 * df finds it fullest and the disk playbook looks further twice (du of the
 * filesystem, then of its biggest folder); `pico run` (the compiled CLI) asks
 * "Why is the disk full?" there, as a user would. The same goal on this
 * machine's own disks (nothing full: no second look) is the one-round row.
 * Each figure is the median of five runs; the budget row is the session's own
 * spent wall time (what the budget counts), the process row includes node's
 * start. Without private mount namespaces (not root, no user namespaces) the
 * two-round rows say why they are missing.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initRoot } from '../src/root/init.js';
import { BUDGETS } from '../src/runtime/settings.js';
import type { BenchRow } from './types.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RUNS = 5;

interface Run { processMs: number; spentMs: number; rounds: number; outcome: string }

/** One `pico run` of the goal (inside `unshare -m` after `stage` when given); what its ledger says. */
function once(root: string, job: string, stage: string | null): Run {
  const cmd = `"${process.execPath}" "${MAIN}" run "${job}" --root "${root}" --json`;
  const t0 = performance.now();
  const r = stage ? spawnSync('unshare', ['-m', 'sh', '-c', `${stage} && exec ${cmd}`], { encoding: 'utf8' }) : spawnSync('sh', ['-c', cmd], { encoding: 'utf8' });
  const processMs = performance.now() - t0;
  const id = (JSON.parse(r.stdout) as { session_id: string }).session_id;
  const events = readFileSync(path.join(root, 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; round?: number; outcome?: string; spent?: { wall_ms: number } });
  const sent = events.find((e) => e.type === 'answer_sent')!;
  return { processMs, spentMs: sent.spent!.wall_ms, rounds: Math.max(0, ...events.filter((e) => e.type === 'plan_extended').map((e) => e.round!)), outcome: sent.outcome! };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchFollowups(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pico-bench-followups-'));
  const budget = BUDGETS.interactive.wall_ms;
  // df, run as the tools' unprivileged user, lists only mounts it may reach: the staged disk's parent must be open
  chmodSync(dir, 0o755);
  try {
    const root = path.join(dir, 'root');
    initRoot(root);
    const job = path.join(dir, 'why.json');
    writeFileSync(job, JSON.stringify({ job: 'job@1', goal: 'Why is the disk full?', budget_class: 'interactive' }));
    const mnt = path.join(dir, 'disk');
    const stage = [
      'mount --make-rprivate /', `mkdir -p ${mnt}`, `mount -t tmpfs -o size=64m tmpfs ${mnt}`,
      `mkdir -p ${mnt}/home/pi/videos ${mnt}/home/pi/music ${mnt}/var/backups ${mnt}/var/log/journal`,
      `head -c 30M /dev/urandom > ${mnt}/home/pi/videos/holiday.mp4`, `head -c 14M /dev/urandom > ${mnt}/home/pi/music/album.flac`,
      `head -c 9M /dev/urandom > ${mnt}/var/backups/etc.tar`, `head -c 3M /dev/urandom > ${mnt}/var/log/journal/system.journal`,
    ].join(' && ');
    const rows: BenchRow[] = [];
    const one = Array.from({ length: RUNS }, () => once(root, job, null));
    const probe = spawnSync('unshare', ['-m', 'true'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      rows.push({ group: 'followups', name: 'two-round why answer (staged full disk)', value: NaN, unit: 'ms', note: `skipped: unshare -m failed (${(probe.stderr || '').trim()}); needs root or user namespaces` });
    } else {
      const two = Array.from({ length: RUNS }, () => once(root, job, stage));
      const rounds = median(two.map((r) => r.rounds));
      const spent = median(two.map((r) => r.spentMs));
      rows.push(
        { group: 'followups', name: 'two-round why answer: budget spent (p50 of 5)', value: spent, unit: 'ms', note: `${rounds} follow-up rounds; ${(spent / budget * 100).toFixed(0)} % of the interactive ${budget} ms; outcomes ${[...new Set(two.map((r) => r.outcome))].join('/')}` },
        { group: 'followups', name: 'two-round why answer: budget spent (max of 5)', value: Math.max(...two.map((r) => r.spentMs)), unit: 'ms', note: `goal <= ${budget} (interactive)` },
        { group: 'followups', name: 'two-round why answer: pico run wall (p50 of 5)', value: Math.round(median(two.map((r) => r.processMs))), unit: 'ms', note: 'the whole process, node start included' },
      );
    }
    rows.push(
      { group: 'followups', name: 'one-round why answer (no second look): budget spent (p50 of 5)', value: median(one.map((r) => r.spentMs)), unit: 'ms', note: `${median(one.map((r) => r.rounds))} follow-up rounds on this machine's own disks` },
      { group: 'followups', name: 'one-round why answer: pico run wall (p50 of 5)', value: Math.round(median(one.map((r) => r.processMs))), unit: 'ms' },
    );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
