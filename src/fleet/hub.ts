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
 *
 * A box is a sender the hub does not own. A message is appended only when it
 * is one line of one JSON event of the session its subject names (line.ts);
 * anything else is refused to the server (`term`) and logged, never written.
 * A document is written only when it hashes to the hash its line cites. A
 * name planted in the hub's root (a symlink where a box's folder belongs) is
 * refused and logged once; that session's lines wait on the server, and
 * every other box goes on.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { UnsafeFileError } from '../base/safe-open.js';
import { compositionHash, type Composition } from '../ledger/composition.js';
import { closeConnection, connectServer, ensureFleet, logServerStatus, retrying, type Fleet, type ServerOptions } from './connect.js';
import { HubIndex } from './hub-index.js';
import { boxSessionsDir, HubStore } from './hub-store.js';
import { checkShippedLine } from './line.js';
import { compositionKey, EVENTS_STREAM, HUB_CONSUMER, parseEventSubject } from './names.js';

/** A composition hash as the ledger writes it: anything else names no document. */
const HASH_RE = /^sha256:[0-9a-f]{64}$/;
/** How long a line refused for a planted folder waits before the server offers it again, ms. */
const UNSAFE_WAIT_MS = 60_000;

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
  private waitingDoc = new Map<string, { box: string; session: string; hash: string; since: number }>();
  /** planted paths already logged (a line waiting on one comes again every minute) */
  private readonly unsafeSeen = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private running: Promise<void> | null = null;
  readonly counts: HubCounts = { appended: 0, duplicates: 0, early: 0, ingested: 0 };

  constructor(private readonly o: HubOptions, private readonly log: Logger) {
    this.store = new HubStore(o.root, undefined, (a) => log.error({ event: 'copy_damaged', file: a.file, line: a.line, problem: a.problem, saved_as: a.savedAs, kept: a.kept },
      `${a.file}:${a.line}: the hub's copy was damaged (${a.problem}); its first ${a.kept} events are kept and the rest is set aside in ${a.savedAs}`));
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
    const line = at ? checkShippedLine(m.data, at.session) : { problem: 'its subject is not pico.ev.<box>.<session>' };
    if ('problem' in line || !at) {
      const problem = 'problem' in line ? line.problem : '';
      this.log.warn({ event: 'bad_event', subject: m.subject, box: at?.box, session: at?.session, problem },
        `a message on ${m.subject} is not a ledger line of that session (${problem}); refused, nothing written`);
      m.term();
      return;
    }
    let v;
    try {
      v = this.store.offer(at.box, at.session, line.seq, line.text);
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
      if (!this.unsafeSeen.has(err.file)) {
        this.unsafeSeen.add(err.file);
        this.log.error({ event: 'unsafe_folder', file: err.file, reason: err.reason, box: at.box, session: at.session }, `${err.message}; box ${at.box}'s lines for it wait on the server until it is removed`);
      }
      m.nak(UNSAFE_WAIT_MS);
      return;
    }
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
      const hash = line.event.hash;
      if (line.type === 'composition' && typeof hash === 'string' && HASH_RE.test(hash)) {
        this.waitingDoc.set(join(boxSessionsDir(this.o.root, at.box), at.session), { box: at.box, session: at.session, hash, since: Date.now() });
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
      if (entry && entry.operation === 'PUT') this.documents.set(hash, this.checkedDocument(hash, entry.string()));
    }));
    for (const [dir, { box, session, hash, since }] of [...this.waitingDoc]) {
      const text = this.documents.get(hash);
      if (text === undefined) {
        if (Date.now() - since < DOC_WAIT_MS) continue; // not shipped yet, or the server is away: next flush
        // the box had no document to ship (a trimmed session): ingest without provider identities
        this.log.warn({ event: 'no_composition', session: dir, composition: hash }, `no composition document ${hash} for ${dir}; ingested without it`);
      } else if (text.length > 0) {
        try {
          this.store.writeDocument(box, session, hash, text);
        } catch (err) {
          if (!(err instanceof UnsafeFileError)) throw err;
          if (!this.unsafeSeen.has(err.file)) this.log.error({ event: 'unsafe_folder', file: err.file, reason: err.reason, box }, `${err.message}; the session is indexed without its composition document`);
          this.unsafeSeen.add(err.file);
        }
      }
      // an empty value: the box has no document for this session either; ingest without one
      this.waitingDoc.delete(dir);
      this.readyNow.add(dir);
    }
  }

  /** A fetched document's text when it hashes to `hash`; '' (none) when it does not, logged. */
  private checkedDocument(hash: string, text: string): string {
    if (text.length === 0) return text;
    let got: string | null = null;
    try {
      got = compositionHash(JSON.parse(text) as Composition);
    } catch {
      // below
    }
    if (got === hash) return text;
    this.log.warn({ event: 'bad_composition', composition: hash }, `the document stored under composition ${hash} ${got === null ? 'is not JSON' : 'hashes to another value'}; its sessions are indexed without it`);
    return '';
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
