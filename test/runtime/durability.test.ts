/**
 * When facts become durable, seen from the kernel: `pico run` on the example
 * job under strace (real syscalls, nothing stubbed). A fact is fdatasynced
 * before a tool that may change the world runs (one not declared read-only
 * and idempotent); before a read-only, idempotent tool or a pure reduce it
 * shares the next fdatasync, at the latest the answer's; result.json appears
 * only after the last one. Skipped with a message where strace is not installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** The order in which the kernel saw the tools, the ledger's fdatasyncs and result.json for the example job on `root`. */
  function milestones(root: string): string[] {
    const trace = join(root, 'strace.txt');
    const r = spawnSync('strace', ['-f', '-y', '-e', 'trace=fdatasync,openat,rename', '-o', trace, process.execPath, MAIN_JS, 'run', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--root', root], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // one line per milestone, in the order the kernel saw them
    return readFileSync(trace, 'utf8').split('\n').flatMap((l) => {
      if (/fdatasync\(\d+<[^>]*events\.jsonl>\)/.test(l)) return ['commit'];
      if (/openat\(.*"[^"]*examples\/data\/df\.txt"/.test(l)) return ['tool:disk'];
      if (/openat\(.*"[^"]*examples\/data\/syslog\.txt"/.test(l)) return ['tool:log'];
      if (/rename\(.*\/result\.json"\)/.test(l)) return ['result.json'];
      return [];
    });
  }

  function exampleRoot(): string {
    const root = mkdtempSync(join(tmpdir(), 'pico-durability-'));
    made.push(root);
    initRoot(root);
    return root;
  }

  it('facts read by read-only, idempotent tools share one fdatasync with the answer, before result.json', () => {
    expect(milestones(exampleRoot())).toEqual(['tool:disk', 'tool:log', 'commit', 'result.json']);
  });

  it('a fact is on disk before a tool that is not declared idempotent runs', () => {
    const root = exampleRoot();
    const manifest = join(root, 'manifests', 'tools', 'read_file.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"idempotent": true', '"idempotent": false'));
    expect(milestones(root)).toEqual(['tool:disk', 'commit', 'tool:log', 'commit', 'result.json']);
  });
});

if (!hasStrace) console.warn('durability.test.ts skipped: strace is not installed (apt install strace)');
