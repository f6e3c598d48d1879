/**
 * Issue 36's rule on the box's side of the fleet: the agent reads the box's
 * root through the one safe open too. A ledger that is a symlink out of the
 * root is never shipped (what it points at never reaches the fleet), and a
 * FIFO planted as a composition document stalls nothing: the box's real
 * sessions still reach the hub and its heartbeat still comes. A real
 * nats-server, hub, daemon and agent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initRoot } from '../../src/root/init.js';
import { NATS_SERVER, natsInTemp, pico, sleep, startPico } from './procs.js';

describe.skipIf(!NATS_SERVER)('an agent on a box with planted files', () => {
  it('ships no ledger a symlink points at, and a FIFO as a composition document stalls neither shipping nor the heartbeat', async () => {
    const { dir, server } = await natsInTemp('pico-fleet-planted-box-');
    const root = join(dir, 'b1');
    initRoot(root);
    const secret = join(dir, 'secret.jsonl');
    const linked = '20261203-050505-00000000000a';
    writeFileSync(secret, `${JSON.stringify({ seq: 0, t: '2026-12-03T05:05:05.000Z', type: 'user_input', session_id: linked, text: 'SECRET' })}\n`);
    mkdirSync(join(root, 'sessions', linked));
    symlinkSync(secret, join(root, 'sessions', linked, 'events.jsonl'));
    const fifoDoc = '20261203-050505-00000000000b';
    mkdirSync(join(root, 'sessions', fifoDoc));
    writeFileSync(join(root, 'sessions', fifoDoc, 'events.jsonl'), `${JSON.stringify({ seq: 0, t: '2026-12-03T05:05:05.000Z', type: 'composition', session_id: fifoDoc, hash: `sha256:${'a'.repeat(64)}`, machine: 'm', config: 'c' })}\n`);
    expect(spawnSync('mkfifo', [join(root, 'sessions', fifoDoc, 'composition.json')]).status).toBe(0);

    const hubRoot = join(dir, 'hub');
    mkdirSync(hubRoot);
    const hub = startPico(['fleet', 'hub', '--root', hubRoot, '--server', server]);
    await hub.waitFor((l) => l.event === 'ready');
    const daemon = startPico(['daemon', '--root', root]);
    await daemon.waitFor((l) => l.event === 'ready');
    const agent = startPico(['fleet', 'agent', '--root', root, '--box', 'b1', '--server', server]);
    await agent.waitFor((l) => l.event === 'ready');

    const sent = await pico(['fleet', 'submit', join(root, 'examples', 'jobs', 'why-is-the-disk-full.json'), '--to', 'box=b1', '--server', server, '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const id = (JSON.parse(sent.stdout) as { id: string }).id;
    const copy = (s: string) => join(hubRoot, 'fleet', 'b1', 'sessions', s, 'events.jsonl');
    for (let i = 0; i < 600 && !existsSync(copy(id)); i++) await sleep(100);
    expect(existsSync(copy(id)), 'the real session reached the hub').toBe(true);
    expect(existsSync(copy(fifoDoc)), 'the session beside a FIFO document still ships').toBe(true);
    expect(existsSync(copy(linked)), 'a symlinked ledger never ships').toBe(false);
    expect(agent.lines.some((l) => l.event === 'ledger_refused' && String(l.file).endsWith(`${linked}/events.jsonl`))).toBe(true);
    const st = await pico(['fleet', 'status', '--server', server]);
    expect(st.stdout, st.stderr).toMatch(/^b1 +online/m);
    expect(agent.child.exitCode).toBeNull();
    for (const p of [agent, daemon, hub]) await p.kill('SIGTERM');
  }, 120_000);
});
