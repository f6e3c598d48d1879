/**
 * Issue 25: the agent "reads each events.jsonl from a saved byte offset per
 * session, publishes each line … and saves the offset only after the server
 * acknowledges". The shipper reads a ledger a chunk at a time (256 kB) so what
 * it holds does not grow with the ledger; here a ledger of several chunks,
 * with one line longer than a chunk and a torn last line, reaches a real hub
 * through a real nats-server byte for byte, and the torn line follows once
 * its writer finishes it.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/fleet/agent.js';
import { Hub } from '../../src/fleet/hub.js';
import { initRoot } from '../../src/root/init.js';
import { NATS_SERVER, natsInTemp, sleep } from './procs.js';

const quiet = pino({ level: 'silent' });
const ID = '20261202-030000-00000000c4c4';
async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(50);
  }
}

const line = (seq: number, text: string): string => JSON.stringify({ seq, t: '2026-12-02T03:00:00.000Z', type: 'tool_output', session_id: ID, step: 's1', text }) + '\n';

describe.skipIf(!NATS_SERVER)('shipping a ledger a chunk at a time', () => {
  it('a ledger of many chunks, one line longer than a chunk, arrives whole; a torn last line follows once finished', async () => {
    const { dir, server, nats } = await natsInTemp('pico-fleet-chunks-');
    const box = join(dir, 'box');
    initRoot(box);
    const sdir = join(box, 'sessions', ID);
    mkdirSync(sdir);
    let text = line(0, 'start');
    for (let seq = 1; seq < 4_000; seq++) text += line(seq, seq === 1_500 ? 'y'.repeat(700_000) : `line ${seq} ${'x'.repeat(seq % 300)}`);
    const whole = text + line(4_000, 'the last line, torn');
    const cut = whole.length - 20;
    writeFileSync(join(sdir, 'events.jsonl'), whole.slice(0, cut));
    expect(text.length).toBeGreaterThan(4 * 256 * 1024);

    const hubRoot = join(dir, 'hub');
    mkdirSync(hubRoot);
    const hub = new Hub({ root: hubRoot, server, name: 'hub' }, quiet);
    await hub.start();
    const agent = new Agent({ root: box, box: 'b1', server, name: 'b1', shipMs: 100 }, quiet);
    await agent.start();
    const copy = join(hubRoot, 'fleet', 'b1', 'sessions', ID, 'events.jsonl');
    const held = (): string => (existsSync(copy) ? readFileSync(copy, 'utf8') : '');
    try {
      await until('the hub holds every whole line', () => held().length === text.length);
      expect(held()).toBe(text);
      appendFileSync(join(sdir, 'events.jsonl'), whole.slice(cut));
      await until('the finished last line arrives', () => held().length === whole.length);
      expect(held()).toBe(whole);
      expect(hub.counts.duplicates).toBe(0);
    } finally {
      await agent.stop();
      await hub.stop();
      await nats.kill('SIGTERM');
    }
  }, 60_000);
});
