/**
 * The session worker, started from its bundle: what the daemon forks when `npm run build` made
 * dist/bundle/worker.cjs (worker-fork.ts). The bundle is worker.ts and all it loads, in one
 * CommonJS file run through V8's code cache (base/bundle-run.ts, issue 32); it behaves as
 * worker.ts does. Its V8 flags (no optimising compiler) are set by the runner, not given on its
 * command line, so that node's own modules come from node's code cache (bundle-run.ts).
 */
import { fileURLToPath } from 'node:url';
import { runBundle } from '../base/bundle-run.js';
import { WORKER_V8_FLAGS } from './worker-protocol.js';

runBundle(fileURLToPath(new URL('../../bundle/worker.cjs', import.meta.url)), 'missing', process.env, WORKER_V8_FLAGS);
