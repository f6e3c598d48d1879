/**
 * Issue 14 item 7 on the real compiled daemon: "a hanging script made a 5 s
 * interactive job take 10.1 s". The job's steps now end within its class's
 * wall limit plus WALL_GRACE_MS, as the daemon measures it from the moment
 * it hands the job to the worker to its result.
 */
import { writeFileSync, chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropIntoInbox } from '../../src/daemon/submit.js';
import { WALL_GRACE_MS } from '../../src/runtime/budget.js';
import { initRoot } from '../../src/root/init.js';
import { BUDGETS } from '../../src/runtime/settings.js';
import { tempRoot } from './helpers.js';
import { startDaemon } from './spawn.js';

describe('budgets are ceilings, end to end', () => {
  it('an interactive job whose provider script hangs with a 5 s limit of its own is finished within 5 s plus the grace', async () => {
    const root = tempRoot('pico-e2e-budget-');
    initRoot(root);
    mkdirSync(join(root, 'providers'), { recursive: true });
    writeFileSync(join(root, 'providers', 'hang.sh'), '#!/bin/sh\ncat >/dev/null; sleep 30\n');
    chmodSync(join(root, 'providers', 'hang.sh'), 0o755);
    writeFileSync(join(root, 'manifests', 'providers', 'hang.json'), JSON.stringify({
      manifest: 'provider@1', id: 'hang', implements: ['extract@1'], kind: 'shell', command: ['providers/hang.sh'], schemas: ['log_summary@2'],
      limits: { timeout_ms: BUDGETS.interactive.wall_ms, max_output_bytes: 65536 }, max_input_bytes: 262144, resource: null, cost: null,
      security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } }, confidence_floor: null, escalates_to: [],
    }));
    rmSync(join(root, 'manifests', 'providers', 'log-summary-parser.json'));
    const d = startDaemon(root);
    await d.waitFor((l) => l.event === 'ready');
    const job = { job: 'job@1', goal: 'why is the disk full?', budget_class: 'interactive', plan: [{ step: 'log', tool: 'read_file', args: { path: 'examples/data/syslog.txt' }, capability: 'extract@1', schema: 'log_summary@2' }] };
    const { id } = await dropIntoInbox(Buffer.from(JSON.stringify(job)), root);
    const fin = await d.waitFor((l) => l.event === 'finished' && l.session === id, 30_000);
    expect(fin.outcome).toBe('declined');
    expect(fin.duration_ms as number).toBeLessThan(BUDGETS.interactive.wall_ms + WALL_GRACE_MS);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 60_000);
});
