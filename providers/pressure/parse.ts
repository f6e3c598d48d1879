/**
 * The pressure capture → pressure@1: how much of the time tasks stalled
 * waiting for the CPU, for memory and for I/O, as the kernel's pressure stall
 * information (PSI) reports it in /proc/pressure/{cpu,memory,io}.
 *
 * Each file holds a "some" line (at least one task waited) and, for memory
 * and io (and cpu on newer kernels), a "full" line (every non-idle task
 * waited at once), with the share of the last 10, 60 and 300 seconds in per
 * cent. A resource is `stalled` when "some" reached 10 % over the last 10 or
 * 60 seconds: a person notices a box that waits that much. A kernel built
 * without PSI, or booted with psi=0, has no readable files: `available` is
 * false and every figure null — unknown, never zero.
 */
import { sections } from '../lib/sections.js';

export interface Window { avg10: number; avg60: number; avg300: number }
export interface Resource { some: Window | null; full: Window | null }
export type ResourceName = 'cpu' | 'memory' | 'io';

export interface Pressure {
  available: boolean;
  cpu: Resource | null;
  memory: Resource | null;
  io: Resource | null;
  stalled: ResourceName[];
  worst: ResourceName | null;
}

/** "some" at or above this share of the last 10 or 60 s makes a resource stalled. */
export const STALLED_PERCENT = 10;
const RESOURCES: ResourceName[] = ['cpu', 'memory', 'io'];
const LINE = /^(some|full) avg10=(\d+(?:\.\d+)?) avg60=(\d+(?:\.\d+)?) avg300=(\d+(?:\.\d+)?) total=\d+\s*$/;

/** One resource's lines, or null when its file was not readable. */
function resource(lines: readonly string[] | undefined): Resource | null {
  const r: Resource = { some: null, full: null };
  for (const line of lines ?? []) {
    const m = LINE.exec(line.trim());
    if (m) r[m[1] as 'some' | 'full'] = { avg10: Number(m[2]), avg60: Number(m[3]), avg300: Number(m[4]) };
  }
  return r.some || r.full ? r : null;
}

/** Parse one pressure capture. */
export function parsePressure(text: string): Pressure {
  const s = sections(text);
  const read = Object.fromEntries(RESOURCES.map((name) => [name, resource(s.get(name))])) as Record<ResourceName, Resource | null>;
  const peak = (name: ResourceName) => Math.max(read[name]?.some?.avg10 ?? 0, read[name]?.some?.avg60 ?? 0);
  const stalled = RESOURCES.filter((name) => peak(name) >= STALLED_PERCENT).sort((a, b) => peak(b) - peak(a));
  return {
    available: RESOURCES.some((name) => read[name] !== null),
    ...read,
    stalled,
    worst: stalled[0] ?? null,
  };
}
