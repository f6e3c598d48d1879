// Runs in every test file (vitest.config.ts setupFiles): temp folders made through
// test/helpers/temp.ts are removed when the file's tests are done, and the fork's priority is the
// run's own again (vitest.config.ts raised the runner's).
//
// It also watches this worker's event loop. vitest's worker must keep answering its runner: a
// test that blocks the loop (spawnSync, execFileSync, a long synchronous computation) while a
// message to the runner is in flight fails the whole run with vitest's own RPC timeout
// (`onTimeoutError`, 60 s, not configurable), not with an assertion — and on a loaded box a
// block that takes 15 s on a quiet one takes a minute. So the longest block of each test is
// measured, and one over BLOCK_WARN_MS is named on stderr with the fix (make that work
// asynchronous: test/daemon/spawn.ts `picoAsync`). PICO_TEST_BLOCKS=FILE also appends every
// block over a second to FILE, one JSON line each, to find them across a run. Nothing fails here:
// how long a block takes is the machine's business, not a claim.
import { appendFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { removeTempDirs } from './helpers/temp.js';

afterAll(removeTempDirs);

// the runner raised its own priority above this fork's (vitest.config.ts): the fork, and every
// process a test starts, goes back to the priority the run was started with
if (process.env.PICO_TEST_NICE !== undefined) setPriority(Number(process.env.PICO_TEST_NICE));

const TICK_MS = 200;
const BLOCK_WARN_MS = 20_000;
// captured before any test can fake the timers
const realSetInterval = globalThis.setInterval;
const now = (): number => Number(process.hrtime.bigint() / 1_000_000n);
let last = now();
let longest = 0;
realSetInterval(() => {
  const t = now();
  longest = Math.max(longest, t - last - TICK_MS);
  last = t;
}, TICK_MS).unref();

/** Say a block of `blocked` ms that happened in `where`, when it is long enough to matter. */
function report(where: string, blocked: number): void {
  if (blocked < 1_000) return;
  if (process.env.PICO_TEST_BLOCKS) appendFileSync(process.env.PICO_TEST_BLOCKS, `${JSON.stringify({ test: where, blocked_ms: Math.round(blocked) })}\n`);
  if (blocked >= BLOCK_WARN_MS) {
    process.stderr.write(`test blocked its worker's event loop for ${Math.round(blocked / 1000)} s: ${where}; vitest's RPC times out after 60 s of that — make the blocking work asynchronous (picoAsync, spawn)\n`);
  }
}

const nameOf = (ctx: { task: { name: string; file?: { name: string } } }): string => `${ctx.task.file?.name ?? '?'} > ${ctx.task.name}`;

beforeEach((ctx) => {
  // what blocked since the last test ended: a beforeAll, a module's top level
  report(`${nameOf(ctx)} (before it: hooks or module loading)`, Math.max(longest, now() - last - TICK_MS));
  longest = 0;
  last = now();
});

afterEach((ctx) => {
  report(nameOf(ctx), Math.max(longest, now() - last - TICK_MS)); // a block that ran to the test's end counts too
  longest = 0;
  last = now();
});
