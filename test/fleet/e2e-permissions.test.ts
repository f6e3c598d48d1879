/**
 * Issue 25, "Security": "a box may publish only under its own subject
 * (per-box NATS user or nkey, documented with a sample server config)". The
 * sample, systemd/fleet-nats-server.conf, runs here as it stands (only its
 * port and store folder change): the box's agent ships and takes jobs as its
 * own user, the operator submits and follows them, and what each may not do
 * is refused by the server.
 */
import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { initRoot } from '../../src/root/init.js';
import { tempDir } from '../helpers/temp.js';
import { freePort, NATS_SERVER, pico, sleep, startNats, startPico } from './procs.js';

const SAMPLE = fileURLToPath(new URL('../../systemd/fleet-nats-server.conf', import.meta.url));
describe.skipIf(!NATS_SERVER)('the sample server configuration', () => {
  it('a box ships and takes jobs as its own user, and may not publish as another box, submit jobs or heartbeat for another; an operator may submit but not publish ledger lines', async () => {
    const dir = tempDir('pico-fleet-perm-');
    const port = await freePort();
    const conf = join(dir, 'nats.conf');
    writeFileSync(conf, readFileSync(SAMPLE, 'utf8')
      .replace(/^listen: .*$/m, `listen: 127.0.0.1:${port}`)
      .replace(/store_dir: [^,\s}]+/, `store_dir: ${JSON.stringify(join(dir, 'js'))}`));
    const nats = await startNats(port, join(dir, 'js'), conf);
    const server = `nats://127.0.0.1:${port}`;
    const as = (user: string): NodeJS.ProcessEnv => ({ PICO_FLEET_USER: user, PICO_FLEET_PASSWORD: `${user}-change-me` });

    mkdirSync(join(dir, 'hub'));
    const hub = startPico(['fleet', 'hub', '--root', join(dir, 'hub'), '--server', server], as('hub'));
    await hub.waitFor((l) => l.event === 'ready');
    const box = join(dir, 'shop-17');
    initRoot(box);
    const daemon = startPico(['daemon', '--root', box]);
    await daemon.waitFor((l) => l.event === 'ready');
    const agent = startPico(['fleet', 'agent', '--root', box, '--box', 'shop-17', '--server', server], as('shop-17'));
    await agent.waitFor((l) => l.event === 'ready');

    const job = join(box, 'examples', 'jobs', 'why-is-the-disk-full.json');
    const sent = await pico(['fleet', 'submit', job, '--to', 'box=shop-17', '--server', server, '--json'], as('operator'));
    expect(sent.code, sent.stderr).toBe(0);
    const id = (JSON.parse(sent.stdout) as { id: string }).id;
    const watched = await pico(['fleet', 'watch', id, '--server', server, '--json', '--timeout', '20'], as('operator'));
    expect(watched.code, watched.stderr + watched.stdout).toBe(0);
    const st = await pico(['fleet', 'status', '--server', server], as('operator'));
    expect(st.stdout, st.stderr).toMatch(/^shop-17 +online/m);
    expect((await pico(['fleet', 'jobs', '--server', server], as('operator'))).stdout).toContain(id);
    for (let i = 0; i < 100 && !existsSync(join(dir, 'hub', 'fleet', 'shop-17', 'sessions', id, 'events.jsonl')); i++) await sleep(100);
    expect(readdirSync(join(dir, 'hub', 'fleet', 'shop-17', 'sessions'))).toEqual([id]);
    expect(agent.lines.filter((l) => (l.level as number) >= 40)).toEqual([]);

    // what the server refuses, straight from the client library
    const refused = async (user: string, subject: string): Promise<boolean> => {
      const nc = await connect({ servers: server, user, pass: `${user}-change-me` });
      try {
        await jetstream(nc).publish(subject, '{"seq":0,"type":"user_input"}', { timeout: 2_000 });
        return false;
      } catch (err) {
        return /Permissions Violation/i.test((err as Error).message);
      } finally {
        await nc.close();
      }
    };
    expect(await refused('shop-17', `pico.ev.shop-18.${id}`)).toBe(true);
    expect(await refused('shop-17', 'pico.job.box.shop-17')).toBe(true);
    expect(await refused('shop-17', '$KV.pico_boxes.shop-18')).toBe(true);
    expect(await refused('operator', `pico.ev.shop-17.${id}`)).toBe(true);
    expect(await refused('shop-17', `pico.ev.shop-17.${id}`)).toBe(false); // its own subject is open to it

    for (const p of [agent, hub, daemon, nats]) await p.kill('SIGTERM');
  }, 90_000);
});
