/**
 * The process_find capture → process_list@1: the processes of one name, with
 * picoharness's own left out (lib/own-processes.ts).
 *
 * The capture is what the tool's script prints: "== name NAME" (the name
 * asked), "== own PID…", then "== processes (pid ppid)" and
 * `ps -eo pid=,ppid=,user:32=,pcpu=,pmem=,rss=,etimes=,comm:64=,args=`:
 * seven columns split by blanks, the command name in a column 64 wide (it
 * may hold a blank: "Web Content"), then the command line.
 *
 * A process is of that name when its command name is the name (the kernel
 * keeps 15 characters of it), or its program's file name is, or — for a
 * script run by an interpreter (python3 app.py, node server.js) — the
 * script's file name without its extension is. A unit's name
 * ("nginx.service") is read as its program's ("nginx"). Names are compared
 * whole, never as a substring: "nginx" is not "nginx-exporter".
 */
import { sections } from '../lib/sections.js';
import { decimal, int } from '../lib/single-schema.js';
import { ownMarks, withoutOwn } from '../lib/own-processes.js';
import type { ProcessRow } from '../load-processes/parse.js';

/** A ps row as load_top has it, with its parent and its command line. */
export interface FoundProcess extends ProcessRow {
  ppid: number | null;
  args: string;
}

export interface ProcessList {
  name: string | null;
  count: number | null;
  processes: FoundProcess[];
  own_left_out: number | null;
  total_processes: number | null;
}

export const MAX_FOUND = 20;
const MAX_ARGS = 200;
const COMM_WIDTH = 64;
const SEVEN = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+) /;
const UNIT_SUFFIX = /\.(?:service|socket|timer|target|scope|slice)$/;
const INTERPRETERS = /^(?:python[\d.]*|node|nodejs|perl[\d.]*|ruby[\d.]*|php[\d.]*|bash|sh|dash|java|lua[\d.]*|Rscript|deno|bun)$/;

/** One ps row, or null for a line that is not one. */
function row(line: string): FoundProcess | null {
  const m = SEVEN.exec(line);
  if (!m) return null;
  const rest = line.slice(m[0].length);
  const command = rest.slice(0, COMM_WIDTH).trimEnd();
  const args = rest.slice(COMM_WIDTH + 1).trim();
  const rss = int(m[6]);
  return {
    pid: Number(m[1]), ppid: Number(m[2]), user: m[3]!, cpu_percent: decimal(m[4]), mem_percent: decimal(m[5]),
    rss_bytes: rss === null ? null : rss * 1024, elapsed_seconds: int(m[7]), command,
    args: args.length > MAX_ARGS ? `${args.slice(0, MAX_ARGS - 1)}…` : args,
  };
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** Is this process of that name (see the module comment)? */
export function isNamed(p: Pick<FoundProcess, 'command' | 'args'>, name: string): boolean {
  if (p.command === name || (name.length > 15 && p.command === name.slice(0, 15))) return true;
  const words = p.args.split(/\s+/).filter(Boolean);
  const program = base(words[0] ?? '');
  if (program === name || program.replace(/:$/, '') === name) return true;
  if (!INTERPRETERS.test(program)) return false;
  const script = words.slice(1).find((w) => !w.startsWith('-'));
  return script !== undefined && base(script).replace(/\.[A-Za-z0-9]{1,5}$/, '') === name;
}

/** Parse one process_find capture. */
export function parseProcessFind(text: string): ProcessList {
  const s = sections(text);
  const asked = [...s.keys()].find((k) => k.startsWith('name '))?.slice(5).trim() ?? null;
  const name = asked === null || asked === '' ? null : asked.replace(UNIT_SUFFIX, '');
  const key = [...s.keys()].find((k) => k.startsWith('processes'));
  if (!key) return { name, count: null, processes: [], own_left_out: null, total_processes: null };
  const rows = s.get(key)!.map(row).filter((r): r is FoundProcess => r !== null);
  const own = withoutOwn(rows, ownMarks(s.keys()));
  const found = name === null ? [] : own.kept.filter((p) => isNamed(p, name));
  const ownNamed = name === null || own.left_out === null ? null : rows.filter((p) => isNamed(p, name)).length - found.length;
  return {
    name,
    count: name === null ? null : found.length,
    processes: found.slice(0, MAX_FOUND),
    own_left_out: ownNamed,
    total_processes: rows.length,
  };
}
