/**
 * zod, as every module here reaches it: one import path, so one copy of it in a process.
 *
 * zod is some 95 modules (every locale among them). Loaded as they are, they cost each process
 * that validates anything — the daemon at every start, each new session worker — about 45 ms of
 * CPU before it can say ready, and the idle daemon over a megabyte of resident memory for their
 * source text and module records. So `npm run build` replaces the compiled form of this file
 * (dist/src/base/zod.js) with zod bundled into one minified module (scripts/bundle-zod.mjs);
 * where the bundle is not made (the tests, which run these sources), this file is zod itself.
 * Nothing else changes: the same functions, the same schemas, one zod per process.
 */
export { z } from 'zod';
