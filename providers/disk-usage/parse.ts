/**
 * df output → disk_usage@1: one record per filesystem, the fullest one, and a
 * state. Reads `df -P`, `df -k`, `df -h` and `df -T` captures, including long
 * device names that df wraps onto a line of their own and mount points that
 * contain spaces (the mount point is everything after the use% column).
 *
 * Thresholds (also stated in manifests/schemas/disk_usage@1.json): a
 * filesystem is `critical` at 90 % used or more, `warning` at 80 % or more,
 * otherwise `ok`. `free_percent` is 100 minus df's own use%. Read-only images
 * (`/dev/loopN`, mounts under `/snap/`) are always 100 % full, so they never
 * count as the fullest. `df -h` sizes are read as powers of 1024, as GNU df
 * prints them. `providers/disk-usage.sh` implements the same rules in awk;
 * change both together.
 */

export type DiskState = 'ok' | 'warning' | 'critical';

export interface FilesystemUsage {
  filesystem: string;
  mount: string;
  size_bytes: number | null;
  used_bytes: number | null;
  available_bytes: number | null;
  used_percent: number | null;
  free_percent: number | null;
  state: DiskState | null;
}

export interface DiskUsage {
  block_unit: string | null;
  filesystems: FilesystemUsage[];
  fullest: FilesystemUsage | null;
  state: DiskState | null;
}

export const WARNING_AT = 80;
export const CRITICAL_AT = 90;

const ROW = /^(.+?)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+%|-)\s+(\S.*)$/;
const ROW_TYPED = /^(.+?)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+%|-)\s+(\S.*)$/;
const HUMAN = /^(\d+(?:[.,]\d+)?)([KMGTPE]?)i?B?$/i;
const POWERS = 'KMGTPE';

/** Parse a df capture; lines before the header and stray diagnostics are skipped. */
export function parseDf(text: string): DiskUsage {
  const lines = text.split('\n').map((l) => l.trim());
  const headerAt = lines.findIndex((l) => /^Filesystem\s/i.test(l));
  const header = headerAt >= 0 ? lines[headerAt]!.trim().split(/\s+/) : [];
  const typed = header[1]?.toLowerCase() === 'type';
  const blockUnit = header.length > 0 ? header[typed ? 2 : 1] ?? null : null;
  const filesystems: FilesystemUsage[] = [];
  let pending = '';
  for (const raw of lines.slice(headerAt + 1)) {
    const line = pending ? `${pending} ${raw}` : raw;
    pending = '';
    const m = (typed ? ROW_TYPED : ROW).exec(line);
    if (m) {
      const f = typed ? [m[1], m[3], m[4], m[5], m[6], m[7]] : [m[1], m[2], m[3], m[4], m[5], m[6]];
      filesystems.push(row(f as string[], blockUnit));
    } else if (/^\S+$/.test(line)) {
      pending = line; // a long device name; its numbers follow on the next line
    }
  }
  const fullest = pickFullest(filesystems);
  return { block_unit: blockUnit, filesystems, fullest, state: fullest?.state ?? null };
}

/** One data row: filesystem, size, used, available, use%, mount. */
function row([filesystem, size, used, avail, pct, mount]: string[], unit: string | null): FilesystemUsage {
  const usedPercent = pct === '-' ? null : Number(pct!.slice(0, -1));
  return {
    filesystem: filesystem!,
    mount: mount!,
    size_bytes: toBytes(size!, unit),
    used_bytes: toBytes(used!, unit),
    available_bytes: toBytes(avail!, unit),
    used_percent: usedPercent,
    free_percent: usedPercent === null ? null : 100 - usedPercent,
    state: stateOf(usedPercent),
  };
}

/** A size cell in bytes: "N" times the block unit, or a human size like "2.8G"; null when unknown. */
export function toBytes(cell: string, unit: string | null): number | null {
  const blocks = unit ? /^(\d+)([KMGTPE]?)-blocks$/i.exec(unit) : null;
  if (blocks) {
    if (!/^\d+$/.test(cell)) return null;
    return Number(cell) * Number(blocks[1]) * power(blocks[2]!);
  }
  if (unit === null || unit.toLowerCase() !== 'size') return null;
  const h = HUMAN.exec(cell);
  if (!h) return null;
  const n = Number(h[1]!.replace(',', '.'));
  return Math.round(n * power(h[2]!));
}

/** The multiplier of a size suffix: "" → 1, K → 1024, M → 1024², … */
function power(suffix: string): number {
  return suffix === '' ? 1 : 1024 ** (POWERS.indexOf(suffix.toUpperCase()) + 1);
}

/** ok / warning / critical by use%, thresholds above; null when df printed no use%. */
export function stateOf(usedPercent: number | null): DiskState | null {
  if (usedPercent === null) return null;
  if (usedPercent >= CRITICAL_AT) return 'critical';
  if (usedPercent >= WARNING_AT) return 'warning';
  return 'ok';
}

/** The fullest writable filesystem; the first one wins a tie. */
function pickFullest(rows: FilesystemUsage[]): FilesystemUsage | null {
  let best: FilesystemUsage | null = null;
  for (const r of rows) {
    if (r.used_percent === null || /^\/dev\/loop\d+$/.test(r.filesystem) || r.mount.startsWith('/snap/')) continue;
    if (best === null || r.used_percent > best.used_percent!) best = r;
  }
  return best;
}
