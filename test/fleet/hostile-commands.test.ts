/**
 * Issue 36, "The user's fleet commands": what a person runs against the
 * server reads messages every box can write (its heartbeat, its ledger lines,
 * lines under a job id it does not hold). One bad box must not hide the
 * others, speak for another box, or reach the person's terminal. A real
 * nats-server; the boxes are plain NATS clients publishing as an agent would
 * (and as a hostile one may); the commands are the compiled `pico fleet`.
 */
import { beforeEach, afterEach, describe, expect, it } from 'vitest';
import { type NatsConnection } from '@nats-io/transport-node';
import { connectServer, ensureFleet, type Fleet } from '../../src/fleet/connect.js';
import { NATS_SERVER, natsInTemp, pico } from './procs.js';

const ID = '20261203-040506-0123456789ab';
const line = (seq: number, over: Record<string, unknown> = {}): string =>
  JSON.stringify({ seq, t: `2026-12-03T04:05:0${seq}.000Z`, type: 'user_input', session_id: ID, text: 'why is the disk full?', ...over });
const answer = (seq: number, text: string): string => line(seq, { type: 'answer_sent', outcome: 'answered', text, facts: [], missing: [] });
const heartbeat = (box: string, over: Record<string, unknown> = {}): string => JSON.stringify({
  heartbeat: 'fleet-box@1', box, at: new Date().toISOString(), every_ms: 5_000, version: '0.1.0', models: ['disk-usage-parser'],
  capabilities: ['extract@1'], queue: 0, isolation: 'full', lag: { bytes: 0, sessions: 0 }, ...over,
});
/** Bytes a terminal acts on: C0/C1 controls (ESC, BEL, CSI) and the bidirectional overrides and isolates. */
const ACTING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil\u2066x\u2069\u200f';

describe.skipIf(!NATS_SERVER)('the user\'s fleet commands against a hostile box', () => {
  let server: string;
  let nc: NatsConnection;
  let fleet: Fleet;
  const publish = (box: string, body: string, msgID: string) => fleet.js.publish(`pico.ev.${box}.${ID}`, body, { msgID });
  const claim = (box: string) => fleet.claims.create(ID, JSON.stringify({ box, claimed_at: new Date().toISOString() }));
  const fleetCmd = (...args: string[]) => pico(['fleet', ...args, '--server', server]);

  beforeEach(async () => {
    ({ server } = await natsInTemp('pico-fleet-hostile-cmd-'));
    nc = await connectServer({ server, name: 'test' });
    fleet = await ensureFleet(nc);
  }, 30_000);
  afterEach(async () => {
    await nc?.close();
  });

  it('pico fleet watch follows only the box that holds the claim: another box\'s lines and answer under that id are never printed', async () => {
    await publish('evil', line(0, { text: 'EVIL QUESTION' }), 'e0');
    await publish('evil', answer(1, 'EVIL ANSWER: all is fine'), 'e1');
    // no claim yet: the other box's answer does not end the watch
    const early = await fleetCmd('watch', ID, '--timeout', '2');
    expect(early.code).toBe(1);
    expect(early.stdout).not.toContain('EVIL');
    await claim('b1');
    await publish('b1', line(0), 'b0');
    await publish('evil', answer(2, 'EVIL ANSWER again'), 'e2');
    await publish('b1', answer(1, 'The disk is full: /var/log holds 9.1 GiB.'), 'b1');
    const watched = await fleetCmd('watch', ID, '--timeout', '10');
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain('taken by box b1');
    expect(watched.stdout).toContain('The disk is full: /var/log holds 9.1 GiB.');
    expect(watched.stdout).not.toContain('EVIL');
    const asJson = await fleetCmd('watch', ID, '--timeout', '10', '--json');
    const shown = asJson.stdout.trim().split('\n').map((l) => JSON.parse(l) as { box: string; seq: number });
    expect(shown.map((e) => [e.box, e.seq])).toEqual([['b1', 0], ['b1', 1]]);
  }, 60_000);

  it('pico fleet watch prints the answer text, as pico watch does for a local job', async () => {
    await claim('b1');
    await publish('b1', line(0), 'b0');
    await publish('b1', answer(1, 'The disk is 92% full.\nThe largest folder is /var/log (9.1 GiB).'), 'b1');
    const watched = await fleetCmd('watch', ID, '--timeout', '10');
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain('answer_sent');
    expect(watched.stdout).toContain('The disk is 92% full.\nThe largest folder is /var/log (9.1 GiB).\n');
  }, 60_000);

  it('pico fleet watch and pico fleet status print no escape sequence and no bidirectional control from a box', async () => {
    await fleet.boxes.put('b1', heartbeat('b1', { version: HOSTILE, isolation: HOSTILE, capabilities: [HOSTILE], models: [HOSTILE] }));
    await claim('b1');
    await fleet.claims.create('20261203-040506-0123456789ac', JSON.stringify({ box: HOSTILE, claimed_at: HOSTILE, ended_at: HOSTILE, outcome: HOSTILE }));
    await publish('b1', line(0, { text: HOSTILE }), 'b0');
    await publish('b1', answer(1, `done ${HOSTILE}`), 'b1');
    for (const args of [['status'], ['status', '--json'], ['jobs'], ['watch', ID, '--timeout', '10'], ['watch', ID, '--timeout', '10', '--json']]) {
      const r = await fleetCmd(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(ACTING.test(r.stdout), `${args.join(' ')}: ${JSON.stringify(r.stdout)}`).toBe(false);
      expect(ACTING.test(r.stderr), `${args.join(' ')}: ${JSON.stringify(r.stderr)}`).toBe(false);
    }
    // the JSON says the same values, escaped rather than raw
    const st = JSON.parse((await fleetCmd('status', '--json')).stdout) as { box: string; isolation: string }[];
    expect(st.find((b) => b.box === 'b1')?.isolation).toBe(HOSTILE);
  }, 60_000);

  it('one message that is not JSON does not stop pico fleet watch, and one heartbeat lacking a field does not stop pico fleet status', async () => {
    await claim('b1');
    await publish('b1', 'this is not JSON {', 'x');
    await publish('b1', line(0), 'b0');
    await publish('b1', '{"seq": 1, "type": "answer_sent"', 'y');
    await publish('b1', answer(1, 'The disk is fine.'), 'b1');
    const watched = await fleetCmd('watch', ID, '--timeout', '10');
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain('The disk is fine.');
    expect(watched.stderr).not.toMatch(/\n\s+at /); // no stack trace

    await fleet.boxes.put('b1', heartbeat('b1'));
    await fleet.boxes.put('b2', JSON.stringify({ heartbeat: 'fleet-box@1', box: 'b2' }));
    await fleet.boxes.put('b3', 'not a heartbeat');
    const st = await fleetCmd('status');
    expect(st.code, st.stderr).toBe(0);
    expect(st.stderr).not.toMatch(/\n\s+at /);
    expect(st.stdout).toMatch(/^b1 +online/m);
    expect(st.stdout).toMatch(/^b2 +.*heartbeat/m);
    expect(st.stdout).toMatch(/^b3 +.*heartbeat/m);
    const asJson = JSON.parse((await fleetCmd('status', '--json')).stdout) as { box: string; problem?: string }[];
    expect(asJson.map((b) => [b.box, b.problem === undefined])).toEqual([['b1', true], ['b2', false], ['b3', false]]);
  }, 60_000);

  it('pico fleet status names a box by its key: a heartbeat under key evil that claims to be b1 shows as evil, and b1 once', async () => {
    await fleet.boxes.put('b1', heartbeat('b1'));
    await fleet.boxes.put('evil', heartbeat('b1', { queue: 99 }));
    const st = await fleetCmd('status');
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout.split('\n').filter((l) => /^b1\b/.test(l))).toHaveLength(1);
    expect(st.stdout).toMatch(/^evil +.*names box "?b1/m);
    const asJson = JSON.parse((await fleetCmd('status', '--json')).stdout) as { box: string }[];
    expect(asJson.map((b) => b.box)).toEqual(['b1', 'evil']);
  }, 60_000);
});
