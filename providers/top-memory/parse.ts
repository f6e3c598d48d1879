/**
 * The top_memory capture → memory_holders@1: which processes, and which
 * programs (every process of one name added up), hold the most resident
 * memory (RSS), each as a share of the machine's RAM.
 *
 * Sections of the top_memory script: "== meminfo" (MemTotal and MemAvailable
 * from /proc/meminfo, in kB), "== self" (the script's own pid and its
 * parents' — the check itself and the picoharness processes that started it)
 * and "== processes" (`ps -eo pid=,ppid=,rss=,comm= --sort=-rss`, the first
 * 60). The check's own processes (those pids, and the `ps` the script ran)
 * are left out of the ranking and counted in `left_out`, so the answer never
 * names picoharness as what holds the memory. RSS counts memory shared
 * between processes once per process, so a program's sum can overstate it;
 * the schema says so.
 */
import { sections } from '../lib/sections.js';
import { int, round } from '../lib/single-schema.js';

export interface Holder { pid: number; name: string; rss_bytes: number; share_percent: number | null }
export interface Program { name: string; processes: number; rss_bytes: number; share_percent: number | null }

export interface MemoryHolders {
  total_bytes: number | null;
  available_bytes: number | null;
  processes: Holder[];
  programs: Program[];
  top: Program | null;
  left_out: number;
}

export const MAX_PROCESSES = 10;
export const MAX_PROGRAMS = 5;
const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S.*?)\s*$/;

/** Parse one top_memory capture. */
export function parseTopMemory(text: string): MemoryHolders {
  const s = sections(text);
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec((s.get('meminfo') ?? []).join('\n'));
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kb('MemTotal');
  const self = (s.get('self') ?? []).map((l) => int(l.trim())).filter((p): p is number => p !== null);
  const share = (bytes: number) => (total ? round((100 * bytes) / total) : null);
  const processes: Holder[] = [];
  let leftOut = 0;
  for (const line of s.get('processes') ?? []) {
    const m = ROW.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    // the script itself, its parents (picoharness) and the ps it started
    if (self.includes(pid) || (self.length > 0 && Number(m[2]) === self[0])) { leftOut++; continue; }
    processes.push({ pid, name: m[4]!, rss_bytes: Number(m[3]) * 1024, share_percent: share(Number(m[3]) * 1024) });
  }
  processes.sort((a, b) => b.rss_bytes - a.rss_bytes || a.pid - b.pid);
  const byName = new Map<string, Program>();
  for (const p of processes) {
    const g = byName.get(p.name) ?? { name: p.name, processes: 0, rss_bytes: 0, share_percent: null };
    g.processes++;
    g.rss_bytes += p.rss_bytes;
    byName.set(p.name, g);
  }
  const programs = [...byName.values()].map((g) => ({ ...g, share_percent: share(g.rss_bytes) }))
    .sort((a, b) => b.rss_bytes - a.rss_bytes || (a.name < b.name ? -1 : 1)).slice(0, MAX_PROGRAMS);
  return {
    total_bytes: total,
    available_bytes: kb('MemAvailable'),
    processes: processes.slice(0, MAX_PROCESSES),
    programs,
    top: programs[0] ?? null,
    left_out: leftOut,
  };
}
