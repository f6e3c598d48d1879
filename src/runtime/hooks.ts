/**
 * Hook points at the six step boundaries (design §4):
 * SELECT → PREPARE → EXECUTE → REDUCE → VALIDATE → COMMIT.
 * A hook is code, never a model. It may observe, change the phase's payload
 * (by returning `{ change }`), or reject (by returning `{ reject }`); a
 * rejection always becomes a `hook_rejected` event and fails the step.
 */
export const PHASES = ['SELECT', 'PREPARE', 'EXECUTE', 'REDUCE', 'VALIDATE', 'COMMIT'] as const;
export type Phase = (typeof PHASES)[number];

export interface HookContext {
  sessionId: string;
  step: string;
  phase: Phase;
  capability: string;
  schema: string;
  provider: string | null;
  /** what the phase is about to act on: the selection, the input text, the raw output, the value */
  payload: unknown;
}

export type HookVerdict = void | { reject: string } | { change: unknown };

export interface Hook {
  name: string;
  phases: readonly Phase[];
  run(ctx: HookContext): HookVerdict;
}

export class HookRejection extends Error {
  override name = 'HookRejection';
  constructor(readonly hook: string, readonly phase: Phase, reason: string) {
    super(reason);
  }
}

/** Run every hook registered for a phase in order; returns the (possibly changed) payload. */
export function runHooks(hooks: readonly Hook[], ctx: HookContext): unknown {
  let payload = ctx.payload;
  for (const h of hooks) {
    if (!h.phases.includes(ctx.phase)) continue;
    const verdict = h.run({ ...ctx, payload });
    if (!verdict) continue;
    if ('reject' in verdict) throw new HookRejection(h.name, ctx.phase, verdict.reject);
    if ('change' in verdict) payload = verdict.change;
  }
  return payload;
}
