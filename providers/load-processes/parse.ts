/**
 * The load_top capture → load_processes@1: the load averages, the CPU count,
 * load per CPU with a state, and the top processes as ps listed them.
 *
 * The capture has three sections, each opened by a line "== NAME" that the
 * tool's own script prints: "== loadavg" (/proc/loadavg), "== cpus" (nproc)
 * and "== processes (pid ppid) sorted by -pcpu|-pmem" (ps -eo
 * pid,ppid,user:16,pcpu,pmem,rss,etimes,comm; an older capture,
 * "== processes sorted by …", has no ppid column), with "== own PID…" naming
 * picoharness's own processes: those and everything below them are left out
 * (lib/own-processes.ts) and counted in `own_left_out`, and the list is the
 * top 20 of the rest. A section that is missing or
 * unreadable gives nulls (or an empty list), never guesses. ps's %CPU is the
 * process's CPU time over its lifetime, not an instant sample; the schema
 * says so. State: load per CPU >= 2 critical, >= 1 warning, else ok.
 */
import { sections } from '../lib/sections.js';
import { decimal, int, round } from '../lib/single-schema.js';
import { ownMarks, withoutOwn } from '../lib/own-processes.js';

export interface ProcessRow {
  pid: number;
  user: string;
  cpu_percent: number | null;
  mem_percent: number | null;
  rss_bytes: number | null;
  elapsed_seconds: number | null;
  command: string;
}

export interface LoadProcesses {
  load_1m: number | null;
  load_5m: number | null;
  load_15m: number | null;
  cpus: number | null;
  load_per_cpu: number | null;
  runnable: number | null;
  tasks: number | null;
  state: 'ok' | 'warning' | 'critical' | null;
  sorted_by: 'cpu' | 'memory' | null;
  processes: ProcessRow[];
  top: ProcessRow | null;
  own_left_out: number | null;
}

const PS_ROW = /^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S.*?)\s*$/;
const PS_ROW_PPID = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S.*?)\s*$/;
export const TOP_PROCESSES = 20;

/** Parse one load_top capture. */
export function parseLoadTop(text: string): LoadProcesses {
  const s = sections(text);
  const load = /^\s*(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)\/(\d+)\b/.exec((s.get('loadavg') ?? []).join('\n'));
  const cpuLine = (s.get('cpus') ?? []).find((l) => l.trim() !== '')?.trim();
  const cpus = int(cpuLine);
  const load1 = load ? Number(load[1]) : null;
  const perCpu = load1 !== null && cpus !== null && cpus > 0 ? round(load1 / cpus, 2) : null;
  const key = [...s.keys()].find((k) => k.startsWith('processes'));
  const sortedBy = key?.endsWith('-pmem') ? 'memory' : key?.endsWith('-pcpu') ? 'cpu' : null;
  const linked = key?.includes('(pid ppid)') ?? false;
  const rows: (ProcessRow & { ppid: number | null })[] = [];
  for (const line of key ? s.get(key)! : []) {
    const m = (linked ? PS_ROW_PPID : PS_ROW).exec(line);
    if (!m || m[1] === undefined) continue; // the header and blank lines
    const c = linked ? m.slice(1) : [m[1], null, ...m.slice(2)];
    const rss = int(c[5] ?? undefined);
    rows.push({
      pid: Number(c[0]), ppid: c[1] === null ? null : Number(c[1]), user: c[2]!, cpu_percent: decimal(c[3] ?? undefined), mem_percent: decimal(c[4] ?? undefined),
      rss_bytes: rss === null ? null : rss * 1024, elapsed_seconds: int(c[6] ?? undefined), command: c[7]!,
    });
  }
  const own = withoutOwn(rows, ownMarks(s.keys()));
  const processes: ProcessRow[] = own.kept.slice(0, TOP_PROCESSES).map(({ ppid: _ppid, ...row }) => row);
  return {
    load_1m: load1,
    load_5m: load ? Number(load[2]) : null,
    load_15m: load ? Number(load[3]) : null,
    cpus,
    load_per_cpu: perCpu,
    runnable: load ? Number(load[4]) : null,
    tasks: load ? Number(load[5]) : null,
    state: perCpu === null ? null : perCpu >= 2 ? 'critical' : perCpu >= 1 ? 'warning' : 'ok',
    sorted_by: sortedBy,
    processes,
    top: processes[0] ?? null,
    own_left_out: own.left_out,
  };
}
