/**
 * The network capture → network@1: each interface with its state, MAC, MTU
 * and addresses, and the default route.
 *
 * The tool's script prints "== ip -j addr" and "== ip -j route" sections (the
 * JSON iproute2 writes), or, where `ip` is missing, "== /proc/net/dev" and
 * "== /proc/net/route" (the kernel's tables: names, and routes in
 * little-endian hex). From /proc the state, MAC, MTU and addresses are not
 * known, so they are null, never guessed. A section that is not valid JSON is
 * treated as absent. The default route is the one with the lowest metric.
 */
import { sections } from '../lib/sections.js';

export interface Interface {
  name: string;
  state: string | null;
  mac: string | null;
  mtu: number | null;
  ipv4: string[] | null;
  ipv6: string[] | null;
}

export interface Network {
  source: 'ip' | 'proc' | null;
  interfaces: Interface[];
  default_gateway: string | null;
  default_interface: string | null;
  route_count: number | null;
  note: string | null;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** JSON of one section, or null when it is missing or not a JSON array. */
function jsonArray(lines: string[] | undefined): Json[] | null {
  if (!lines) return null;
  try {
    const v = JSON.parse(lines.join('\n')) as unknown;
    return Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Json[]) : null;
  } catch {
    return null;
  }
}

/** One `ip -j addr` entry. */
function fromIp(e: Json): Interface | null {
  const name = str(e.ifname);
  if (!name) return null;
  const addrs = Array.isArray(e.addr_info) ? (e.addr_info as Json[]) : [];
  const of = (family: string) => addrs.filter((a) => a.family === family && str(a.local)).map((a) => `${a.local as string}/${String(a.prefixlen)}`);
  return {
    name, state: str(e.operstate), mac: str(e.address), mtu: typeof e.mtu === 'number' ? e.mtu : null,
    ipv4: of('inet'), ipv6: of('inet6'),
  };
}

/** The lowest-metric default route of `ip -j route`. */
function ipDefault(routes: Json[]): { gateway: string | null; dev: string | null } | null {
  const defaults = routes.filter((r) => r.dst === 'default').sort((a, b) => Number(a.metric ?? 0) - Number(b.metric ?? 0));
  const d = defaults[0];
  return d ? { gateway: str(d.gateway), dev: str(d.dev) } : null;
}

/** A /proc/net/route hex address (little-endian) in dotted form. */
export function hexToIpv4(hex: string): string | null {
  if (!/^[0-9A-Fa-f]{8}$/.test(hex)) return null;
  const n = Number.parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

/** Parse the /proc/net fallback sections. */
function fromProc(dev: string[] | undefined, route: string[] | undefined): Omit<Network, 'note'> {
  const interfaces: Interface[] = [];
  for (const line of dev ?? []) {
    const m = /^\s*([^\s:|]+):\s*\d/.exec(line);
    if (m) interfaces.push({ name: m[1]!, state: null, mac: null, mtu: null, ipv4: null, ipv6: null });
  }
  const rows = (route ?? []).slice(1).map((l) => l.trim().split(/\s+/)).filter((c) => c.length >= 8);
  const defaults = rows.filter((c) => c[1] === '00000000' && c[7] === '00000000').sort((a, b) => Number(a[6]) - Number(b[6]));
  const d = defaults[0];
  return {
    source: 'proc', interfaces,
    default_gateway: d ? hexToIpv4(d[2]!) : null, default_interface: d ? d[0]! : null,
    route_count: route ? rows.length : null,
  };
}

/** Parse one network capture. */
export function parseNetwork(text: string): Network {
  const s = sections(text);
  if (s.has('ip -j addr') || s.has('ip -j route')) {
    const addr = jsonArray(s.get('ip -j addr'));
    const routes = jsonArray(s.get('ip -j route'));
    const d = routes ? ipDefault(routes) : null;
    const notes = [addr ? null : 'ip -j addr printed no JSON', routes ? null : 'ip -j route printed no JSON'].filter(Boolean);
    return {
      source: 'ip',
      interfaces: (addr ?? []).map(fromIp).filter((i): i is Interface => i !== null),
      default_gateway: d?.gateway ?? null, default_interface: d?.dev ?? null,
      route_count: routes ? routes.length : null,
      note: notes.length ? notes.join('; ') : null,
    };
  }
  if (s.has('/proc/net/dev') || s.has('/proc/net/route')) {
    return { ...fromProc(s.get('/proc/net/dev'), s.get('/proc/net/route')), note: 'ip is not installed: read /proc/net, which has no link state, MAC, MTU or addresses' };
  }
  return { source: null, interfaces: [], default_gateway: null, default_interface: null, route_count: null, note: 'the capture has neither ip nor /proc/net sections' };
}
