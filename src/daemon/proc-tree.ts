/**
 * A process and everything it started, stopped as one.
 *
 * The session worker runs each tool in a process group of its own (the
 * execution world starts it detached), so killing the worker alone leaves
 * the tool and its children running, reparented to init, after the daemon
 * exits. `killTree` finds the worker's descendants by their parent links in
 * /proc, freezes them with SIGSTOP (so none can fork while we look, and a
 * fork bomb cannot outrun the scan), looks again until nothing new appears,
 * then SIGKILLs every one of them and every process group they lead. It is
 * synchronous, so a forced exit can call it just before `process.exit`.
 * Where /proc is missing only the process itself is killed. It does not
 * reach a process that left the tree before the scan (double-fork and
 * setsid): the world's pid namespace, where available, takes those down
 * with the tool.
 *
 * A worker that died without its tree (SIGKILL from outside, the OOM
 * killer, a daemon killed with it) leaves its tools reparented and out of
 * reach of the tree; `sweepWorkDirs` finds those by where they run — a
 * process without a terminal whose working directory is a step's folder
 * (`sessions/<id>/work/<step>/`) of this root, with no picoharness process
 * (a worker, a foreground `pico run`) among its ancestors, is an orphaned
 * tool run — and kills them. The daemon calls it only while no worker of
 * its own runs.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';

export interface ProcStat {
  pid: number;
  /** one letter: R running, S sleeping, T stopped, Z zombie, X dead, ... */
  state: string;
  ppid: number;
  pgid: number;
  /** the controlling terminal (0: none) */
  tty: number;
}

/** /proc/<pid>/stat parsed (the command name may hold spaces and parentheses), or null when gone. */
export function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state: f[0] ?? '?', ppid: Number(f[1]), pgid: Number(f[2]), tty: Number(f[4]) };
}

/** Every process's stat, from /proc (empty where there is none). */
function allStats(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const s = procStat(Number(n));
    if (s) out.push(s);
  }
  return out;
}

/** The pids descending from `root` (not `root` itself), breadth first. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const s of allStats()) {
    const list = children.get(s.ppid);
    if (list) list.push(s.pid);
    else children.set(s.ppid, [s.pid]);
  }
  const out: number[] = [];
  const queue = [root];
  const seen = new Set([root]);
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // ESRCH: already gone; EPERM: not ours to stop. Neither stops the sweep.
  }
}

/** A cell to sleep on for a millisecond (Atomics.wait) while stops land: killTree is synchronous. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** SIGKILL `pid`, its descendants and the process groups they lead; returns the pids killed (root last). */
export function killTree(pid: number): number[] {
  const frozen = new Set<number>();
  signal(pid, 'SIGSTOP');
  // freeze until a scan finds nothing new and every process is stopped: a stopped process forks no
  // more, but SIGSTOP lands asynchronously, so one still running may fork once more after a scan
  const running = () => [pid, ...frozen].some((p) => { const st = procStat(p)?.state; return st !== undefined && !'TtZX'.includes(st); });
  for (let round = 0; round < 200; round++) {
    // stopped before the scan began, then none new in it: nothing can have forked since. (Asked
    // after the scan, a process that stopped only then could have forked once more meanwhile.)
    const allStopped = !running();
    const fresh = descendants(pid).filter((p) => !frozen.has(p));
    for (const p of fresh) {
      signal(p, 'SIGSTOP');
      frozen.add(p);
    }
    if (fresh.length === 0 && allStopped) break;
    if (fresh.length === 0) Atomics.wait(PAUSE, 0, 0, 1); // 1 ms for the stops to land
  }
  const leaders = [...frozen].filter((p) => procStat(p)?.pgid === p);
  for (const g of leaders) signal(-g, 'SIGKILL');
  for (const p of frozen) signal(p, 'SIGKILL');
  signal(pid, 'SIGKILL');
  return [...frozen, pid];
}

/** True when a picoharness process (a worker, a `pico run`) is among the ancestors: the run is not orphaned. */
function ownedByPico(pid: number): boolean {
  let p = procStat(pid)?.ppid ?? 0;
  for (let hops = 0; p > 1 && hops < 64; hops++) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (/\/src\/(cli\/main|daemon\/worker(-bundled)?)\.js\0/.test(cmd) || cmd.includes('/src/cli/main.ts\0')) return true;
    } catch {
      return false;
    }
    p = procStat(p)?.ppid ?? 0;
  }
  return false;
}

/** Kill every terminal-less process running in a step folder of `root` (and its tree); returns their pids. */
export function sweepWorkDirs(root: string): number[] {
  let sessions: string;
  try {
    sessions = realpathSync(join(root, 'sessions')) + sep;
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const s of allStats()) {
    if (s.pid === process.pid || s.tty !== 0 || s.state === 'Z') continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${s.pid}/cwd`);
    } catch {
      continue; // gone, or not ours to look at
    }
    if (!cwd.startsWith(sessions)) continue;
    const parts = cwd.slice(sessions.length).split(sep);
    if (parts.length >= 3 && parts[1] === 'work' && !ownedByPico(s.pid)) found.push(s.pid);
  }
  const killed: number[] = [];
  for (const pid of found) killed.push(...killTree(pid));
  return [...new Set(killed)];
}
