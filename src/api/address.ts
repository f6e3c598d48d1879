/**
 * Where the loopback API listens: the one reader of a `listen` value.
 *
 * The API is for the box itself, never for the network: a value is
 * `127.x.y.z:PORT`, `[::1]:PORT`, `localhost:PORT` or `unix:PATH` (the same
 * pattern settings.json is checked against), and once bound the address the
 * kernel actually gave is checked again, so a `localhost` that resolves to
 * something else is refused, not served. A relative unix path is taken from
 * the root. This module parses and judges; it binds nothing.
 */
import { isAbsolute, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { LISTEN_PATTERN } from '../daemon/settings.js';

export type ListenAddress = { kind: 'tcp'; host: string; port: number; text: string } | { kind: 'unix'; path: string; text: string };

export class ListenError extends Error {
  override name = 'ListenError';
  constructor(message: string, readonly fix: string) {
    super(message);
  }
}

const FIX = 'give --listen (or "listen" in settings.json) as 127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:PATH; the API serves this machine only';

/** Parse a listen value; a relative unix path is resolved against `root`. */
export function parseListen(text: string, root: string): ListenAddress {
  if (!LISTEN_PATTERN.test(text)) throw new ListenError(`listen address ${JSON.stringify(text)} is not a loopback address`, FIX);
  if (text.startsWith('unix:')) {
    const p = text.slice('unix:'.length);
    return { kind: 'unix', path: isAbsolute(p) ? p : resolve(root, p), text };
  }
  const colon = text.lastIndexOf(':');
  const rawHost = text.slice(0, colon);
  const port = Number(text.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ListenError(`listen address ${JSON.stringify(text)}: port ${text.slice(colon + 1)} is not 0-65535`, FIX);
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  if (host !== 'localhost' && host !== '::1' && !isLoopbackIp(host)) throw new ListenError(`listen address ${JSON.stringify(text)}: ${host} is not a loopback address`, FIX);
  return { kind: 'tcp', host, port, text };
}

/** True for 127.0.0.0/8 (each octet 0-255), ::1 and ::ffff:127.x.y.z. */
export function isLoopbackIp(ip: string): boolean {
  if (ip === '::1') return true;
  const v4 = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  const parts = v4.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** Check the address a TCP server was actually bound to (throws ListenError when it is not loopback). */
export function checkBound(a: AddressInfo | string | null, wanted: string): void {
  if (a === null || typeof a === 'string') return; // a unix socket: its permissions guard it
  if (!isLoopbackIp(a.address)) throw new ListenError(`listen address ${JSON.stringify(wanted)} was bound to ${a.address}, which is not loopback; the API was closed`, FIX);
}

/** The address as a person would type it into curl (the port the kernel chose for :0). */
export function describeBound(a: AddressInfo | string | null, addr: ListenAddress): string {
  if (addr.kind === 'unix' || a === null || typeof a === 'string') return addr.kind === 'unix' ? `unix:${addr.path}` : addr.text;
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}
