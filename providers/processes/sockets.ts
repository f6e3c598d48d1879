/**
 * The listening_sockets capture → listening_sockets@1: what listens on this
 * machine (TCP listening, UDP bound), by port, with the program that holds
 * each socket where this user may see it.
 *
 * The capture: "== filter port=N" / "== filter name=NAME" (what was asked),
 * then "== ss" and `ss -H -l -n -t -u -p` (Netid State Recv-Q Send-Q
 * Local:Port Peer:Port [users:(("name",pid=N,fd=N),…)]), or, where ss is
 * missing, "== proc tcp|tcp6|udp|udp6" and the kernel's tables (addresses in
 * hex; no program can be named from them). ss names a socket's program only
 * when this user may look into that process's file descriptors: its own
 * process with no user namespace between them, or as root — inside the
 * execution world's sandbox that is rarely so, and a socket it cannot name is
 * counted in `unattributed`, never guessed.
 *
 * With a filter, `sockets` holds the matching ones (a port, or a program of
 * that name — a unit's name read as its program's); without one, all.
 */
import { sections } from '../lib/sections.js';

export interface Socket {
  protocol: 'tcp' | 'udp';
  address: string;
  port: number;
  process: string | null;
  pid: number | null;
}

export interface ListeningSockets {
  port: number | null;
  name: string | null;
  source: 'ss' | 'proc' | null;
  count: number | null;
  sockets: Socket[];
  matching: number | null;
  unattributed: number | null;
}

export const MAX_SOCKETS = 50;
const UNIT_SUFFIX = /\.(?:service|socket|timer|target|scope|slice)$/;
const SS_ROW = /^(tcp|udp)\s+(LISTEN|UNCONN)\s+\d+\s+\d+\s+(\S+)\s+\S+(?:\s+users:\((.*)\))?\s*$/;
const SS_USER = /\("((?:[^"\\]|\\.)*)",pid=(\d+),fd=\d+\)/g;

/** "0.0.0.0:80", "[::]:443", "*:68", "127.0.0.53%lo:53" → address and port. */
function split(local: string): { address: string; port: number } | null {
  const m = /^(.*):(\d+|\*)$/.exec(local);
  if (!m || m[2] === '*') return null;
  return { address: m[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
}

/** One ss row; a socket several processes hold (nginx's workers) is one socket named by its first. */
function ssRow(line: string): Socket | null {
  const m = SS_ROW.exec(line.trim());
  if (!m) return null;
  const at = split(m[3]!);
  if (!at) return null;
  const first = m[4] ? [...m[4].matchAll(SS_USER)][0] : undefined;
  return { protocol: m[1] as 'tcp' | 'udp', ...at, process: first ? first[1]! : null, pid: first ? Number(first[2]) : null };
}

/** A hex address of /proc/net/tcp (little-endian per 32-bit word) as text. */
function hexAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => (w.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < bytes.length; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** The listening rows of one /proc/net table (TCP state 0A, UDP unconnected 07). */
function procRows(table: string, lines: readonly string[]): Socket[] {
  const protocol = table.startsWith('tcp') ? 'tcp' : 'udp';
  const out: Socket[] = [];
  for (const l of lines) {
    const m = /^\s*\d+:\s+([0-9A-F]+):([0-9A-F]{4})\s+[0-9A-F]+:[0-9A-F]{4}\s+([0-9A-F]{2})\s/.exec(l);
    if (!m || m[3] !== (protocol === 'tcp' ? '0A' : '07')) continue;
    out.push({ protocol, address: hexAddress(m[1]!), port: Number.parseInt(m[2]!, 16), process: null, pid: null });
  }
  return out;
}

/** Parse one listening_sockets capture. */
export function parseListeningSockets(text: string): ListeningSockets {
  const s = sections(text);
  const filter = (k: string) => [...s.keys()].find((x) => x.startsWith(`filter ${k}=`))?.slice(`filter ${k}=`.length).trim() || null;
  const portText = filter('port');
  const port = portText !== null && /^\d{1,5}$/.test(portText) ? Number(portText) : null;
  const name = filter('name')?.replace(UNIT_SUFFIX, '') ?? null;
  let all: Socket[] | null = null;
  let source: ListeningSockets['source'] = null;
  if (s.has('ss')) {
    source = 'ss';
    all = s.get('ss')!.map(ssRow).filter((x): x is Socket => x !== null);
  } else if ([...s.keys()].some((k) => k.startsWith('proc '))) {
    source = 'proc';
    all = [...s.keys()].filter((k) => k.startsWith('proc ')).flatMap((k) => procRows(k.slice(5), s.get(k)!));
  }
  if (all === null) return { port, name, source, count: null, sockets: [], matching: null, unattributed: null };
  const seen = new Set<string>();
  all = all.filter((x) => {
    const k = `${x.protocol} ${x.address} ${x.port}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const filtered = port !== null || name !== null;
  const matches = all.filter((x) => (port === null || x.port === port) && (name === null || x.process === name));
  return {
    port, name, source,
    count: all.length,
    sockets: (filtered ? matches : all).slice(0, MAX_SOCKETS),
    matching: filtered ? matches.length : null,
    unattributed: all.filter((x) => x.process === null).length,
  };
}
