/**
 * The throttling capture → throttling@1: the Raspberry Pi firmware's
 * throttling and under-voltage bits in words, and the CPU clock against its
 * maximum (a throttled Pi runs slower than it can).
 *
 * Sections of the throttling script: "== sysfs" (the firmware's
 * get_throttled file, which the Raspberry Pi kernel exposes as hex without
 * "0x", or "absent"), "== vcgencmd" (`vcgencmd get_throttled` —
 * "throttled=0x50005" — and `vcgencmd measure_clock arm` —
 * "frequency(48)=1500398464" in Hz — or "not installed") and "== cpufreq"
 * ("cpuN cur=KHZ max=KHZ limit=KHZ" per CPU). The bits, as the Raspberry Pi
 * documentation gives them: 0 under-voltage, 1 ARM frequency capped, 2
 * throttled, 3 soft temperature limit, each now; bits 16–19 the same since
 * boot. The words are a closed list (WORDS); nothing from the capture is
 * copied into them. Off a Pi (no file, no vcgencmd), every bit is unknown:
 * the lists are empty and `source` is null, never "no throttling".
 */
import { sections } from '../lib/sections.js';
import { round } from '../lib/single-schema.js';

/** The meaning of bits 0–3 (now) and 16–19 (since boot), in words. */
export const WORDS = ['under-voltage', 'ARM frequency capped', 'throttled', 'soft temperature limit'] as const;
export type Word = (typeof WORDS)[number];

export interface Throttling {
  source: 'sysfs' | 'vcgencmd' | null;
  bits_hex: string | null;
  now: Word[];
  since_boot: Word[];
  cpu_mhz: number | null;
  max_mhz: number | null;
  limit_mhz: number | null;
  clock_percent: number | null;
}

/** The words of the bits set in `bits`, for bits `from`..`from + 3`. */
export function bitWords(bits: number, from: number): Word[] {
  return WORDS.filter((_, i) => (bits & (1 << (from + i))) !== 0);
}

/** Parse one throttling capture. */
export function parseThrottling(text: string): Throttling {
  const s = sections(text);
  const sys = (s.get('sysfs') ?? []).map((l) => l.trim()).find((l) => /^(?:0x)?[0-9a-fA-F]+$/.test(l));
  const vc = (s.get('vcgencmd') ?? []).map((l) => /^throttled=(0x[0-9a-fA-F]+)\s*$/.exec(l.trim())?.[1]).find((h) => h !== undefined);
  const hex = sys !== undefined ? (sys.startsWith('0x') ? sys : `0x${sys}`) : vc ?? null;
  const bits = hex === null ? null : Number.parseInt(hex.slice(2), 16);
  const arm = (s.get('vcgencmd') ?? []).map((l) => /^frequency\(\d+\)=(\d+)\s*$/.exec(l.trim())?.[1]).find((h) => h !== undefined);
  const cpus = (s.get('cpufreq') ?? []).map((l) => /^cpu\d+ cur=(\d+) max=(\d*) limit=(\d*)\s*$/.exec(l.trim())).filter((m): m is RegExpExecArray => m !== null);
  const mhz = (khz: string | undefined) => (khz ? round(Number(khz) / 1000, 0) : null);
  // the clock now: the firmware's own ARM reading when there is one, else the fastest CPU's
  const cur = arm !== undefined ? round(Number(arm) / 1e6, 0) : cpus.length ? Math.max(...cpus.map((m) => mhz(m[1])!)) : null;
  const max = cpus.length ? Math.max(...cpus.map((m) => mhz(m[2]) ?? 0)) || null : null;
  const limit = cpus.length ? Math.max(...cpus.map((m) => mhz(m[3]) ?? 0)) || null : null;
  return {
    source: sys !== undefined ? 'sysfs' : vc !== undefined ? 'vcgencmd' : null,
    bits_hex: hex,
    now: bits === null ? [] : bitWords(bits, 0),
    since_boot: bits === null ? [] : bitWords(bits, 16),
    cpu_mhz: cur,
    max_mhz: max,
    limit_mhz: limit,
    clock_percent: cur !== null && max ? round((100 * cur) / max) : null,
  };
}
