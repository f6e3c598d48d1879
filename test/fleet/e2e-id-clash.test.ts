/**
 * Issue 36 finding 8: "a fleet job whose id equals a session the box already
 * ran on its own never runs, yet its claim records that session's outcome and
 * `pico fleet jobs` shows it `ended answered`". And issue 37 item 10: `pico
 * fleet watch ID` prints the answer text `pico watch` shows for a local job.
 * One box: a real daemon and a real agent on a `pico init` root, a real
 * nats-server, the compiled CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectServer, ensureFleet } from '../../src/fleet/connect.js';
import { claimOf } from '../../src/fleet/commands.js';
import { initRoot } from '../../src/root/init.js';
import { NATS_SERVER, natsInTemp, pico, sleep, startPico } from './procs.js';

describe.skipIf(!NATS_SERVER)('a fleet job and the box\'s own sessions', () => {
  it('a fleet job whose id is a session the box ran on its own never borrows that session\'s outcome; a fresh job\'s watch prints its answer', async () => {
    const { dir, server } = await natsInTemp('pico-fleet-clash-');
    const root = join(dir, 'b1');
    initRoot(root);
    const job = join(root, 'examples', 'jobs', 'why-is-the-disk-full.json');
    const local = await pico(['run', job, '--root', root, '--json']);
    expect(local.code, local.stderr).toBe(0);
    const clash = (JSON.parse(local.stdout) as { session_id: string }).session_id;
    const localResult = readFileSync(join(root, 'sessions', clash, 'result.json'), 'utf8');

    const daemon = startPico(['daemon', '--root', root]);
    await daemon.waitFor((l) => l.event === 'ready');
    const agent = startPico(['fleet', 'agent', '--root', root, '--box', 'b1', '--server', server]);
    await agent.waitFor((l) => l.event === 'ready');
    const fleet = await ensureFleet(await connectServer({ server, name: 'test' }));
    try {
      const sent = await pico(['fleet', 'submit', job, '--to', 'box=b1', '--id', clash, '--server', server, '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      let claim = await claimOf(fleet, clash);
      for (let i = 0; i < 300 && !claim?.ended_at; i++) {
        await sleep(100);
        claim = await claimOf(fleet, clash);
      }
      expect(claim?.ended_at, JSON.stringify(claim)).toBeDefined();
      expect(claim!.box).toBe('b1');
      expect(claim!.outcome).toBe('rejected');
      expect(claim!.reason).toMatch(/session of this id/);
      const jobs = await pico(['fleet', 'jobs', '--server', server]);
      expect(jobs.stdout).toMatch(new RegExp(`^${clash} +ended +b1 +rejected`, 'm'));
      // the box's own session is as it was
      expect(readFileSync(join(root, 'sessions', clash, 'result.json'), 'utf8')).toBe(localResult);

      const fresh = await pico(['fleet', 'submit', job, '--to', 'box=b1', '--server', server, '--json']);
      const id = (JSON.parse(fresh.stdout) as { id: string }).id;
      const watched = await pico(['fleet', 'watch', id, '--server', server, '--timeout', '60']);
      expect(watched.code, watched.stderr + watched.stdout).toBe(0);
      const result = JSON.parse(readFileSync(join(root, 'sessions', id, 'result.json'), 'utf8')) as { answer: string };
      expect(result.answer.length).toBeGreaterThan(20);
      expect(watched.stdout).toContain(result.answer);
    } finally {
      await fleet.nc.close();
      await agent.kill('SIGTERM');
      await daemon.kill('SIGTERM');
    }
  }, 120_000);
});
