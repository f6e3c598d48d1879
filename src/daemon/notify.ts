/**
 * The systemd notify protocol (sd_notify) without a native addon.
 *
 * systemd passes `NOTIFY_SOCKET` (a path, or `@name` for an abstract socket)
 * and expects datagrams such as `READY=1`, `WATCHDOG=1`, `STOPPING=1`,
 * `STATUS=…`. Node has no unix datagram sockets, so one small helper process
 * sends them: `perl` with its core `Socket` module. Why perl: `perl-base` is
 * an Essential package on Debian and Raspberry Pi OS (installed everywhere,
 * Lite images included), while `systemd-notify` spawned per message races
 * systemd's sender lookup (the sender exits before systemd reads its cgroup)
 * and python3 is not guaranteed on minimal images. The helper lives as long
 * as the daemon, so it stays in the service's cgroup; the unit therefore sets
 * `NotifyAccess=all`. Messages go to its stdin separated by NUL bytes.
 *
 * Without NOTIFY_SOCKET every call is a no-op. A failing helper is logged at
 * warn and never stops the daemon. This module does not decide when to say
 * what (loop.ts does) — except the watchdog timer, which pings at half of
 * `WATCHDOG_USEC` while `healthy()` says yes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';

const HELPER = [
  'use strict; use Socket;',
  // systemd's stop and a terminal's Ctrl-C signal the whole group: the helper outlives
  // them (STOPPING=1 still goes out) and ends when the daemon closes its stdin or dies
  '$SIG{TERM} = $SIG{INT} = $SIG{HUP} = "IGNORE";',
  'my $p = $ENV{NOTIFY_SOCKET}; $p =~ s/^\\@/\\0/;',
  'socket(my $s, PF_UNIX, SOCK_DGRAM, 0) or die "notify helper: socket: $!\\n";',
  'my $a = pack_sockaddr_un($p); $/ = "\\0";',
  'while (my $m = <STDIN>) { chomp $m; defined(send($s, $m, 0, $a)) or print STDERR "notify helper: send to $ENV{NOTIFY_SOCKET}: $!\\n"; }',
].join(' ');

export interface Notifier {
  /** true when NOTIFY_SOCKET was set and the helper started */
  readonly active: boolean;
  /** Send one message: `{READY: '1', STATUS: 'idle'}` becomes `READY=1\nSTATUS=idle`. */
  send(fields: Record<string, string>): void;
  /** Ping WATCHDOG=1 every half interval while `healthy()`; returns the interval in ms, or null when no watchdog. */
  startWatchdog(healthy: () => boolean): number | null;
  /** Stop the watchdog, flush and end the helper. */
  close(): Promise<void>;
}

/** The watchdog ping interval (half of WATCHDOG_USEC) when the watchdog is meant for this process. */
export function watchdogPingMs(env: NodeJS.ProcessEnv, pid = process.pid): number | null {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isFinite(usec) || usec <= 0) return null;
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== pid) return null;
  return Math.max(1, Math.floor(usec / 2000));
}

/** Encode fields as one notify datagram; values lose newlines and NULs so fields cannot be forged. */
export function encodeNotify(fields: Record<string, string>): string {
  return Object.entries(fields)
    // eslint-disable-next-line no-control-regex
    .map(([k, v]) => `${k}=${v.replace(/[\n\0]/g, ' ')}`)
    .join('\n');
}

/** Open a notifier for `env` (usually process.env); inactive when NOTIFY_SOCKET is unset. */
export function openNotifier(env: NodeJS.ProcessEnv, log: Logger): Notifier {
  const socketName = env.NOTIFY_SOCKET;
  let child: ChildProcess | null = null;
  let dog: NodeJS.Timeout | null = null;
  let closing = false;
  let lastRestart = 0;
  // One helper for the daemon's life; if it dies (e.g. killed by hand) it is started
  // again, at most once per 10 s, so the watchdog does not lapse for a lost helper.
  const startHelper = (): void => {
    if (!socketName) return;
    const c = spawn('perl', ['-e', HELPER], {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { NOTIFY_SOCKET: socketName, PATH: env.PATH ?? '/usr/bin:/bin' },
    });
    child = c;
    c.on('error', (err) => {
      log.warn({ err }, `sd_notify helper (perl) could not run (${err.message}); systemd will not see READY/WATCHDOG — install perl-base or run without Type=notify`);
      if (child === c) child = null;
    });
    c.on('exit', (code, signal) => {
      if (child !== c || closing) return;
      child = null;
      const again = Date.now() - lastRestart > 10_000;
      if (again) lastRestart = Date.now();
      log.warn({ code, signal, restarting: again }, `sd_notify helper exited unexpectedly (${signal ?? `code ${code}`})${again ? '; starting it again' : ' twice within 10 s; giving up on notifications'}`);
      if (again) startHelper();
    });
    c.stderr?.setEncoding('utf8').on('data', (d: string) => log.warn({ helper: d.trim() }, `sd_notify helper reported a problem: ${d.trim().split('\n')[0]}`));
    c.stdin?.on('error', () => undefined); // a dead helper is reported by 'error'/'exit'
  };
  startHelper();
  const notifier: Notifier = {
    get active() {
      return child !== null;
    },
    send(fields) {
      child?.stdin?.write(encodeNotify(fields) + '\0');
    },
    startWatchdog(healthy) {
      const ms = watchdogPingMs(env);
      if (ms === null || !child) return null;
      dog = setInterval(() => {
        if (healthy()) notifier.send({ WATCHDOG: '1' });
      }, ms);
      dog.unref();
      return ms;
    },
    async close() {
      closing = true;
      if (dog) clearInterval(dog);
      const c = child;
      child = null;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((done) => {
        const t = setTimeout(() => {
          c.kill('SIGKILL');
          done();
        }, 2000);
        c.once('exit', () => {
          clearTimeout(t);
          done();
        });
        c.stdin?.end();
      });
    },
  };
  return notifier;
}
