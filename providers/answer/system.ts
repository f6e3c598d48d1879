/**
 * Sentences for the machine's resources: memory_usage@1, load_processes@1,
 * thermal@1 and network@1. Each says what the fact holds in one or two
 * short sentences; a field that is null (or not the type its schema
 * promises) is said to be unknown, never guessed; strings from the capture
 * (process names, interface names, addresses) appear only quoted. State
 * words are printed only when they are one of the schema's own.
 */
import { count, humanBytes, int, list, n, num, obj, oneOf, quote, quotedList, STATES, str, bool } from './words.js';

type Fact = Record<string, unknown>;

/** memory_usage@1: RAM in use and available, then swap. */
export function memorySentence(f: Fact): string {
  const used = num(f.used_percent);
  const total = int(f.total_bytes);
  const avail = int(f.available_bytes);
  const state = oneOf(f.state, STATES);
  let s = used === null
    ? `Memory in use is unknown${total !== null ? ` (${humanBytes(total)} in all)` : ''}.`
    : `Memory is ${n(used)}% used${total !== null ? ` of ${humanBytes(total)}` : ''}${state ? ` (${state})` : ''}${avail !== null ? `, ${humanBytes(avail)} available` : ''}.`;
  const swapTotal = int(f.swap_total_bytes);
  const swapUsed = num(f.swap_used_percent);
  const swapBytes = int(f.swap_used_bytes);
  if (swapTotal === 0) s += ' There is no swap.';
  else if (swapTotal === null) s += ' Swap is unknown.';
  else if (swapUsed === null) s += ` Swap use is unknown (${humanBytes(swapTotal)} of swap).`;
  else s += ` Swap is ${n(swapUsed)}% used${swapBytes !== null ? ` (${humanBytes(swapBytes)} of ${humanBytes(swapTotal)})` : ''}.`;
  return s;
}

/** One process as "name" (pid N, x% CPU, y% memory), with what the row holds. */
function processPhrase(p: Fact): string {
  const bits = [
    int(p.pid) !== null ? `pid ${int(p.pid)}` : null,
    num(p.cpu_percent) !== null ? `${n(num(p.cpu_percent)!)}% CPU` : null,
    num(p.mem_percent) !== null ? `${n(num(p.mem_percent)!)}% memory` : null,
  ].filter(Boolean);
  return `${quote(str(p.command) ?? '?')}${bits.length ? ` (${bits.join(', ')})` : ''}`;
}

/** load_processes@1: the load averages against the CPUs, then the busiest process. */
export function loadSentence(f: Fact): string {
  const loads = [num(f.load_1m), num(f.load_5m), num(f.load_15m)];
  const cpus = int(f.cpus);
  const per = num(f.load_per_cpu);
  const state = oneOf(f.state, STATES);
  let s = loads[0] === null
    ? 'The load average is unknown.'
    : `Load averages ${loads.map((l) => (l === null ? '?' : n(l, 2))).join(' / ')} (1, 5, 15 min) on ${cpus !== null ? count(cpus, 'CPU') : 'an unknown number of CPUs'}${per !== null ? `, ${n(per, 2)} per CPU` : ''}${state ? ` (${state})` : ''}.`;
  const top = obj(f.top);
  const by = oneOf(f.sorted_by, ['cpu', 'memory'] as const);
  if (top) s += ` Top process${by ? ` by ${by === 'cpu' ? 'CPU' : 'memory'}` : ''}: ${processPhrase(top)}.`;
  else s += ' No process list was captured.';
  return s;
}

const NOW: [string, string][] = [['under_voltage', 'under-voltage'], ['freq_capped', 'frequency capping'], ['throttled', 'throttling'], ['soft_temp_limit', 'the soft temperature limit']];

/** thermal@1: the hottest reading, then the firmware's throttle flags now and since boot. */
export function thermalSentence(f: Fact): string {
  const max = num(f.max_celsius);
  const fw = num(f.firmware_celsius);
  const state = oneOf(f.state, STATES);
  const readings = [max !== null ? `the hottest zone reads ${n(max)} °C` : null, fw !== null ? `the firmware reads ${n(fw)} °C` : null].filter(Boolean);
  let s = readings.length ? `Temperature: ${readings.join(', ')}${state ? ` (${state})` : ''}.` : 'The temperature is unknown.';
  if (str(f.throttled_hex) === null) {
    s += ' Throttling and under-voltage are unknown.';
  } else {
    const now = NOW.filter(([k]) => bool(f[`${k}_now`]) === true).map(([, w]) => w);
    const since = NOW.filter(([k]) => bool(f[`${k}_since_boot`]) === true && bool(f[`${k}_now`]) !== true).map(([, w]) => w);
    if (now.length) s += ` Active now: ${now.join(', ')}.`;
    if (since.length) s += ` Seen since boot: ${since.join(', ')}.`;
    if (!now.length && !since.length) s += ' No throttling or under-voltage now or since boot.';
  }
  if (str(f.note)) s += ` Note: ${quote(f.note)}.`;
  return s;
}

// the owner's words for the Wi-Fi, and the names Linux gives a wireless interface (wlan0, wlp2s0, wlx…)
const ASKS_WIFI = /\b(?:wi-?fi|wireless|wlan\d*)\b/i;
const WIRELESS = /^wl/;

/**
 * network@1: the default route, then which interfaces are up and their IPv4 addresses; when the
 * goal (the owner's own words, T0) asks about the Wi-Fi, whether a wireless interface is there at
 * all ("There is no wireless interface here …"), so a wired link never reads as the Wi-Fi's answer.
 */
export function networkSentence(f: Fact, goal = ''): string {
  const s = networkState(f);
  if (!ASKS_WIFI.test(goal)) return s;
  const named = list(f.interfaces).map(obj).filter((i): i is Fact => i !== null && str(i.name) !== null);
  const wireless = named.filter((i) => WIRELESS.test(i.name as string));
  if (named.length === 0) return s;
  if (wireless.length === 0) return `${s} There is no wireless interface here (none named wl…), so the Wi-Fi could not be checked.`;
  const states = wireless.map((i) => `${quote(i.name)} ${str(i.state) === 'UP' ? 'is up' : str(i.state) === null ? 'is in an unknown state' : 'is down'}`);
  return `${s} The wireless interface${wireless.length > 1 ? 's' : ''}: ${states.join(', ')}.`;
}

function networkState(f: Fact): string {
  const gw = str(f.default_gateway);
  const dev = str(f.default_interface);
  const routes = int(f.route_count);
  let s = gw !== null || dev !== null
    ? `Default route${gw !== null ? ` via ${quote(gw)}` : ''}${dev !== null ? ` on ${quote(dev)}` : ''}.`
    : routes === null ? 'The routes are unknown.' : 'There is no default route.';
  const ifaces = list(f.interfaces).map(obj).filter((i): i is Fact => i !== null && str(i.name) !== null && i.name !== 'lo');
  if (ifaces.length === 0) return `${s} No interface besides loopback was read.`;
  const states = ifaces.map((i) => str(i.state));
  if (states.every((x) => x === null)) s += ` Interfaces: ${quotedList(ifaces.map((i) => i.name))} (their states are unknown).`;
  else {
    const up = ifaces.filter((i) => i.state === 'UP');
    s += ` ${up.length} of ${count(ifaces.length, 'interface')} up`;
    const addr = up.map((i) => [i.name, list(i.ipv4).find((a) => typeof a === 'string')]).filter(([, a]) => a !== undefined);
    s += addr.length ? `: ${addr.slice(0, 3).map(([name, a]) => `${quote(name)} ${quote(a)}`).join(', ')}.` : '.';
  }
  return s;
}
