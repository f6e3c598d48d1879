/**
 * Shared helpers for the daemon suites: temp roots, a quiet logger, a good job.
 * Real directories under the OS temp folder, removed after each test.
 */
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { afterEach } from 'vitest';

const made: string[] = [];

afterEach(() => {
  while (made.length > 0) rmSync(made.pop()!, { recursive: true, force: true });
});

/** A fresh temp root with sessions/inbox/ made; removed after the test. */
export function tempRoot(prefix = 'pico-daemon-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
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
