// `pico eval --goals` counts, for goals that ask why, whether the answer names a cause (issue 31):
// such a goal is run whole on this machine's tools; a second look that found something counts, one
// that found only "unknown here", or none at all, is a miss saying which. Real tools, a real process
// holding memory.
import { spawn, spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateGoals, renderGoalTable } from '../../src/eval/goals/index.js';
import { tempDir } from '../helpers/temp.js';

describe('pico eval --goals: why goals', () => {
  it('a why goal is run whole and counted as naming a cause when a follow-up found one; the others are misses that say why', async () => {
    const py = spawnSync('python3', ['-c', 'import os, sys; print(os.path.realpath(sys.executable))'], { encoding: 'utf8' }).stdout.trim();
    const bin = tempDir('pico-eval-memhog-');
    symlinkSync(py || '/usr/bin/python3', join(bin, 'memhog'));
    // the hog is started by a shell that exits at once, so it is no descendant of this process: in-process
    // runs name this process as the agent's own (PICO_WORKER_PID), and its whole subtree is left out
    const code = 'import time\nb = bytearray(400 * 1024 * 1024)\nprint("held", flush=True)\ntime.sleep(120)';
    const sh = spawn('/bin/sh', ['-c', `"$0" -c "$1" & echo "pid $!"`, join(bin, 'memhog'), code], { stdio: ['ignore', 'pipe', 'ignore'] });
    let hogPid = 0;
    try {
      await new Promise<void>((resolve) => {
        let out = '';
        sh.stdout!.on('data', (b: Buffer) => {
          out += b.toString();
          hogPid = Number(/pid (\d+)/.exec(out)?.[1] ?? 0);
          if (out.includes('held')) resolve();
        });
      });
      const file = join(tempDir('pico-why-goals-'), 'why.json');
      writeFileSync(file, JSON.stringify({ format: 'goals@1', goals: [
        { id: 'mem', goal: 'what is eating all my memory?', kind: 'answerable', parts: [{ tools: ['memory_usage'], why: true }] },
        { id: 'pkgs', goal: 'which packages can be upgraded?', kind: 'answerable', parts: [{ tools: ['apt_upgradable'] }] },
        { id: 'net', goal: 'why is the wifi down?', kind: 'answerable', parts: [{ tools: ['network'], why: true }] },
      ] }));
      const e = await evaluateGoals(file);
      const runs = Object.fromEntries(e.runs.map((r) => [r.id, r]));
      expect(runs.pkgs!.cause).toBeUndefined();
      expect(runs.mem!.cause, JSON.stringify({ outcome: runs.mem!.outcome, steps: runs.mem!.steps, answer: runs.mem!.answer })).toMatchObject({ named: true, looked: expect.arrayContaining(['top_memory']) });
      expect(e.score.why_causes.of).toBe(2);
      expect(e.score.why_causes.n).toBe(1 + Number(runs.net!.cause!.named));
      if (!runs.net!.cause!.named) expect(e.score.misses).toContainEqual(expect.objectContaining({ id: 'net', what: 'cause' }));
      expect(renderGoalTable(e)).toMatch(/why goals whose answer names a cause \(this machine\) +\d\/2/);
    } finally {
      if (hogPid > 0) try { process.kill(hogPid, 'SIGKILL'); } catch { /* gone */ }
    }
  }, 120_000);
});
