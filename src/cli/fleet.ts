/**
 * `pico fleet agent|hub|status|submit|watch|jobs` — parsing only; the fleet
 * lives in src/fleet/ and is loaded from here on demand, so a box without a
 * fleet never loads a line of it (nor the NATS client).
 *
 * The server is `--server URL` or $PICO_FLEET_SERVER, the box `--box NAME` or
 * $PICO_FLEET_BOX; credentials come from the environment or `--creds FILE`
 * ($PICO_FLEET_CREDS), a private CA from `--ca FILE` ($PICO_FLEET_CA)
 * (src/fleet/connect.ts says why; systemd/ sets them from an EnvironmentFile).
 *
 * Everything printed from the server was written by a box: every such field
 * goes through the terminal-safe quoting (`visible`, `visibleJson`), so no box
 * can move the cursor, retitle the terminal or reorder a line on screen.
 */
import { visible, visibleJson, visibleText } from '../base/log-pretty.js';
import { describeLine } from '../daemon/describe.js';
import { isSessionId } from '../ledger/session-id.js';
import { EXIT, emit, jsonOption, parse, rootOf, rootOption, unknownSubcommand, UsageError } from './args.js';

const SERVER = { server: { type: 'string' }, creds: { type: 'string' }, ca: { type: 'string' } } as const;

const USAGE = `pico fleet agent --box NAME [--root DIR] [--server URL] [--creds FILE] [--ca FILE]
       pico fleet hub [--root DIR] [--server URL] [--dedup-ms N]
       pico fleet status [--server URL] [--json]
       pico fleet submit JOB.json --to box=NAME|model=ID|cap=CAPABILITY [--id JOB_ID] [--server URL] [--json]
       pico fleet watch JOB_ID [--timeout SECONDS] [--server URL] [--json]
       pico fleet jobs [--server URL] [--json]`;

type Values = { server?: string | boolean; creds?: string | boolean; ca?: string | boolean };

/** Server options from flags and the environment; a usage error when none is named. */
function serverOf(v: Values, name: string): { server: string; creds?: string; ca?: string; name: string } {
  const server = typeof v.server === 'string' ? v.server : process.env.PICO_FLEET_SERVER;
  if (!server) throw new UsageError(`no server: give --server nats://HOST:4222 or set PICO_FLEET_SERVER\nusage: ${USAGE}`);
  const creds = typeof v.creds === 'string' ? v.creds : process.env.PICO_FLEET_CREDS || undefined;
  const ca = typeof v.ca === 'string' ? v.ca : process.env.PICO_FLEET_CA || undefined;
  return { server, name, ...(creds ? { creds } : {}), ...(ca ? { ca } : {}) };
}

/** A positive integer flag. */
function intOf(text: string | boolean | undefined, flag: string, fallback: number): number {
  if (typeof text !== 'string') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} ${JSON.stringify(text)} is not a positive whole number\nusage: ${USAGE}`);
  return n;
}

/** Run until SIGTERM/SIGINT, then stop (a second signal exits at once). */
async function runUntilSignal(stop: () => Promise<void>, log: { info: (o: object, m: string) => void }): Promise<number> {
  return new Promise((done) => {
    let stopping = false;
    const on = (sig: string): void => {
      if (stopping) {
        log.info({ event: 'forced' }, `second ${sig}: exiting now`);
        process.exit(1);
      }
      stopping = true;
      log.info({ event: 'stopping', signal: sig }, `${sig}: finishing the pass in progress; send it again to exit at once`);
      void stop().then(() => done(EXIT.ok), () => done(EXIT.internal));
    };
    process.on('SIGTERM', () => on('SIGTERM'));
    process.on('SIGINT', () => on('SIGINT'));
  });
}

/** Entry point of `pico fleet`. */
export async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { createLogger } = await import('../base/log.js');
  switch (sub) {
    case 'agent': {
      const { values } = parse(rest, { ...rootOption, ...SERVER, box: { type: 'string' }, 'dedup-ms': { type: 'string' } }, USAGE);
      const { BOX_RE, BOX_RULE } = await import('../fleet/names.js');
      const box = typeof values.box === 'string' ? values.box : process.env.PICO_FLEET_BOX;
      if (box === undefined || !BOX_RE.test(box)) throw new UsageError(`--box (or PICO_FLEET_BOX) must name this box: ${BOX_RULE}\nusage: ${USAGE}`);
      const log = createLogger({ to: 'stdout', name: 'pico-fleet-agent' });
      const { Agent } = await import('../fleet/agent.js');
      const agent = new Agent({ ...serverOf(values, `pico-agent-${box}`), root: rootOf(values), box, dedupMs: intOf(values['dedup-ms'], '--dedup-ms', 120_000) }, log);
      await agent.start();
      return runUntilSignal(() => agent.stop(), log);
    }
    case 'hub': {
      const { values } = parse(rest, { ...rootOption, ...SERVER, 'dedup-ms': { type: 'string' } }, USAGE);
      const log = createLogger({ to: 'stdout', name: 'pico-fleet-hub' });
      const { Hub } = await import('../fleet/hub.js');
      const hub = new Hub({ ...serverOf(values, 'pico-hub'), root: rootOf(values), dedupMs: intOf(values['dedup-ms'], '--dedup-ms', 120_000) }, log);
      await hub.start();
      return runUntilSignal(() => hub.stop(), log);
    }
    case 'status':
    case 'jobs':
    case 'submit':
    case 'watch':
      return userCommand(sub, rest);
    default:
      throw unknownSubcommand(sub, ['agent', 'hub', 'status', 'submit', 'watch', 'jobs'], USAGE);
  }
}

/** The commands a person runs against the server: connect, ask, print, close. */
async function userCommand(sub: 'status' | 'jobs' | 'submit' | 'watch', rest: string[]): Promise<number> {
  const { values, positionals } = parse(rest, { ...SERVER, ...jsonOption, to: { type: 'string' }, id: { type: 'string' }, timeout: { type: 'string' } }, USAGE);
  const json = values.json === true;
  const c = await import('../fleet/commands.js');
  // check the input before connecting: a mistake is told without a server
  const job = sub === 'submit' ? c.readJobFile(positionals[0] ?? missing('a JOB file')) : null;
  const to = sub === 'submit' ? c.selectorOf(typeof values.to === 'string' ? values.to : missing('--to box=NAME|model=ID|cap=CAPABILITY')) : null;
  const { connectServer, ensureFleet } = await import('../fleet/connect.js');
  const opts = serverOf(values, `pico-fleet-${sub}`);
  let nc;
  try {
    nc = await connectServer(opts);
  } catch (err) {
    if ((err as Error).name === 'UsageError') throw err;
    process.stderr.write(`pico fleet ${sub}: cannot reach the fleet server ${opts.server} (${(err as Error).message})\nfix: check that nats-server runs there and that this machine may connect (docs/fleet.md); nothing was sent\n`);
    return EXIT.negative;
  }
  try {
    const fleet = await ensureFleet(nc);
    if (sub === 'submit') {
      const r = await c.submit(fleet, job!, to!, typeof values.id === 'string' ? values.id : null);
      emit(json, r, () => (r.queued ? r.id : `${r.id} (already ${r.claimed_by ? `taken by box ${visible(r.claimed_by)}` : 'submitted'}; nothing changed)`));
      return EXIT.ok;
    }
    if (sub === 'status') {
      const list = await c.boxes(fleet);
      emit(json, list, () => list.length === 0 ? 'no box has sent a heartbeat yet' : list.map((b) => {
        const name = visible(b.box).padEnd(16);
        if (!('online' in b)) return `${name} ${visible(b.problem)}`;
        return `${name} ${b.online ? 'online   ' : `last seen ${b.seen_s_ago}s ago`}  queue ${b.queue}  providers ${b.models.length}  caps ${visible(b.capabilities.join(','))}  lag ${b.lag.bytes} B in ${b.lag.sessions} sessions  isolation ${visible(b.isolation)}${b.problem ? `  (${visible(b.problem)})` : ''}`;
      }).join('\n'));
      return EXIT.ok;
    }
    if (sub === 'jobs') {
      const rows = await c.jobs(fleet);
      emit(json, rows, () => rows.length === 0 ? 'no fleet jobs' : rows.map((r) =>
        `${r.id}  ${r.state.padEnd(7)}  ${visible(r.box ?? r.to ?? '')}${r.outcome ? `  ${visible(r.outcome)}` : ''}${r.reason ? `  (${visible(r.reason)})` : ''}`).join('\n'));
      return EXIT.ok;
    }
    const id = positionals[0] ?? missing('a JOB_ID');
    if (!isSessionId(id)) throw new UsageError(`${JSON.stringify(id)} is not a job id; a job id looks like 20261129-113512-3fa9c01b2d4e (the id pico fleet submit printed)\nusage: ${USAGE}`);
    const timeout = intOf(values.timeout, '--timeout', 600);
    // the box's own lines only, the way pico watch shows a local job: one line per event, the answer whole
    const end = await c.watch(fleet, id, {
      claim(cl) {
        if (!json) process.stdout.write(`job ${id}: taken by box ${visible(cl.box)} at ${visible(cl.claimed_at)}\n`);
      },
      line(box, l) {
        process.stdout.write(json ? `${visibleJson({ box, ...l.event })}\n` : `${visibleText(describeLine(l.text, `pico show ${id} --full on box ${box}`))}\n`);
      },
      skipped(box, problem) {
        process.stderr.write(`pico fleet watch: a message of box ${box} under job ${id} is not one of its ledger lines (${problem}); skipped\n`);
      },
    }, timeout * 1000);
    if (end === 'unclaimed') process.stderr.write(`pico fleet watch: no box took job ${id} within ${timeout} s (pico fleet jobs lists it while it waits)\n`);
    if (end === 'timeout') process.stderr.write(`pico fleet watch: job ${id} did not end within ${timeout} s; watch it again to go on\n`);
    return end === 'ended' ? EXIT.ok : EXIT.negative;
  } catch (err) {
    if (!/Permissions Violation/i.test((err as Error).message)) throw err;
    process.stderr.write(`pico fleet ${sub}: the fleet server refused it: ${(err as Error).message}\nfix: the server's configuration must let this user do it (see systemd/fleet-nats-server.conf, the operator user)\n`);
    return EXIT.negative;
  } finally {
    await nc.close();
  }
}

function missing(what: string): never {
  throw new UsageError(`expected ${what}\nusage: ${USAGE}`);
}
