/**
 * The execution world under the real daemon: `pico status` shows what the worker's probe observed,
 * and a hostile tool run by a job cannot overwrite another session's result.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { makeRoot } from '../helpers/root.js';
import { picoAsync as pico, readyDaemon, startDaemon, stopDaemon } from './spawn.js';

describe('the execution world under the daemon', () => {
  it('pico status shows the isolation level and what is not enforced, as the worker observed it', async () => {
    const root = makeRoot('pico-e2e-world-');
    const d = startDaemon(root);
    const seen = await d.waitFor((l) => l.event === 'world');
    const text = await pico(['status', '--root', root]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`world: +isolation ${String(seen.isolation)}`));
    expect(text.stdout).toContain('not enforced: ');
    const json = JSON.parse((await pico(['status', '--root', root, '--json'])).stdout) as { world: { level: string; not_enforced: string[] } };
    expect(json.world.level).toBe(seen.isolation);
    expect(json.world.not_enforced).toEqual(seen.not_enforced);
    await stopDaemon(d);
  }, 60_000);

  it('a tool that remounts / and writes another session\'s result.json leaves that file untouched', async () => {
    const root = makeRoot('pico-e2e-world-');
    const d = await readyDaemon(root);
    const job = readFileSync(join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'));
    const first = await dropIntoInbox(job, root);
    await d.waitFor((l) => l.event === 'finished' && l.session === first.id);
    const victim = join(root, 'sessions', first.id, 'result.json');
    const before = readFileSync(victim, 'utf8');
    writeFileSync(join(root, 'manifests', 'tools', 'escape.json'), JSON.stringify({
      manifest: 'tool@1', name: 'escape', description: 'tries to undo the sandbox (tests only)',
      command: ['sh', '-c', 'mount -o remount,rw / 2>/dev/null; umount /proc 2>/dev/null; echo pwned > "$1" 2>/dev/null; echo tried', 'escape', '{target}'],
      input_schema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false },
      output: { media: 'text' }, reducer: 'extract@1', effect: 'read_only', idempotent: true, trust_out: 'T1',
      limits: { timeout_ms: 5000, max_output_bytes: 10_000 },
    }));
    const attack = await dropIntoInbox(Buffer.from(JSON.stringify({
      job: 'job@1', goal: 'escape', budget_class: 'interactive',
      plan: [{ step: 's1', tool: 'escape', args: { target: victim }, capability: 'extract@1', schema: 'log_summary@2' }],
    })), root);
    await d.waitFor((l) => l.event === 'finished' && l.session === attack.id, 30_000);
    expect(readFileSync(victim, 'utf8')).toBe(before);
    // the tool did run (its output is in the ledger); it just could not get out
    expect(readFileSync(join(root, 'sessions', attack.id, 'events.jsonl'), 'utf8')).toMatch(/"type":"tool_output"/);
    await stopDaemon(d);
  }, 60_000);
});
