/**
 * Shared helpers for the daemon suites: temp roots, a quiet logger, a good job, a job that waits
 * for approval.
 * Real directories under the OS temp folder, removed after each test.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { afterEach } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// daemon suites remove their roots after each test, not only when the file ends
afterEach(removeTempDirs);

/** A fresh temp root with sessions/inbox/ made; removed after the test. */
export function tempRoot(prefix = 'pico-daemon-'): string {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'sessions', 'inbox'), { recursive: true });
  return dir;
}

/** A logger that writes nothing (tests assert on files, not on log text). */
export function quietLog(): Logger {
  return pino({ level: 'silent' });
}

/** A logger that keeps every record in memory, for asserting on log lines. */
export function memoryLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { log, lines };
}

/** A valid job@1 document of the given budget class. */
export function goodJob(budgetClass = 'interactive', label?: string): Record<string, unknown> {
  return {
    job: 'job@1',
    goal: 'why is the disk full?',
    budget_class: budgetClass,
    plan: [{ step: 's1', tool: 'read_file', args: { path: 'examples/data/df.txt' }, capability: 'extract@1', schema: 'log_summary@2' }],
    ...(label ? { label } : {}),
  };
}

/**
 * A job whose second step prunes the root's example archive: `prune_archive` is destructive, so
 * the session stops there for a person (approve or deny) after its first step has answered.
 */
export function pruneJob(): Buffer {
  return Buffer.from(JSON.stringify({
    job: 'job@1', goal: 'read the log, then prune the archive', budget_class: 'interactive',
    plan: [
      { step: 'read', tool: 'read_file', args: { path: 'examples/data/syslog.txt' }, capability: 'extract@1', schema: 'log_summary@2' },
      { step: 'prune', tool: 'prune_archive', args: { dir: 'examples/archive', keep: 3 }, capability: 'extract@1', schema: 'log_summary@2' },
    ],
  }));
}

/**
 * The example job with every tool step slowed down by a real `sleep` in the
 * execution world, so a test can signal the daemon while a step is certainly
 * in flight (the plain example runs in a few milliseconds).
 */
export function slowExampleJob(root: string, sleepSeconds = 0.4): Buffer {
  writeFileSync(join(root, 'manifests', 'tools', 'slow_read.json'), JSON.stringify({
    manifest: 'tool@1', name: 'slow_read', description: 'read_file, after a pause (tests only)',
    command: ['sh', '-c', `sleep ${sleepSeconds}; cat -- "$1"`, 'slow_read', '{path}'],
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
    path_args: ['path'], read_paths: ['examples/data'], output: { media: 'text' }, reducer: 'extract@1',
    effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 10_000, max_output_bytes: 1_048_576 },
  }));
  const job = JSON.parse(readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8')) as { plan: { tool?: string }[] };
  for (const s of job.plan) if (s.tool === 'read_file') s.tool = 'slow_read';
  return Buffer.from(JSON.stringify(job));
}
