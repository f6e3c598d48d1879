import { availableParallelism, getPriority, setPriority } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Unit and end-to-end suites live under test/. End-to-end suites spawn the
// compiled daemon from dist/, which `npm test` builds first (pretest).
//
// How a full run stays short on a 2-core box (issue 21: `npm test` in 8 minutes):
// most of the slow files wait rather than compute — a real daemon started and
// stopped, a job's tool sleeping so a signal lands mid-step, a poll interval —
// so the files run side by side, each in a fork of its own (isolated: no module
// state, umask or environment leaks between files), twice as many forks as
// cores. The few files whose claims are about wall time or about exhausting
// the machine (a budget's limit plus its grace, a shutdown's grace, a fork
// bomb, a process forking as fast as it can, progress lines every 2 s) would
// measure their neighbours instead:
// they are the project `alone`, run one after another once the parallel
// files are done. PICO_TEST_WORKERS sets the number of forks.
//
// The CPU-bound files (a real model decoding) are spread among the others
// (CPU_BOUND, SpreadSequencer); PICO_TEST_ORDER=1 prints the order.
//
// `npm run test:quick` (PICO_TEST_QUICK=1) runs the inner loop's set: every
// file but the end-to-end ones (a real daemon, install.sh, the README walk),
// which are the slow ones; `npm test` runs them all before a commit.

/** Files whose claims are about wall time or whole-machine limits: run one at a time, with nothing beside them. */
export const ALONE = [
  'test/daemon/e2e-budget.test.ts', // an interactive job ends within its 5 s limit plus the grace
  'test/runtime/budget-ceiling.test.ts', // a wall budget is kept to within its grace
  'test/daemon/e2e-shutdown.test.ts', // SIGTERM: the step is killed after a 1.5 s grace
  'test/daemon/signals.test.ts', // a drain that outlives the grace is forced
  'test/world/escape.test.ts', // a fork bomb and a 2 GB allocation against the world's limits
  'test/daemon/proc-tree.test.ts', // a process forking as fast as it can, frozen and killed with its tree
  'test/progress/e2e-run-watch.test.ts', // a progress line every 2 s in a pipe
  'test/service/hangup.test.ts', // a terminal hung up while the daemon exits: Node's own stdio reset races a loaded machine
  'test/models/swap.test.ts', // a model's two failed calls then the escalation, each call within its time limit
];

/** Files left out of `npm run test:quick`: the end-to-end suites (a real daemon, install.sh, the README walk, a real model) and the few others that take minutes. */
export const SLOW = [
  'test/**/e2e-*.test.ts',
  'test/service/**',
  'test/readme/commands.test.ts',
  'test/readme/examples.test.ts',
  'test/models/gguf*.test.ts',
  'test/models/progress.test.ts',
  'test/models/swap.test.ts',
  'test/models/models-cli.test.ts',
  'test/models/provision*.test.ts',
  'test/agent/model-planner.test.ts',
  'test/eval/stories.test.ts',
  'test/eval/recorded.test.ts', // every case of two corpora through the CLI
  'test/counterfactual/replay.test.ts', // whole sessions again under other policies
  'test/status/flags.test.ts', // real daemons
  'test/daemon/observers.test.ts',
  'test/daemon/notify.test.ts',
  'test/cli/data-root.test.ts',
];

/**
 * Files that keep a core busy for minutes: a real model decoding on the CPU (50 seeded plans,
 * provisioning's thread sweep, the eval stories). Side by side they only slow each other (and
 * trip their own time limits); the sequencer spreads them among the waiting files.
 */
export const CPU_BOUND = [
  /^test\/agent\/model-planner\.test\.ts$/,
  /^test\/models\/(gguf|gguf-cycles|swap|models-cli|provision|provision-root|progress)\.test\.ts$/,
  /^test\/eval\/stories\.test\.ts$/,
  /^test\/api\/e2e-model-load\.test\.ts$/,
  /^test\/readme\/commands\.test\.ts$/,
];

// The runner answers every fork's calls (a test's start and end, a module to load), and a fork
// whose call is not answered within vitest's fixed 60 s fails the whole run (`onTimeoutError`)
// rather than a test. On a busy box (issue 36: a load of 15 on 2 cores) a runner that shares the
// CPU evenly with the forks and their daemons answers late. So the runner takes a higher priority
// than everything else the run starts, and each fork gives it back for itself and its children
// (test/setup.ts reads PICO_TEST_NICE). Only root may raise a priority; elsewhere the runner shares
// the CPU as before, and test/setup.ts names the tests that block a fork instead.
const RUNNER_BOOST = 5;
if (process.env.PICO_TEST_NICE === undefined) {
  const nice = getPriority();
  try {
    setPriority(Math.max(-20, nice - RUNNER_BOOST));
    process.env.PICO_TEST_NICE = String(nice);
  } catch {
    // not root: the runner keeps its priority
  }
}

const quick = process.env.PICO_TEST_QUICK === '1';
const workers = Number(process.env.PICO_TEST_WORKERS) || Math.max(2, 2 * availableParallelism());

/**
 * vitest's order (failed first, then the longest), with the CPU-bound files spread out: one of
 * them, then as many other files as there are forks besides it, so at most about one model runs
 * at a time while the rest wait on daemons and sleeps.
 */
class SpreadSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const heavy = (f: TestSpecification) => CPU_BOUND.some((re) => re.test(relative(process.cwd(), f.moduleId)));
    const cpu = sorted.filter(heavy);
    const rest = sorted.filter((f) => !heavy(f));
    const out: TestSpecification[] = [];
    while (cpu.length > 0 || rest.length > 0) {
      if (cpu.length > 0) out.push(cpu.shift()!);
      out.push(...rest.splice(0, Math.max(1, workers - 1)));
    }
    if (process.env.PICO_TEST_ORDER) console.error(out.map((f) => relative(process.cwd(), f.moduleId)).join('\n'));
    return out;
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: workers, minForks: 1, isolate: true } },
    setupFiles: ['test/setup.ts'],
    sequence: { sequencer: SpreadSequencer },
    projects: [
      // include and exclude are per project: extending merges arrays, so the root names none
      { extends: true, test: { name: 'parallel', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...ALONE, ...(quick ? SLOW : [])] } },
      { extends: true, test: { name: 'alone', include: ALONE, exclude: ['**/node_modules/**', ...(quick ? SLOW : [])], poolOptions: { forks: { singleFork: true, isolate: true } } } },
    ],
  },
});
