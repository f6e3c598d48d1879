/**
 * /proc/meminfo → memory_usage@1: RAM and swap in bytes, how much is in use,
 * and a state. "In use" is MemTotal minus MemAvailable (the kernel's own
 * estimate of what can be had without swapping), not MemTotal minus MemFree,
 * which would count the page cache as used. A line the capture lacks is null
 * (old kernels have no MemAvailable; a machine without swap shows SwapTotal 0,
 * which is a value, not an absence). Sizes are read in the unit the line
 * states ("kB" is KiB as the kernel means it). Pure: text in, value out.
 */
import { round } from '../lib/single-schema.js';

export type MemoryState = 'ok' | 'warning' | 'critical';

export interface MemoryUsage {
  total_bytes: number | null;
  available_bytes: number | null;
  free_bytes: number | null;
  buffers_bytes: number | null;
  cached_bytes: number | null;
  used_percent: number | null;
  swap_total_bytes: number | null;
  swap_free_bytes: number | null;
  swap_used_bytes: number | null;
  swap_used_percent: number | null;
  state: MemoryState | null;
}

export const MEMORY_WARNING_AT = 85;
export const MEMORY_CRITICAL_AT = 95;

const LINE = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+(kB|KB|B))?\s*$/;

/** Read every "Key: N kB" line into bytes. */
function fields(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const m = LINE.exec(raw.trim());
    if (m) out.set(m[1]!, Number(m[2]) * (m[3] && m[3] !== 'B' ? 1024 : 1));
  }
  return out;
}

/** ok / warning / critical by used_percent; null when it is unknown. */
export function memoryState(usedPercent: number | null): MemoryState | null {
  if (usedPercent === null) return null;
  if (usedPercent >= MEMORY_CRITICAL_AT) return 'critical';
  if (usedPercent >= MEMORY_WARNING_AT) return 'warning';
  return 'ok';
}

/** Parse one /proc/meminfo capture. */
export function parseMeminfo(text: string): MemoryUsage {
  const f = fields(text);
  const get = (k: string): number | null => f.get(k) ?? null;
  const total = get('MemTotal');
  const available = get('MemAvailable');
  const swapTotal = get('SwapTotal');
  const swapFree = get('SwapFree');
  const usedPercent = total !== null && available !== null && total > 0 ? round((100 * (total - available)) / total) : null;
  const swapUsed = swapTotal !== null && swapFree !== null ? Math.max(0, swapTotal - swapFree) : null;
  return {
    total_bytes: total,
    available_bytes: available,
    free_bytes: get('MemFree'),
    buffers_bytes: get('Buffers'),
    cached_bytes: get('Cached'),
    used_percent: usedPercent === null ? null : Math.min(100, Math.max(0, usedPercent)),
    swap_total_bytes: swapTotal,
    swap_free_bytes: swapFree,
    swap_used_bytes: swapUsed,
    swap_used_percent: swapTotal !== null && swapUsed !== null && swapTotal > 0 ? round((100 * swapUsed) / swapTotal) : null,
    state: memoryState(usedPercent),
  };
}
