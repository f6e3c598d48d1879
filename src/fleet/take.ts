/**
 * Taking fleet jobs: pull from the work queue only while the box is idle,
 * claim the id once across the fleet, drop the job into the inbox, ack.
 *
 * The steps, each safe to repeat after a crash at any point:
 *   1. write the message to `<root>/fleet/.taking/<id>.json` (our journal);
 *   2. create `<id>` in the claims bucket: a compare-and-set that only one
 *      box can win; a claim held by another box means the job is theirs, and
 *      the message (a redelivery) is acknowledged and skipped;
 *   3. write `sessions/inbox/fleet-<id>.json` (temp, fsync, rename) unless the
 *      job is already in the inbox or has its session;
 *   4. acknowledge the message (the work queue then forgets it);
 *   5. remove the journal entry.
 * On start, every journal entry is finished from the step it reached, so a
 * box that crashed after claiming finds its claim and resumes. The daemon's
 * intake takes a `fleet-<id>` file under its id and never under a new one
 * (a session of that id means "taken"), so a job runs at most once, and the
 * work queue's redelivery means at least once.
 *
 * A session of the job's id may be on the box before the job arrives (an id
 * given with `--id`, by mistake or not): it is not this job, and the job would
 * never run while its claim reported that session's outcome. So the journal
 * entry, written once when the job is first seen and before anything is
 * dropped, records whether a session or an inbox entry of that id was here
 * already; such a job is not dropped, and its claim ends `rejected` saying
 * why. Every later step (a crash, a redelivery) reads that first record.
 *
 * One durable consumer per selector (box=NAME, model=ID, cap=CAPABILITY),
 * shared by every box that can serve it. A core subscription on the same
 * subjects wakes the box when a job is published, and a slow sweep covers
 * wake-ups that were missed (a job that waited while the box was away).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AckPolicy, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import { fleetInboxName } from '../daemon/claim.js';
import { writeFileAtomic, writeFileAtomicSync } from '../base/durable-file.js';
import { parseClaim, parseFleetJob, type Claim, type FleetJob } from './envelope.js';
import { JOBS_STREAM, jobConsumer, jobSubject, type Selector } from './names.js';
import { daemonDepth, inboxDepth, readOffer, takenState } from './offer.js';
import { writeAgentState, type BoxContext } from './state.js';

/** A journal entry: the job as it came, and whether a session or inbox entry of its id was here at first sight. */
type Journalled = FleetJob & { local_before?: boolean };

/** How long a taken message may stay unacknowledged before the server offers it again. */
const ACK_WAIT_MS = 30_000;

export class Taker {
  private consumers = new Map<string, Consumer>();
  private subs: Subscription[] = [];
  private sweeping: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly journal: string;

  constructor(
    private readonly ctx: BoxContext,
    /** true while the server is away: no sweep then */
    private readonly away: () => boolean = () => false,
  ) {
    this.journal = join(ctx.root, 'fleet', '.taking');
  }

  /** The selectors this box serves: its own name, its providers, their capabilities. */
  selectors(): Selector[] {
    const o = readOffer(this.ctx.root);
    return [{ kind: 'box', value: this.ctx.box }, ...o.models.map((value) => ({ kind: 'model' as const, value })), ...o.capabilities.map((value) => ({ kind: 'cap' as const, value }))];
  }

  /** Make the consumers, finish journal entries left by a crash, subscribe to wake-ups; safe to call again after a failure. */
  async start(): Promise<void> {
    mkdirSync(this.journal, { recursive: true });
    for (const sel of this.selectors()) {
      const durable = jobConsumer(sel);
      if (this.consumers.has(durable)) continue; // made by an earlier attempt of start()
      try {
        await this.ctx.fleet.jsm.consumers.info(JOBS_STREAM, durable);
      } catch {
        await this.ctx.fleet.jsm.consumers.add(JOBS_STREAM, { durable_name: durable, filter_subject: jobSubject(sel), ack_policy: AckPolicy.Explicit, ack_wait: ACK_WAIT_MS * 1_000_000, max_ack_pending: 1000 })
          .catch(async (err: unknown) => {
            await this.ctx.fleet.jsm.consumers.info(JOBS_STREAM, durable).catch(() => { throw err; }); // made by another box meanwhile
          });
      }
      this.consumers.set(durable, await this.ctx.fleet.js.consumers.get(JOBS_STREAM, durable));
      const sub = this.ctx.fleet.nc.subscribe(jobSubject(sel), { callback: () => this.wake() });
      this.subs.push(sub);
    }
    for (const name of readdirSync(this.journal).filter((n) => n.endsWith('.json'))) {
      const bytes = readFileSync(join(this.journal, name));
      const job = parseFleetJob(bytes);
      this.ctx.log.info({ event: 'fleet_resume', job: job.id }, `finishing fleet job ${job.id}, taken before a restart`);
      await this.takeOne(job, null, (JSON.parse(bytes.toString('utf8')) as Journalled).local_before === true);
    }
  }

  /** Something was published for us: sweep soon, unless a sweep runs (then once more after it). */
  wake(): void {
    if (this.closed || this.away()) return;
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = this.sweep().catch((err: unknown) => {
      this.ctx.log.warn({ event: 'take_failed', err: (err as Error).message }, `taking jobs failed (${(err as Error).message}); trying again at the next sweep`);
    }).finally(() => {
      this.sweeping = null;
      if (this.again && !this.closed) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** True while the box has work of its own: a job in the inbox or in the daemon, or a taken job not yet ended. */
  busy(): boolean {
    if (inboxDepth(this.ctx.root) > 0 || daemonDepth(this.ctx.root) > 0) return true;
    return this.ctx.state.taken.some((id) => {
      const s = takenState(this.ctx.root, id);
      return s === 'queued' || s === 'running';
    });
  }

  /**
   * While idle, pull one job from the first consumer that has one, box first. A job delivered to a
   * box that died before acknowledging it is offered again after the ack wait, but the server
   * does not count it as pending (it is "ack pending"), and no publish wakes anyone for it: so
   * when no consumer has a pending job, those with one awaiting its ack are asked too (a second
   * round, each ask waiting at most a second), or the job would wait for the next job published
   * to its subject.
   */
  private async sweep(): Promise<void> {
    while (!this.closed && !this.busy()) {
      const infos = await Promise.all([...this.consumers.values()].map(async (c) => ({ c, info: await c.info(false) })));
      const order = [...infos.filter((x) => x.info.num_pending > 0), ...infos.filter((x) => x.info.num_pending === 0 && x.info.num_ack_pending > 0)];
      let took = false;
      for (const { c } of order) {
        const m = await c.next({ expires: 1_000 });
        if (!m) continue;
        took = await this.handle(m);
        if (took) break;
      }
      if (!took) return;
    }
  }

  /** One message: parse it, then take it; true when a job went into the inbox. */
  private async handle(m: JsMsg): Promise<boolean> {
    let job: FleetJob;
    try {
      job = parseFleetJob(m.data);
    } catch (err) {
      this.ctx.log.warn({ event: 'fleet_job_refused', subject: m.subject, problem: (err as Error).message }, `a message on ${m.subject} is not a runnable fleet job (${(err as Error).message}); it is removed from the queue`);
      m.term();
      return false;
    }
    const entry = join(this.journal, `${job.id}.json`);
    let localBefore: boolean;
    if (existsSync(entry)) {
      // a redelivery after a crash: the first sight's record stands (our own drop may be here since)
      localBefore = (JSON.parse(readFileSync(entry, 'utf8')) as Journalled).local_before === true;
    } else {
      localBefore = takenState(this.ctx.root, job.id) !== 'gone';
      const journalled: Journalled = { ...job, local_before: localBefore };
      writeFileAtomicSync(entry, JSON.stringify(journalled), true);
    }
    return this.takeOne(job, m, localBefore);
  }

  /**
   * Steps 2-5 for one journalled job (`m` null: resumed from the journal, nothing to ack);
   * `localBefore`: a session or inbox entry of its id was on the box when the job was first seen.
   */
  private async takeOne(job: FleetJob, m: JsMsg | null, localBefore: boolean): Promise<boolean> {
    const mine: Claim = { box: this.ctx.box, claimed_at: new Date().toISOString() };
    let ours = false;
    let ended = false;
    let claimedAt = mine.claimed_at;
    try {
      await this.ctx.fleet.claims.create(job.id, JSON.stringify(mine));
      ours = true;
    } catch {
      const e = await this.ctx.fleet.claims.get(job.id);
      const held = e && e.operation === 'PUT' ? parseClaim(e.value) : null;
      if (!held) throw new Error(`claim of ${job.id} was refused but no claim is stored; the server may be unavailable`);
      ours = held.box === this.ctx.box;
      claimedAt = held.claimed_at;
      ended = held.ended_at !== undefined; // its session ended (and may since be removed by retention): never again
      if (!ours) this.ctx.log.info({ event: 'fleet_skip', job: job.id, claimed_by: held.box }, `fleet job ${job.id} is already claimed by box ${held.box}; skipped`);
    }
    let dropped = false;
    if (ours && !ended && localBefore && !this.ctx.state.taken.includes(job.id)) {
      // the session of that id is the box's own, not this job: end the claim instead of borrowing its outcome
      const reason = `a session of this id was already on box ${this.ctx.box} before the job came (a job id names one session); submit the job again without --id`;
      const end: Claim = { box: this.ctx.box, claimed_at: claimedAt, ended_at: new Date().toISOString(), outcome: 'rejected', reason };
      await this.ctx.fleet.claims.put(job.id, JSON.stringify(end));
      this.ctx.log.warn({ event: 'fleet_id_clash', job: job.id }, `fleet job ${job.id} not taken: ${reason}`);
    } else if (ours && !ended) {
      const inbox = join(this.ctx.root, 'sessions', 'inbox', fleetInboxName(job.id));
      // dropped before (a crash came after the drop) or refused by the daemon since: once is enough
      if (takenState(this.ctx.root, job.id) === 'gone' && !this.ctx.state.taken.includes(job.id)) {
        mkdirSync(join(this.ctx.root, 'sessions', 'inbox'), { recursive: true });
        await writeFileAtomic(inbox, JSON.stringify(job.job), true, 0o640);
        dropped = true;
      }
      if (!this.ctx.state.taken.includes(job.id)) {
        this.ctx.state.taken.push(job.id);
        writeAgentState(this.ctx.root, this.ctx.state);
      }
      if (dropped) {
        this.ctx.log.info({ event: 'fleet_taken', job: job.id, to: job.to }, `took fleet job ${job.id} (${job.to})`);
      }
    }
    if (m) await m.ackAck();
    rmSync(join(this.journal, `${job.id}.json`), { force: true });
    return dropped;
  }

  /** Stop taking: no more sweeps, wake-up subscriptions closed, a sweep in progress awaited. */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.subs) s.unsubscribe();
    await this.sweeping;
  }
}
