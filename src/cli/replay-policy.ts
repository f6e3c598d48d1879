/**
 * `pico replay SESSION --policy FILE` and `pico replay --all --policy FILE`:
 * the counterfactual form of replay (src/counterfactual/). It reads the named
 * session, or every session of the root, and prints each REDUCE step's
 * provider, verdict and cost under the original run and under the policy,
 * with totals. Damaged and unfinished sessions are named and skipped under
 * --all (and refused when named alone). It writes nothing into the sessions.
 * Exit 0 with a report; 2 for a bad policy file or session name.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkSession } from '../check/session.js';
import { loadPolicyFile, PolicyFileError } from '../counterfactual/policy-file.js';
import { counterfactualSession, type SessionComparison } from '../counterfactual/replay.js';
import { buildReport, renderReport, type CounterfactualReport } from '../counterfactual/report.js';
import { LEDGER_FILE } from '../ledger/ledger.js';
import { isSessionId } from '../ledger/session-id.js';
import type { Runtime } from '../root/runtime.js';
import { UsageError } from './args.js';

/** Why a session cannot be compared, or null when it can. */
function unfit(rt: Runtime, id: string): string | null {
  const dir = rt.sessionDir(id);
  if (!existsSync(join(dir, LEDGER_FILE))) return `${join(dir, LEDGER_FILE)} does not exist`;
  const c = checkSession(dir, id);
  if (c.problems.length) return `damaged (${c.problems.length} problem(s); pico check ${id} names them)`;
  if (c.state !== 'answered' && c.state !== 'closed') return `not finished (${c.state})`;
  return null;
}

/** Compare one named session, or (id null) every session of the root, under the policy file. */
export async function counterfactualReport(rt: Runtime, id: string | null, policyPath: string): Promise<CounterfactualReport> {
  let policy;
  try {
    policy = loadPolicyFile(policyPath, new Set(rt.registry.providers.keys()));
  } catch (err) {
    if (err instanceof PolicyFileError) throw new UsageError(err.message);
    throw err;
  }
  const ids = id !== null ? [id] : existsSync(join(rt.root, 'sessions')) ? readdirSync(join(rt.root, 'sessions')).filter(isSessionId).sort() : [];
  const sessions: SessionComparison[] = [];
  const skipped: { session: string; reason: string }[] = [];
  if (id !== null && !isSessionId(id)) throw new UsageError(`"${id}" is not a session id (like 20260301-142157-0a1b2c3d4e5f); pico status lists the sessions`);
  for (const s of ids) {
    const why = unfit(rt, s);
    if (why && id !== null) throw new UsageError(`session ${s}: ${why}; counterfactual replay reads finished, intact sessions (pico status lists them)`);
    if (why) skipped.push({ session: s, reason: why });
    else sessions.push(await counterfactualSession(rt, s, policy.override));
  }
  return buildReport(policyPath, policy.doc, sessions, skipped);
}

export function describeCounterfactual(r: CounterfactualReport, all: boolean): string {
  return renderReport(r, { perStep: !all || r.sessions.length <= 20 });
}
