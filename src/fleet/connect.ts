/**
 * One connection to the fleet's NATS server, and the streams and buckets the
 * fleet needs, made when missing.
 *
 * Credentials never travel on the command line (a process list shows it):
 * a user and password come from PICO_FLEET_USER / PICO_FLEET_PASSWORD, an
 * nkey or JWT credentials file from `--creds FILE`, and a private CA for a
 * `tls://` server from `--ca FILE` (docs/fleet.md). The client reconnects
 * for ever: a box offline for a week keeps trying, and its ledgers are the
 * buffer meanwhile (ship.ts). What the server refuses (a box publishing
 * outside its own subjects, see the sample server config) surfaces as an
 * error of the call that was refused.
 *
 * `ensureFleet` adds each stream and bucket only when it is absent, so every
 * part may call it and the first one to run makes them; an existing stream
 * is left as it is (its dedup window included).
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { BOXES_BUCKET, CLAIMS_BUCKET, COMPOSITIONS_BUCKET, DEFAULT_DEDUP_MS, EVENTS_STREAM, JOBS_STREAM } from './names.js';

export interface ServerOptions {
  /** one URL or several, comma-separated: nats://host:4222, tls://host:4222 */
  server: string;
  /** an nkey/JWT credentials file */
  creds?: string;
  /** a PEM file of the CA that signed the server's certificate */
  ca?: string;
  /** the name this client shows in the server's monitoring */
  name: string;
}

export interface Fleet {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  boxes: KV;
  compositions: KV;
  claims: KV;
}

export class FleetConfigError extends Error {
  override name = 'UsageError';
}

/**
 * Connect with reconnects for ever. `wait`: a service (agent, hub) that starts while the
 * server is away keeps trying until it answers; a person's command fails at once instead.
 */
export async function connectServer(o: ServerOptions, wait = false): Promise<NatsConnection> {
  const servers = o.server.split(',').map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw new FleetConfigError('--server is empty; give the NATS server URL, e.g. --server nats://hub.lan:4222');
  let authenticator;
  if (o.creds) {
    try {
      authenticator = credsAuthenticator(readFileSync(o.creds));
    } catch (err) {
      throw new FleetConfigError(`--creds ${o.creds}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give the box's credentials file`);
    }
  }
  const user = process.env.PICO_FLEET_USER || undefined;
  const pass = process.env.PICO_FLEET_PASSWORD || undefined;
  return connect({
    servers,
    name: o.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: wait,
    pingInterval: 10_000,
    ...(authenticator ? { authenticator } : {}),
    ...(user ? { user, pass } : {}),
    ...(o.ca ? { tls: { caFile: o.ca } } : {}),
  });
}

/** Drain the connection (pending publishes and acks go out), but give up after `ms` when the server is away, and close. */
export async function closeConnection(nc: NatsConnection, ms = 2_000): Promise<void> {
  await Promise.race([nc.drain().catch(() => {}), new Promise((r) => setTimeout(r, ms).unref())]);
  if (!nc.isClosed()) await nc.close().catch(() => {});
}

/** Log a connection status change: losing and regaining the server at warn/info, the chatter at debug. */
export function logServerStatus(log: Logger, type: string): void {
  if (type === 'disconnect' || type === 'error') log.warn({ event: 'server', status: type }, `fleet server: ${type}; retrying (the ledgers wait on the boxes, nothing is lost)`);
  else if (type === 'reconnect') log.info({ event: 'server', status: type }, 'fleet server: connected again');
  else log.debug({ event: 'server', status: type }, `fleet server: ${type}`);
}

/** Retry `step` every second until it succeeds (the server may be away, or JetStream still starting). */
export async function retrying<T>(what: string, log: Logger, step: () => Promise<T>, stopped: () => boolean = () => false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (stopped()) throw err;
      if (attempt === 1 || attempt % 30 === 0) log.warn({ event: 'server_unavailable', step: what, attempt, err: (err as Error).message }, `${what} failed (${(err as Error).message}); retrying every second`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

/** Make the streams and buckets when absent; `dedupMs` applies only to streams made here. */
export async function ensureFleet(nc: NatsConnection, dedupMs = DEFAULT_DEDUP_MS): Promise<Fleet> {
  const jsm = await jetstreamManager(nc);
  const window = dedupMs * 1_000_000; // nanoseconds
  const want = [
    { name: EVENTS_STREAM, subjects: ['pico.ev.>'], retention: RetentionPolicy.Limits },
    { name: JOBS_STREAM, subjects: ['pico.job.>'], retention: RetentionPolicy.Workqueue },
  ];
  for (const s of want) {
    try {
      await jsm.streams.info(s.name);
    } catch {
      try {
        await jsm.streams.add({ ...s, storage: StorageType.File, duplicate_window: window });
      } catch (err) {
        // another part made it between our look and our add: fine; anything else is real
        await jsm.streams.info(s.name).catch(() => { throw err; });
      }
    }
  }
  const kvm = new Kvm(nc);
  const [boxes, compositions, claims] = await Promise.all([
    kvm.create(BOXES_BUCKET, { history: 1 }),
    kvm.create(COMPOSITIONS_BUCKET, { history: 1 }),
    kvm.create(CLAIMS_BUCKET, { history: 1 }),
  ]);
  return { nc, js: jetstream(nc), jsm, boxes, compositions, claims };
}
