/**
 * The thermal capture → thermal@1: every thermal zone's temperature, the
 * hottest, the firmware's own reading and its throttling flags, and a state.
 *
 * The capture is what the thermal tool's script prints: one line
 * "zone thermal_zoneN type=TYPE temp=MILLIDEGREES" per readable zone (or
 * "zone none: ..." when there is none), then `vcgencmd measure_temp` and
 * `vcgencmd get_throttled` output ("temp=48.3'C", "throttled=0x50005"), or
 * "vcgencmd: not installed". Bits of get_throttled, from the Raspberry Pi
 * documentation: 0 under-voltage now, 1 ARM frequency capped now, 2 throttled
 * now, 3 soft temperature limit now; 16–19 the same since boot.
 *
 * State: critical when something is limited now (bits 0–3) or the hottest
 * reading is >= 80 °C (where a Pi starts throttling); warning when a limit
 * happened since boot or the hottest is >= 70 °C; ok otherwise; null when the
 * capture holds no reading at all. `note` says in fixed words which source
 * was missing; it never copies text from the capture.
 */
import { round } from '../lib/single-schema.js';

export interface Zone {
  zone: string;
  type: string | null;
  celsius: number | null;
}

export interface Thermal {
  zones: Zone[];
  max_celsius: number | null;
  firmware_celsius: number | null;
  throttled_hex: string | null;
  under_voltage_now: boolean | null;
  freq_capped_now: boolean | null;
  throttled_now: boolean | null;
  soft_temp_limit_now: boolean | null;
  under_voltage_since_boot: boolean | null;
  freq_capped_since_boot: boolean | null;
  throttled_since_boot: boolean | null;
  soft_temp_limit_since_boot: boolean | null;
  state: 'ok' | 'warning' | 'critical' | null;
  note: string | null;
}

export const HOT_CELSIUS = 80;
export const WARM_CELSIUS = 70;

const ZONE = /^zone (thermal_zone\d+) type=(.*?) temp=(-?\d*)\s*$/;
const FW_TEMP = /^temp=(-?\d+(?:\.\d+)?)'C\s*$/;
const THROTTLED = /^throttled=(0x[0-9a-fA-F]+)\s*$/;

/** Parse one thermal capture. */
export function parseThermal(text: string): Thermal {
  const zones: Zone[] = [];
  let fw: number | null = null;
  let hex: string | null = null;
  let vcgencmd: 'missing' | 'seen' | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const z = ZONE.exec(line);
    if (z) {
      zones.push({ zone: z[1]!, type: z[2] === '' ? null : z[2]!, celsius: z[3] === '' ? null : round(Number(z[3]) / 1000) });
      continue;
    }
    const t = FW_TEMP.exec(line);
    if (t) { fw = Number(t[1]); vcgencmd = 'seen'; continue; }
    const h = THROTTLED.exec(line);
    if (h) { hex = h[1]!; vcgencmd = 'seen'; continue; }
    if (/^vcgencmd: not installed\b/.test(line)) vcgencmd ??= 'missing';
  }
  const bits = hex === null ? null : Number.parseInt(hex.slice(2), 16);
  const bit = (n: number): boolean | null => (bits === null ? null : (bits & (1 << n)) !== 0);
  const readings = [...zones.map((z) => z.celsius), fw].filter((c): c is number => c !== null);
  const max = readings.length > 0 ? Math.max(...readings) : null;
  const now = bits === null ? null : (bits & 0xf) !== 0;
  const past = bits === null ? null : (bits & 0xf0000) !== 0;
  let state: Thermal['state'] = null;
  if (max !== null || bits !== null) {
    if (now === true || (max !== null && max >= HOT_CELSIUS)) state = 'critical';
    else if (past === true || (max !== null && max >= WARM_CELSIUS)) state = 'warning';
    else state = 'ok';
  }
  const notes: string[] = [];
  if (zones.every((z) => z.celsius === null)) notes.push('no readable thermal zone in /sys/class/thermal');
  if (vcgencmd === 'missing') notes.push('vcgencmd is not installed, so throttling is unknown');
  else if (hex === null) notes.push('vcgencmd gave no throttled= reading, so throttling is unknown');
  return {
    zones,
    max_celsius: zones.some((z) => z.celsius !== null) ? Math.max(...zones.flatMap((z) => (z.celsius === null ? [] : [z.celsius]))) : null,
    firmware_celsius: fw,
    throttled_hex: hex,
    under_voltage_now: bit(0), freq_capped_now: bit(1), throttled_now: bit(2), soft_temp_limit_now: bit(3),
    under_voltage_since_boot: bit(16), freq_capped_since_boot: bit(17), throttled_since_boot: bit(18), soft_temp_limit_since_boot: bit(19),
    state,
    note: notes.length > 0 ? notes.join('; ') : null,
  };
}
