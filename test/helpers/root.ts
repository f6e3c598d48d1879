// Test roots: real folders made like `pico init` does, with the shipped defaults.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initRoot } from '../../src/root/init.js';
import { tempDir } from './temp.js';
import { parseJob, type Job } from '../../src/runtime/job.js';
import { writeFileAtomicSync } from '../../src/base/durable-file.js';
import { newSessionId } from '../../src/ledger/session-id.js';
import type { Runtime } from '../../src/root/runtime.js';

export const REPO = join(import.meta.dirname, '..', '..');

export function makeRoot(prefix = 'pico-root-'): string {
  const root = tempDir(prefix);
  initRoot(root);
  return root;
}

export function exampleJob(): Job {
  return parseJob(JSON.parse(readFileSync(join(REPO, 'examples/jobs/why-is-the-disk-full.json'), 'utf8')));
}

/** Write a JSON file into the root (creating folders). */
export function put(root: string, rel: string, value: unknown): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** Write an executable shell script into the root. */
export function script(root: string, rel: string, body: string): void {
  put(root, rel, `#!/bin/sh\n${body}\n`);
  chmodSync(join(root, rel), 0o755);
}

/** A shell provider manifest for extract@1. */
export function shellProvider(id: string, command: string[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    manifest: 'provider@1', id, implements: ['extract@1'], kind: 'shell', command,
    limits: { timeout_ms: 5000, max_output_bytes: 65536 }, max_input_bytes: 262144, resource: null, cost: null,
    security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } }, confidence_floor: null, escalates_to: [], ...over,
  };
}

/** Create a session folder holding `job` and return its id. */
export function newSession(rt: Runtime, job: Job): string {
  const id = newSessionId();
  mkdirSync(rt.sessionDir(id), { recursive: true });
  writeFileAtomicSync(join(rt.sessionDir(id), 'job.json'), JSON.stringify(job, null, 2) + '\n');
  return id;
}
