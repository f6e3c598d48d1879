/**
 * Self-exclusion: picoharness's own processes, left out of any list of the
 * machine's processes it reads (load_top, process_find; top_memory reuses it).
 *
 * Why: on a quiet box the busiest process is the session worker answering
 * the question, or the `ps` it just ran, and naming it as the culprit is
 * false. A tool that sees the host's processes (host_view "pid") is told by
 * runTool which ones are picoharness's (PICO_WORKER_PID, and PICO_DAEMON_PID
 * when the worker is a daemon's child); its script prints them in a section
 * `== own PID…` beside a ps listing with a ppid column. Own are those pids
 * and every process below them (the daemon's workers, the tool's sandbox
 * wrappers, its shell and its ps). The tool's fact says how many were left
 * out, so an answer can say "(picoharness's own processes left out)".
 *
 * Pure: rows in, rows out; it reads nothing itself.
 */

/** A ps row as the exclusion needs it. */
export interface Linked {
  pid: number;
  ppid: number | null;
}

/** The pids a `== own …` section names (the section's name line carries them). */
export function ownMarks(sectionNames: Iterable<string>): number[] {
  for (const name of sectionNames) {
    const m = /^own(?:\s+(.*))?$/.exec(name);
    if (m) return (m[1] ?? '').split(/\s+/).filter((x) => /^\d+$/.test(x)).map(Number).filter((n) => n > 1);
  }
  return [];
}

/** Every pid below the marked ones (and the marked ones), by the rows' ppid links. */
export function ownTree(rows: readonly Linked[], marks: readonly number[]): Set<number> {
  const own = new Set(marks);
  const children = new Map<number, number[]>();
  for (const r of rows) if (r.ppid !== null) children.set(r.ppid, [...(children.get(r.ppid) ?? []), r.pid]);
  const todo = [...marks];
  while (todo.length > 0) {
    for (const c of children.get(todo.pop()!) ?? []) {
      if (!own.has(c)) {
        own.add(c);
        todo.push(c);
      }
    }
  }
  return own;
}

/**
 * The rows without picoharness's own, and how many were left out; `left_out` is null when the
 * capture names no own process (a tool run outside picoharness, or an older capture), so a fact
 * never claims an exclusion that was not made.
 */
export function withoutOwn<T extends Linked>(rows: readonly T[], marks: readonly number[]): { kept: T[]; left_out: number | null } {
  if (marks.length === 0) return { kept: [...rows], left_out: null };
  const own = ownTree(rows, marks);
  const kept = rows.filter((r) => !own.has(r.pid));
  return { kept, left_out: rows.length - kept.length };
}
