/**
 * `pico fleet hub`: every box's ledgers and memory in one place.
 *
 * It pulls the event stream through one durable consumer, appends each line
 * in seq order (hub-store.ts), and acknowledges a batch of messages only after
 * its appends are durable, so a crash of the hub loses nothing and sends
 * nothing twice into a ledger. A line that came before the one it follows is
 * refused back to the server (`nak`) and offered again shortly; by then the
 * line before it has arrived. When a `composition` line is appended, the
 * document is fetched from the compositions bucket and written beside the
 * session (under `fleet/<box>/.compositions/`, hard-linked as a box does);
 * a session waits for its document before it is ingested, so provider
 * identities are read exactly as on the box. Ingest (hub-index.ts) runs after
 * each flush over the sessions it touched. The hub approves nothing: approval
 * of a destructive step stays on the box.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { COMPOSITION_FILE, writeComposition } from '../ledger/composition.js';
import { closeConnection, connectServer, ensureFleet, logServerStatus, retrying, type Fleet, type ServerOptions } from './connect.js';
import { HubIndex } from './hub-index.js';
import { boxSessionsDir, HubStore } from './hub-store.js';
import { compositionKey, EVENTS_STREAM, HUB_CONSUMER, parseEventSubject } from './names.js';

/** How long a session waits for its composition document before it is ingested without one. */
const DOC_WAIT_MS = 30_000;

export interface HubOptions extends ServerOptions {
  root: string;
  /** dedup window of the streams when the hub makes them, ms */
  dedupMs?: number;
  /** longest wait before appends are flushed and acknowledged, ms */
  flushMs?: number;
}

export interface HubCounts {
  appended: number;
  duplicates: number;
  early: number;
  ingested: number;
}

export class Hub {
  private fleet!: Fleet;
  private store: HubStore;
  private index: HubIndex;
  private messages: ConsumerMessages | null = null;
  private pending: JsMsg[] = [];
  /** session folder -> composition hash it waits for, and since when */
  private waitingDoc = new Map<string, { box: string; hash: string; since: number }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private running: Promise<void> | null = null;
  readonly counts: HubCounts = { appended: 0, duplicates: 0, early: 0, ingested: 0 };

  constructor(private readonly o: HubOptions, private readonly log: Logger) {
    this.store = new HubStore(o.root);
    this.index = new HubIndex(o.root, log);
  }

  /** Connect, make the streams and the hub's consumer, and start consuming. */
  async start(): Promise<void> {
    const nc = await connectServer(this.o, true);
    this.fleet = await retrying('opening the fleet streams', this.log, () => ensureFleet(nc, this.o.dedupMs));
    void (async () => {
      for await (const s of nc.status()) logServerStatus(this.log, s.type);
    })();
    const consumer = await retrying('making the hub consumer', this.log, async () => {
      try {
        await this.fleet.jsm.consumers.info(EVENTS_STREAM, HUB_CONSUMER);
      } catch {
        await this.fleet.jsm.consumers.add(EVENTS_STREAM, {
          durable_name: HUB_CONSUMER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All,
          ack_wait: 30_000_000_000, max_ack_pending: 20_000,
        });
      }
      return this.fleet.js.consumers.get(EVENTS_STREAM, HUB_CONSUMER);
    });
    this.messages = await consumer.consume({ max_messages: 2_000 });
    this.timer = setInterval(() => void this.flush(), this.o.flushMs ?? 100);
    this.running = (async () => {
      for await (const m of this.messages!) {
        this.handle(m);
        if (this.pending.length >= 1_000) await this.flush();
      }
    })();
    this.log.info({ event: 'ready', root: this.o.root, server: this.o.server }, `fleet hub is running into ${this.o.root}`);
  }

  /** One message: append it, drop a second copy, or hand an early one back. */
  private handle(m: JsMsg): void {
    const at = parseEventSubject(m.subject);
    type Line = { seq?: unknown; type?: unknown; hash?: unknown };
    let e: Line | null;
    try {
      e = JSON.parse(m.string()) as Line;
    } catch {
      e = null;
    }
    if (!at || !e || !Number.isInteger(e.seq)) {
      this.log.warn({ event: 'bad_event', subject: m.subject }, `a message on ${m.subject} is not a ledger line of a box; dropped`);
      m.term();
      return;
    }
    const v = this.store.offer(at.box, at.session, e.seq as number, m.string());
    if (v === 'early') {
      // the line before it comes again from its agent (which resends from its offset): ask for
      // this one again later, waiting longer each time, so a box that went away mid-gap costs little
      this.counts.early++;
      m.nak(Math.min(200 * m.info.deliveryCount, 60_000));
      return;
    }
    if (v === 'duplicate') this.counts.duplicates++;
    else {
      this.counts.appended++;
      if (e.type === 'composition' && typeof e.hash === 'string') {
        const dir = join(boxSessionsDir(this.o.root, at.box), at.session);
        if (!existsSync(join(dir, COMPOSITION_FILE))) this.waitingDoc.set(dir, { box: at.box, hash: e.hash, since: Date.now() });
      }
    }
    this.pending.push(m);
  }

  /** Make appends durable, acknowledge them, fetch documents, ingest what they touched. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const msgs = this.pending;
      this.pending = [];
      if (msgs.length === 0 && this.waitingDoc.size === 0 && this.readyNow.size === 0) return;
      const t0 = performance.now();
      const syncs = this.store.syncs;
      const touched = await this.store.flush();
      for (const m of msgs) m.ack();
      const t1 = performance.now();
      await this.fetchDocuments();
      const t2 = performance.now();
      const ready = touched.filter((d) => !this.waitingDoc.has(d));
      const late = [...this.readyNow];
      this.readyNow.clear();
      if (ready.length + late.length > 0) this.counts.ingested += this.index.ingest([...new Set([...ready, ...late])]);
      this.log.debug({ event: 'flushed', lines: msgs.length, sessions: touched.length, syncs: this.store.syncs - syncs, sync_ms: Math.round(t1 - t0), documents_ms: Math.round(t2 - t1), ingest_ms: Math.round(performance.now() - t2) }, `flushed ${msgs.length} lines`);
    }).catch((err: unknown) => {
      this.log.error({ event: 'flush_failed', err: (err as Error).message }, `hub flush failed (${(err as Error).message}); unacknowledged lines come again`);
    });
    return this.flushing;
  }

  private readonly readyNow = new Set<string>();

  /** Composition documents already fetched, by hash ('' : the box had none); one fetch per hash. */
  private readonly documents = new Map<string, string>();

  /** Write the documents sessions wait for; a session whose document arrived is ingested now. */
  private async fetchDocuments(): Promise<void> {
    // each hash not held yet is asked for once, all side by side (a backlog cites hundreds)
    const wanted = [...new Set([...this.waitingDoc.values()].map((w) => w.hash))].filter((h) => !this.documents.has(h));
    await Promise.all(wanted.map(async (hash) => {
      const entry = await this.fleet.compositions.get(compositionKey(hash)).catch(() => null);
      if (entry && entry.operation === 'PUT') this.documents.set(hash, entry.string());
    }));
    for (const [dir, { box, hash, since }] of [...this.waitingDoc]) {
      const text = this.documents.get(hash);
      if (text === undefined) {
        if (Date.now() - since < DOC_WAIT_MS) continue; // not shipped yet, or the server is away: next flush
        // the box had no document to ship (a trimmed session): ingest without provider identities
        this.log.warn({ event: 'no_composition', session: dir, composition: hash }, `no composition document ${hash} for ${dir}; ingested without it`);
      } else if (text.length > 0) writeComposition(dir, text, hash, join(this.o.root, 'fleet', box, '.compositions'));
      // an empty value: the box has no document for this session either; ingest without one
      this.waitingDoc.delete(dir);
      this.readyNow.add(dir);
    }
  }

  /** The hub's index (for commands run in the same process, and tests). */
  get memory(): HubIndex {
    return this.index;
  }

  /** Stop consuming, flush and acknowledge what was appended, close files and the index. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.messages?.close();
    await this.running?.catch(() => {});
    await this.flush();
    if (this.fleet) await closeConnection(this.fleet.nc);
    this.store.close();
    this.index.close();
  }
}
