/**
 * `pico fleet agent`: the process beside a box's daemon that joins it to the
 * fleet. Nothing inside the daemon changes; the agent only reads the root and
 * writes job files into its inbox, the way `pico submit` does.
 *
 * It runs three things on one connection: the shipper (ship.ts) every
 * `shipMs`, the taker (take.ts) on every wake-up and every `sweepMs`, and a
 * heartbeat into the boxes bucket every `heartbeatMs`: the box's providers,
 * capabilities, queue depth, isolation level, shipping lag and the time, from
 * which `pico fleet status` tells online from last seen. When the server is
 * away every call fails and is retried on its timer; the box keeps running its
 * own jobs meanwhile. SIGTERM/SIGINT stop the timers, finish the pass in
 * progress and close the connection (a second signal exits at once).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { worldCapabilities } from '../world/sandbox.js';
import { versionInfo } from '../base/version.js';
import { closeConnection, connectServer, ensureFleet, logServerStatus, retrying, type Fleet, type ServerOptions } from './connect.js';
import { parseClaim, type Claim, type Heartbeat } from './envelope.js';
import { daemonDepth, inboxDepth, readOffer, takenState } from './offer.js';
import { Shipper, type ShipPass } from './ship.js';
import { readAgentState, writeAgentState, type AgentState } from './state.js';
import { Taker } from './take.js';

export interface AgentOptions extends ServerOptions {
  root: string;
  box: string;
  shipMs?: number;
  sweepMs?: number;
  heartbeatMs?: number;
  /** stream dedup window when this agent is the first to make the streams */
  dedupMs?: number;
}

export class Agent {
  private fleet!: Fleet;
  private state!: AgentState;
  private shipper!: Shipper;
  private taker!: Taker;
  private timers: NodeJS.Timeout[] = [];
  private shipping: Promise<unknown> | null = null;
  private lastPass: ShipPass | null = null;
  private isolation = 'unknown';
  private stopped = false;
  private offline = false;

  constructor(private readonly o: AgentOptions, private readonly log: Logger) {}

  /** Connect, make what is missing, resume, and start the timers. */
  async start(): Promise<void> {
    this.state = readAgentState(this.o.root);
    const nc = await connectServer(this.o, true);
    this.fleet = await retrying('opening the fleet streams', this.log, () => ensureFleet(nc, this.o.dedupMs));
    void (async () => {
      for await (const s of nc.status()) {
        logServerStatus(this.log, s.type);
        // while the server is away, passes and sweeps would only fail: they wait for it
        if (s.type === 'disconnect') this.offline = true;
        if (s.type === 'reconnect') this.offline = false;
      }
    })();
    this.isolation = (await worldCapabilities().catch(() => null))?.level ?? 'unknown';
    const ctx = { fleet: this.fleet, root: this.o.root, box: this.o.box, state: this.state, log: this.log };
    this.shipper = new Shipper(ctx);
    this.taker = new Taker(ctx, () => this.offline);
    await retrying('making the job consumers', this.log, () => this.taker.start());
    const every = (ms: number, f: () => void): void => {
      const t = setInterval(f, ms);
      this.timers.push(t);
    };
    every(this.o.shipMs ?? 500, () => this.ship());
    every(this.o.sweepMs ?? 2_000, () => this.taker.wake());
    every(this.o.heartbeatMs ?? 5_000, () => void this.beat());
    this.ship();
    this.taker.wake();
    await this.beat();
    this.log.info({ event: 'ready', box: this.o.box, server: this.o.server }, `fleet agent of box ${this.o.box} is running`);
  }

  /** One shipping pass unless one runs (or the server is away), then the ends of taken jobs. */
  private ship(): void {
    if (this.shipping || this.stopped || this.offline) return;
    this.shipping = (async () => {
      try {
        const p = await this.shipper.pass();
        this.lastPass = p;
        if (p.lines > 0) this.log.debug({ event: 'shipped', lines: p.lines, bytes: p.bytes, sessions: p.sessions }, `shipped ${p.lines} events`);
        await this.settle();
      } catch (err) {
        this.log.warn({ event: 'ship_failed', err: (err as Error).message }, `shipping failed (${(err as Error).message}); retrying`);
      }
      // a job ended: the box may be idle now
      this.taker.wake();
    })().finally(() => (this.shipping = null));
  }

  /** Write the end of every taken job that ended (or that the daemon refused) into its claim; retried each pass until it is written. */
  private async settle(): Promise<void> {
    for (const id of [...this.state.taken]) {
      const s = takenState(this.o.root, id);
      if (s !== 'ended' && s !== 'gone') continue;
      try {
        await this.reportEnd(id, s === 'gone' ? 'rejected' : undefined);
      } catch (err) {
        this.log.debug({ event: 'claim_end_failed', job: id, err: (err as Error).message }, `the end of ${id} is not yet in its claim; retrying`);
        return;
      }
    }
  }

  /** Write a taken job's end into its claim, then forget it. */
  private async reportEnd(id: string, outcome?: string): Promise<void> {
    let out = outcome;
    if (!out) {
      try {
        out = (JSON.parse(readFileSync(join(this.o.root, 'sessions', id, 'result.json'), 'utf8')) as { outcome?: string }).outcome ?? 'ended';
      } catch {
        out = 'ended';
      }
    }
    const e = await this.fleet.claims.get(id);
    const held = e && e.operation === 'PUT' ? parseClaim(e.value) : null;
    const claim: Claim = { box: this.o.box, claimed_at: held?.claimed_at ?? new Date().toISOString(), ended_at: new Date().toISOString(), outcome: out };
    await this.fleet.claims.put(id, JSON.stringify(claim));
    this.state.taken = this.state.taken.filter((t) => t !== id);
    writeAgentState(this.o.root, this.state);
  }

  /** Publish this box's heartbeat. */
  private async beat(): Promise<void> {
    if (this.offline) {
      // a reconnect the status stream did not report: ask the server directly, briefly
      const back = await Promise.race([this.fleet.nc.flush().then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]);
      if (!back) return;
      this.offline = false;
    }
    const offer = readOffer(this.o.root);
    const hb: Heartbeat = {
      heartbeat: 'fleet-box@1', box: this.o.box, at: new Date().toISOString(), every_ms: this.o.heartbeatMs ?? 5_000,
      version: versionInfo().version, models: offer.models, capabilities: offer.capabilities,
      queue: inboxDepth(this.o.root) + daemonDepth(this.o.root), isolation: this.isolation,
      lag: { bytes: this.lastPass?.lagBytes ?? 0, sessions: this.lastPass?.lagSessions ?? 0 },
    };
    await this.fleet.boxes.put(this.o.box, JSON.stringify(hb)).catch((err: unknown) => {
      this.log.debug({ event: 'heartbeat_failed', err: (err as Error).message }, 'heartbeat not sent');
    });
  }

  /** Stop timers, finish the pass and the sweep in progress, close the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.taker?.close();
    await this.shipping;
    if (this.fleet) await closeConnection(this.fleet.nc);
  }
}
