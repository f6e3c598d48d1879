/**
 * Issue 36, "The hub": a box is a sender the hub does not own. Here a real
 * `pico fleet hub` process runs against a real nats-server, and a hostile box
 * is a plain NATS client publishing on its own ledger subject
 * (`pico.ev.<box>.<session>`, which the sample server config lets it do). What
 * it sends must never stop the hub, never make the hub's copy stop being a
 * ledger, and never make the hub write outside its root.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { scanLedger } from '../../src/ledger/scan.js';
import { compositionHash } from '../../src/ledger/composition.js';
import { ensureFleet, type Fleet } from '../../src/fleet/connect.js';
import { boxSessionsDir } from '../../src/fleet/hub-store.js';
import { compositionKey } from '../../src/fleet/names.js';
import { NATS_SERVER, natsInTemp, sleep, startPico, type Proc } from './procs.js';

let n = 0;
/** A fresh session id for each case (they share one hub). */
const sid = (): string => `20261203-0102${String(n++).padStart(2, '0')}-0123456789ab`;
const event = (session: string, seq: number, over: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ seq, t: `2026-12-03T01:02:0${seq % 10}.000Z`, type: 'user_input', session_id: session, text: `line ${seq}`, ...over });

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!NATS_SERVER)('the hub against a hostile box', () => {
  let dir: string;
  let server: string;
  let hubRoot: string;
  let hub: Proc;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let fleet: Fleet;
  const copy = (box: string, session: string): string => join(boxSessionsDir(hubRoot, box), session, 'events.jsonl');
  const text = (box: string, session: string): string => (existsSync(copy(box, session)) ? readFileSync(copy(box, session), 'utf8') : '');
  const publish = (box: string, session: string, body: string, msgID: string) => js.publish(`pico.ev.${box}.${session}`, body, { msgID });
  /** The hub is running and its copy of `session` scans as a ledger of that session holding `seqs`. */
  const expectLedger = (box: string, session: string, seqs: number[]): void => {
    expect(hub.child.exitCode).toBeNull();
    const scan = scanLedger(readFileSync(copy(box, session)), session, { strict: false });
    expect(scan.damage).toBeNull();
    expect(scan.events.map((e) => e.seq)).toEqual(seqs);
  };
  const startHub = async (): Promise<Proc> => {
    const p = startPico(['fleet', 'hub', '--root', hubRoot, '--server', server]);
    await p.waitFor((l) => l.event === 'ready');
    return p;
  };

  // every case has its own server and hub (procs.ts kills a test's children when it ends)
  beforeEach(async () => {
    const started = await natsInTemp('pico-fleet-hostile-hub-');
    ({ dir, server } = started);
    hubRoot = join(dir, 'hub');
    mkdirSync(hubRoot);
    hub = await startHub();
    nc = await connect({ servers: server });
    js = jetstream(nc);
    fleet = await ensureFleet(nc);
  }, 60_000);
  afterEach(async () => {
    await nc?.close();
  });

  it('one JSON value spread over two lines is refused: the copy stays one event per line and the hub starts again', async () => {
    const s = sid();
    await publish('evil', s, JSON.stringify(event(s, 0), null, 1), 'a'); // one valid value, many lines
    await publish('evil', s, JSON.stringify(event(s, 0)), 'b');
    await publish('evil', s, JSON.stringify(event(s, 1)), 'c');
    await until('the good lines appended', () => text('evil', s).includes('"line 1"'));
    expect(hub.child.exitCode).toBeNull();
    expect(hub.lines.some((l) => l.event === 'bad_event' && l.session === s && /more than one line/.test(String(l.problem)))).toBe(true);
    // restarted, the hub reads its copy again and goes on appending
    await hub.kill('SIGTERM');
    hub = await startHub();
    await publish('evil', s, JSON.stringify(event(s, 2)), 'd');
    await until('the line after the restart appended', () => text('evil', s).includes('"line 2"'));
    expectLedger('evil', s, [0, 1, 2]);
    expect(text('evil', s).split('\n')).toHaveLength(4);
  }, 60_000);

  it('a copy damaged before (by an older hub) no longer stops the hub: the damage is set aside and the copy goes on from its intact part', async () => {
    const s = sid();
    await hub.kill('SIGTERM');
    mkdirSync(join(boxSessionsDir(hubRoot, 'old'), s), { recursive: true });
    writeFileSync(copy('old', s), `${JSON.stringify(event(s, 0))}\n${JSON.stringify(event(s, 1), null, 1)}\n`);
    hub = await startHub();
    await publish('old', s, JSON.stringify(event(s, 1)), 'a');
    await publish('old', s, JSON.stringify(event(s, 2)), 'b');
    await until('the copy continued', () => text('old', s).includes('"line 2"'));
    expectLedger('old', s, [0, 1, 2]);
    expect(readdirSync(join(boxSessionsDir(hubRoot, 'old'), s)).some((f) => f.startsWith('events.jsonl.damaged-'))).toBe(true);
  }, 60_000);

  it('a line naming another session than its subject\'s is refused: the copy holds only that session\'s events', async () => {
    const s = sid();
    const other = sid();
    await publish('evil', s, JSON.stringify(event(other, 0)), 'a');
    await publish('evil', s, JSON.stringify(event(s, 0)), 'b');
    await publish('evil', s, JSON.stringify([0, 1]), 'c'); // JSON, but no event at all
    await publish('evil', s, JSON.stringify(event(s, 1)), 'd');
    await until('the session\'s own lines appended', () => text('evil', s).includes('"line 1"'));
    expectLedger('evil', s, [0, 1]); // every event of session s, none of the other
  }, 60_000);

  it('the hub never writes through a symlink planted in its root, and goes on serving the other boxes', async () => {
    const outside = join(dir, 'outside');
    const outsideDocs = join(dir, 'outside-docs');
    mkdirSync(outside);
    mkdirSync(outsideDocs);
    mkdirSync(join(hubRoot, 'fleet', 'planted'), { recursive: true });
    symlinkSync(outside, boxSessionsDir(hubRoot, 'planted'));
    mkdirSync(join(hubRoot, 'fleet', 'docs'), { recursive: true });
    symlinkSync(outsideDocs, join(hubRoot, 'fleet', 'docs', '.compositions'));
    const s = sid();
    const d = sid();
    const good = sid();
    await publish('planted', s, JSON.stringify(event(s, 0)), 'a');
    // a composition line whose document the hub fetches and writes beside the session
    const doc = { composition: 'x' };
    const hash = compositionHash(doc as never);
    await fleet.compositions.put(compositionKey(hash), JSON.stringify(doc));
    await publish('docs', d, JSON.stringify(event(d, 0, { type: 'composition', hash, machine: 'm', config: 'c' })), 'b');
    await publish('good', good, JSON.stringify(event(good, 0)), 'c');
    await until('the good box\'s line appended', () => text('good', good).includes('"line 0"'));
    const refused = (folder: string) => hub.lines.some((l) => l.event === 'unsafe_folder' && String(l.msg).includes(folder));
    await until('the document written or refused', () => readdirSync(outsideDocs).length > 0 || refused(join(hubRoot, 'fleet', 'docs', '.compositions')));
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(outsideDocs)).toEqual([]);
    expect(hub.child.exitCode).toBeNull();
    expect(refused(boxSessionsDir(hubRoot, 'planted'))).toBe(true);
  }, 60_000);
});
