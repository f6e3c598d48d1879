/**
 * Issue 25: the work queue "gives at-least-once delivery to whichever
 * consumer pulls", and "a box that crashed after claiming finds its claim and
 * resumes". A box that died after the server delivered a job to it but before
 * it acknowledged it (or even journalled it) leaves the job "ack pending": the
 * server offers it again after the ack wait, but does not count it as pending
 * and publishes nothing that would wake a box. An idle agent must still fetch
 * it — with no other job ever published to its subject. (The random-kill
 * end-to-end run found a box= job that waited for ever this way.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { AckPolicy } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { fleetInboxName } from '../../src/daemon/claim.js';
import { Agent } from '../../src/fleet/agent.js';
import { submit } from '../../src/fleet/commands.js';
import { connectServer, ensureFleet } from '../../src/fleet/connect.js';
import { JOBS_STREAM, jobConsumer, jobSubject, type Selector } from '../../src/fleet/names.js';
import { initRoot } from '../../src/root/init.js';
import { parseJob } from '../../src/runtime/job.js';
import { NATS_SERVER, natsInTemp, sleep } from './procs.js';

describe.skipIf(!NATS_SERVER)('a job delivered to a box that died before acknowledging it', () => {
  it('is taken by an idle agent once the server offers it again, though no other job is ever published', async () => {
    const { dir, server, nats } = await natsInTemp('pico-fleet-redeliver-');
    const box = join(dir, 'box');
    initRoot(box);
    const client = await ensureFleet(await connectServer({ server, name: 'test' }));
    const sel: Selector = { kind: 'box', value: 'b1' };
    // the consumer as the first agent makes it, with a short ack wait so the test does not wait 30 s
    await client.jsm.consumers.add(JOBS_STREAM, { durable_name: jobConsumer(sel), filter_subject: jobSubject(sel), ack_policy: AckPolicy.Explicit, ack_wait: 2_000_000_000 });
    const job = parseJob(JSON.parse(readFileSync(join(box, 'examples', 'jobs', 'why-is-the-disk-full.json'), 'utf8')));
    const { id } = await submit(client, job, sel, null);
    // the box that dies: it pulls the job and is gone before it journals or acknowledges anything
    const delivered = await (await client.js.consumers.get(JOBS_STREAM, jobConsumer(sel))).next({ expires: 2_000 });
    expect(delivered).not.toBeNull();
    const info = await client.jsm.consumers.info(JOBS_STREAM, jobConsumer(sel));
    expect([info.num_pending, info.num_ack_pending]).toEqual([0, 1]);

    const agent = new Agent({ root: box, box: 'b1', server, name: 'b1', sweepMs: 500 }, pino({ level: 'silent' }));
    await agent.start();
    try {
      const inbox = join(box, 'sessions', 'inbox', fleetInboxName(id));
      for (let i = 0; i < 100 && !existsSync(inbox); i++) await sleep(100);
      expect(existsSync(inbox), 'the job reached the inbox').toBe(true);
      const claim = await client.claims.get(id);
      expect(JSON.parse(claim!.string()) as { box: string }).toMatchObject({ box: 'b1' });
    } finally {
      await agent.stop();
      await client.nc.close();
      await nats.kill('SIGTERM');
    }
  }, 40_000);
});
