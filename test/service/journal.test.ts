/**
 * Issue 15 item 1: "when stdout is the journal's stream (systemd sets
 * JOURNAL_STREAM to its device and inode), each line starts with its syslog
 * priority as <N> … so `journalctl -u picoharness -p warning` shows exactly
 * the warnings and errors; … failure lines carry the reason." The real daemon
 * writes into a regular file that JOURNAL_STREAM names, as systemd names the
 * journal's socket; the test reads back every byte it wrote.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { initRoot } from '../../src/root/init.js';
import { journalPriority } from '../../src/base/log-journal.js';
import { tempRoot } from '../daemon/helpers.js';
import { devIno, startDaemonToFile } from './daemon-file.js';

const PRIORITY_OF_LEVEL: Record<number, number> = { 60: 2, 50: 3, 40: 4, 30: 6, 20: 7, 10: 7 };

/** A root like `pico init` makes, plus a tool that always fails with a reason on stderr. */
function rootWithFailingTool(): string {
  const root = tempRoot('pico-journal-');
  initRoot(root);
  writeFileSync(join(root, 'manifests', 'tools', 'broken_read.json'), JSON.stringify({
    manifest: 'tool@1', name: 'broken_read', description: 'fails every time (tests only)',
    command: ['sh', '-c', 'echo "the disk controller is on fire" >&2; exit 3', 'broken_read', '{path}'],
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
    path_args: ['path'], read_paths: ['examples/data'], output: { media: 'text' }, reducer: 'extract@1',
    effect: 'read_only', idempotent: true, trust_out: 'T1', limits: { timeout_ms: 10_000, max_output_bytes: 65_536 },
  }));
  return root;
}

function jobs(root: string): { good: Buffer; failing: Buffer } {
  const text = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8');
  const failing = JSON.parse(text) as { plan: { step: string; tool?: string }[] };
  failing.plan[0]!.tool = 'broken_read';
  return { good: Buffer.from(text), failing: Buffer.from(JSON.stringify(failing)) };
}

describe('daemon log lines on the journal stream', () => {
  it('maps pino levels to sd-daemon priorities: fatal 2, error 3, warn 4, info 6, debug and trace 7', () => {
    for (const [level, prio] of Object.entries(PRIORITY_OF_LEVEL)) expect(journalPriority(Number(level))).toBe(prio);
  });

  it('every line the daemon and its worker write starts with <N> matching its level, and a failed step is <4> with its reason', async () => {
    const root = rootWithFailingTool();
    const logFile = join(root, 'journal.log');
    writeFileSync(logFile, '');
    const d = startDaemonToFile(root, logFile, { JOURNAL_STREAM: devIno(logFile), PICO_LOG_LEVEL: 'debug' });
    await d.waitFor((l) => l.includes('"event":"ready"'));
    const { good, failing } = jobs(root);
    const bad = await dropIntoInbox(failing, root);
    const ok = await dropIntoInbox(good, root);
    await d.waitFor((l) => l.includes('"event":"finished"') && l.includes(bad.id));
    await d.waitFor((l) => l.includes('"event":"finished"') && l.includes(ok.id));
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    const lines = d.lines();
    const levels = new Set<number>();
    for (const line of lines) {
      const m = /^<(\d)>(\{.*\})$/.exec(line);
      expect(m, `not a prefixed JSON line: ${line}`).not.toBeNull();
      const record = JSON.parse(m![2]!) as { level: number };
      expect(Number(m![1]), line).toBe(PRIORITY_OF_LEVEL[record.level]);
      levels.add(record.level);
    }
    expect([...levels]).toEqual(expect.arrayContaining([20, 30, 40])); // debug, info and warning lines were all seen
    expect(lines.some((l) => l.includes('"component":"worker"'))).toBe(true); // the worker's lines too

    const failed = lines.filter((l) => l.includes('"event":"step"') && l.includes('"phase":"failed"') && l.includes(bad.id));
    expect(failed.length).toBeGreaterThan(0);
    for (const line of failed) {
      expect(line.startsWith('<4>')).toBe(true);
      const r = JSON.parse(line.slice(3)) as { msg: string; reason: string; step: string };
      expect(r.step).toBe('disk');
      expect(r.reason).toContain('the disk controller is on fire');
      expect(r.msg).toContain('the disk controller is on fire');
    }
    // what `journalctl -p warning` would show: only levels warn and above
    const warningOrWorse = lines.filter((l) => Number(l[1]) <= 4).map((l) => (JSON.parse(l.slice(3)) as { level: number }).level);
    expect(warningOrWorse.every((lv) => lv >= 40)).toBe(true);
  }, 90_000);

  it('JOURNAL_STREAM naming another file (inherited, then redirected) leaves the lines as plain JSON', async () => {
    const root = tempRoot('pico-journal-');
    initRoot(root);
    const logFile = join(root, 'daemon.log');
    const other = join(root, 'elsewhere.log');
    writeFileSync(logFile, '');
    writeFileSync(other, '');
    const d = startDaemonToFile(root, logFile, { JOURNAL_STREAM: devIno(other) });
    await d.waitFor((l) => l.includes('"event":"ready"'));
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    const lines = d.lines();
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(readFileSync(other, 'utf8')).toBe('');
  }, 60_000);
});
