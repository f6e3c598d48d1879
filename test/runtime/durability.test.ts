/**
 * When facts become durable, seen from the kernel: `pico run` on the example
 * job under strace (real syscalls, nothing stubbed). A fact is fdatasynced
 * before the next tool touches the world; the fact of the last tool step,
 * which only the pure answer step reads next, shares the answer's
 * fdatasync; result.json appears only after the last one. Skipped with a
 * message where strace is not installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { MAIN_JS } from '../daemon/spawn.js';

const hasStrace = spawnSync('strace', ['-V']).status === 0;
const made: string[] = [];
afterEach(() => {
  while (made.length > 0) rmSync(made.pop()!, { recursive: true, force: true });
});

describe.skipIf(!hasStrace)('durability order (strace)', () => {
  it('each fact is on disk before the next tool runs, and the answer before result.json', () => {
    const root = mkdtempSync(join(tmpdir(), 'pico-durability-'));
    made.push(root);
    initRoot(root);
    const trace = join(root, 'strace.txt');
    const r = spawnSync('strace', ['-f', '-y', '-e', 'trace=fdatasync,openat,rename', '-o', trace, process.execPath, MAIN_JS, 'run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // one line per milestone, in the order the kernel saw them
    const order = readFileSync(trace, 'utf8').split('\n').flatMap((l) => {
      if (/fdatasync\(\d+<[^>]*events\.jsonl>\)/.test(l)) return ['commit'];
      if (/openat\(.*"[^"]*examples\/data\/df\.txt"/.test(l)) return ['tool:disk'];
      if (/openat\(.*"[^"]*examples\/data\/syslog\.txt"/.test(l)) return ['tool:log'];
      if (/rename\(.*\/result\.json"\)/.test(l)) return ['result.json'];
      return [];
    });
    expect(order).toEqual(['tool:disk', 'commit', 'tool:log', 'commit', 'result.json']);
  });
});

if (!hasStrace) console.warn('durability.test.ts skipped: strace is not installed (apt install strace)');
