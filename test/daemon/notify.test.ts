/**
 * Issue 3 item 6: "implement the notify protocol with no native addon and
 * test it against a real unix datagram socket passed as NOTIFY_SOCKET".
 * The receiving socket is bound by a python3 process (notify-receiver.ts),
 * because Node cannot bind unix datagram sockets.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { bindNotifyReceiver, type NotifyReceiver } from '../../src/daemon/notify-receiver.js';
import { encodeNotify, openNotifier, watchdogPingMs } from '../../src/daemon/notify.js';
import { memoryLog, quietLog, tempRoot } from './helpers.js';

const open: NotifyReceiver[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.close();
});

/** Bind a receiver that is closed after the test. */
async function bindReceiver(addr: string): Promise<NotifyReceiver> {
  const r = await bindNotifyReceiver(addr);
  open.push(r);
  return r;
}

describe('sd_notify', () => {
  it('READY=1 and STATUS reach a socket bound at a path, in order', async () => {
    const path = join(tempRoot(), 'notify.sock');
    const rx = await bindReceiver(path);
    const n = openNotifier({ NOTIFY_SOCKET: path, PATH: process.env.PATH }, quietLog());
    expect(n.active).toBe(true);
    n.send({ READY: '1', STATUS: 'idle; 0 queued' });
    n.send({ STOPPING: '1' });
    expect(await rx.next()).toBe('READY=1\nSTATUS=idle; 0 queued');
    expect(await rx.next()).toBe('STOPPING=1');
    await n.close();
  });

  it('an abstract @name socket receives the messages too', async () => {
    const name = `@pico-test-${randomBytes(6).toString('hex')}`;
    const rx = await bindReceiver(name);
    const n = openNotifier({ NOTIFY_SOCKET: name, PATH: process.env.PATH }, quietLog());
    n.send({ READY: '1' });
    expect(await rx.next()).toBe('READY=1');
    await n.close();
  });

  it('the watchdog pings WATCHDOG=1 at half of WATCHDOG_USEC while healthy, and not when unhealthy', async () => {
    const name = `@pico-test-${randomBytes(6).toString('hex')}`;
    const rx = await bindReceiver(name);
    let healthy = true;
    const n = openNotifier({ NOTIFY_SOCKET: name, WATCHDOG_USEC: '100000', PATH: process.env.PATH }, quietLog());
    expect(n.startWatchdog(() => healthy)).toBe(50);
    expect(await rx.next()).toBe('WATCHDOG=1');
    expect(await rx.next()).toBe('WATCHDOG=1');
    healthy = false;
    await new Promise((r) => setTimeout(r, 150)); // let a ping already in flight arrive
    rx.messages.length = 0;
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.messages).toEqual([]);
    await n.close();
  });

  it('without NOTIFY_SOCKET nothing is spawned and sending is a no-op', async () => {
    const n = openNotifier({}, quietLog());
    expect(n.active).toBe(false);
    n.send({ READY: '1' });
    expect(n.startWatchdog(() => true)).toBeNull();
    await n.close();
  });

  it('a socket nobody listens on is reported at warn and does not throw', async () => {
    const { log, lines } = memoryLog();
    const n = openNotifier({ NOTIFY_SOCKET: join(tempRoot(), 'nobody.sock'), PATH: process.env.PATH }, log);
    n.send({ READY: '1' });
    await n.close();
    expect(lines.some((l) => l.level === 40 && String(l.helper).includes('send to'))).toBe(true);
  });

  it('the watchdog interval is half of WATCHDOG_USEC, and ignored when WATCHDOG_PID names another process', () => {
    expect(watchdogPingMs({ WATCHDOG_USEC: '30000000' })).toBe(15000);
    expect(watchdogPingMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: String(process.pid) })).toBe(15000);
    expect(watchdogPingMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '1' }, 2)).toBeNull();
    expect(watchdogPingMs({})).toBeNull();
  });

  it('a newline in a value cannot forge a second field', () => {
    expect(encodeNotify({ STATUS: 'a\nREADY=1' })).toBe('STATUS=a READY=1');
  });
});

describe('sd_notify helper life', () => {
  it('a helper killed from outside is started again and messages keep arriving', async () => {
    const name = `@pico-test-${randomBytes(6).toString('hex')}`;
    const rx = await bindReceiver(name);
    const { log, lines } = memoryLog();
    const n = openNotifier({ NOTIFY_SOCKET: name, PATH: process.env.PATH }, log);
    n.send({ STATUS: 'one' });
    expect(await rx.next()).toBe('STATUS=one');
    const pids = execFileSync('pgrep', ['-P', String(process.pid), 'perl'], { encoding: 'utf8' }).trim().split('\n');
    for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
    for (let i = 0; i < 100 && !lines.some((l) => l.restarting === true); i++) await new Promise((r) => setTimeout(r, 10));
    n.send({ STATUS: 'two' });
    expect(await rx.next()).toBe('STATUS=two');
    await n.close();
  });
});

describe('sd_notify helper and signals', () => {
  it('SIGTERM and SIGINT meant for the whole service do not silence the helper', async () => {
    const name = `@pico-test-${randomBytes(6).toString('hex')}`;
    const rx = await bindReceiver(name);
    const { log, lines } = memoryLog();
    const n = openNotifier({ NOTIFY_SOCKET: name, PATH: process.env.PATH }, log);
    n.send({ STATUS: 'up' });
    expect(await rx.next()).toBe('STATUS=up');
    const pids = execFileSync('pgrep', ['-P', String(process.pid), 'perl'], { encoding: 'utf8' }).trim().split('\n');
    for (const pid of pids) {
      process.kill(Number(pid), 'SIGTERM');
      process.kill(Number(pid), 'SIGINT');
    }
    await new Promise((r) => setTimeout(r, 100));
    n.send({ STOPPING: '1' });
    expect(await rx.next()).toBe('STOPPING=1');
    expect(lines.filter((l) => l.restarting !== undefined)).toEqual([]);
    await n.close();
  });
});
