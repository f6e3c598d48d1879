/**
 * Why a tool read nothing, in plain words (seam §7).
 *
 * Why: "the log for that window is empty" said of a machine that has no
 * journal at all reads as "nothing went wrong". A source that is absent, one
 * that may not be read and one that held nothing in the window asked are
 * three different answers, and only the tool's exit code and what it printed
 * tell them apart. Each tool manifest declares its causes (`causes`: an id,
 * the plain words, and the exit codes and stderr/stdout patterns that mean
 * it); this module picks the first that matches a run. The words are the
 * manifest's (T2), never the tool's own text, so a cause can be said to a
 * person as it stands.
 *
 * It deliberately decides nothing about retries or outcomes: run.ts attaches
 * the cause to the failure it raises, and the runtime records it on the
 * tool_failed / tool_empty event.
 */
import type { ToolCause, ToolManifest } from '../registry/manifest.js';

export interface Cause {
  id: string;
  plain: string;
}

/** What a classification reads of one run. */
export interface RunSeen {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

const compiled = new WeakMap<ToolCause, { stderr: RegExp | null; stdout: RegExp | null }>();

function patterns(c: ToolCause): { stderr: RegExp | null; stdout: RegExp | null } {
  let p = compiled.get(c);
  if (!p) {
    p = { stderr: c.stderr ? new RegExp(c.stderr, 'm') : null, stdout: c.stdout ? new RegExp(c.stdout, 'm') : null };
    compiled.set(c, p);
  }
  return p;
}

/** True when every test the cause names holds for this run. */
function matches(c: ToolCause, run: RunSeen): boolean {
  const code = run.exitCode;
  if (c.exit ? code === null || !c.exit.includes(code) : code === 0) return false;
  const p = patterns(c);
  if (p.stderr && !p.stderr.test(run.stderr)) return false;
  if (p.stdout && !p.stdout.test(run.stdout)) return false;
  return true;
}

/** The first declared cause that matches the run, or null (none declared, or none fits). */
export function classifyRun(tool: Pick<ToolManifest, 'causes'>, run: RunSeen): (Cause & { empty: boolean }) | null {
  for (const c of tool.causes ?? []) {
    if (matches(c, run)) return { id: c.id, plain: c.plain, empty: c.empty === true };
  }
  return null;
}
