/**
 * A job's steps against what this root can do: every tool, capability and
 * schema a step names must be registered.
 *
 * Why a separate check: the job schema (job.ts) cannot know the root, and
 * a step naming something unknown otherwise fails deep in the step, as an
 * internal error, after the job was accepted. Called by `pico run` before a
 * session starts (the user's error, exit 2), by the runtime before a session
 * runs (the manifests may have changed since intake: the session is then
 * closed as declined with these problems as the reason), by the daemon's
 * intake over the manifest files' names (daemon/known-names.ts), and usable
 * on a planner's steps the same way. A capability no provider serves is not a
 * problem of the job: the loop declines it with a `capability_gap`, as
 * designed. This module reads the registry and changes nothing.
 */
import type { Registry } from '../registry/registry.js';
import type { JobStep } from './job.js';

export interface JobProblem {
  /** the step's name, or null for the job as a whole */
  step: string | null;
  problem: string;
  fix: string;
}

type StepNames = Pick<JobStep, 'step' | 'capability' | 'schema'> & { tool?: string | undefined };
/** What the check reads of a registry: its tables by id (a Registry, or the daemon's listing of manifest files). */
export type KnownNames = { readonly [K in 'tools' | 'capabilities' | 'schemas']: Pick<Registry[K], 'has' | 'keys'> };

/** Problems of `steps` against `registry` (empty when every name is known). */
export function checkStepsAgainstRegistry(steps: readonly StepNames[], registry: KnownNames): JobProblem[] {
  const out: JobProblem[] = [];
  const known = (m: Pick<Map<string, unknown>, 'keys'>): string => [...m.keys()].sort().join(', ') || '(none)';
  for (const s of steps) {
    if (s.tool !== undefined && !registry.tools.has(s.tool)) {
      out.push({ step: s.step, problem: `step ${s.step}: unknown tool "${s.tool}" (known: ${known(registry.tools)})`, fix: `name a known tool, or add manifests/tools/${safeName(s.tool)}.json` });
    }
    if (!registry.capabilities.has(s.capability)) {
      out.push({ step: s.step, problem: `step ${s.step}: unknown capability "${s.capability}" (known: ${known(registry.capabilities)})`, fix: `name a known capability, or add manifests/capabilities/${safeName(s.capability)}.json` });
    }
    if (!registry.schemas.has(s.schema)) {
      out.push({ step: s.step, problem: `step ${s.step}: unknown schema "${s.schema}" (known: ${known(registry.schemas)})`, fix: `name a known schema, or add manifests/schemas/${safeName(s.schema)}.json` });
    }
  }
  return out;
}

/** Problems of a job's steps, when it carries any (a goal-only job is planned later and checked then). */
export function checkJobAgainstRegistry(job: { plan?: readonly StepNames[] | undefined }, registry: KnownNames): JobProblem[] {
  return checkStepsAgainstRegistry(job.plan ?? [], registry);
}

/** One line for a list of problems (a JobError's message, a close reason). */
export function describeProblems(problems: readonly JobProblem[]): string {
  return problems.map((p) => p.problem).join('; ');
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9@._-]/g, '_').slice(0, 80);
}
