/**
 * Goal files: what `pico eval --goals FILE` reads — questions as a Pi owner
 * types them, each with what an admin would do about it.
 *
 * A goal file is `{"format": "goals@1", "goals": [...]}` (or a bare list).
 * A goal has an `id`, the `goal` text, a `kind` (answerable: the machine can
 * tell; unanswerable: nothing here can; action: it asks to change something
 * no tool changes; destructive: it asks for a change a tool makes behind
 * approval) and its `parts`, one per question it holds. A part lists the
 * `tools` an admin would run for it and, where they matter, the `args` those
 * calls must carry (`{"unit_status": {"unit": "nginx.service"}}`); a part no
 * tool can serve has `tools: []`, `not` (out of scope / unsupported action)
 * and `about` (a few words). Tool names are checked against the root: a
 * name the root does not know is an input error naming the goal and the fix,
 * so a typo in the file never reads as a miss of the agent.
 */
import { readFileSync } from 'node:fs';
import { z } from '../../base/zod.js';
import { canonicalDigest } from '../../ladder/index.js';
import { EvalInputError } from '../cases.js';

export const GOAL_KINDS = ['answerable', 'unanswerable', 'action', 'destructive'] as const;
export type GoalKind = (typeof GOAL_KINDS)[number];

const partSchema = z.strictObject({
  tools: z.array(z.string().min(1)),
  args: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  not: z.enum(['out of scope', 'unsupported action']).optional(),
  about: z.string().min(1).max(80).optional(),
  /** the part asks why: the goal is run whole and its answer must name a cause (cause.ts) */
  why: z.boolean().optional(),
});
const goalSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" or "-"'),
  goal: z.string().min(1).max(2000),
  kind: z.enum(GOAL_KINDS),
  parts: z.array(partSchema).min(1).max(8),
});
const fileSchema = z.union([
  z.strictObject({ format: z.literal('goals@1'), about: z.string().optional(), goals: z.array(goalSchema).min(1) }),
  z.array(goalSchema).min(1),
]);

export type GoalPart = z.infer<typeof partSchema>;
export type EvalGoal = z.infer<typeof goalSchema>;

export interface GoalFile {
  path: string;
  /** sha256 of the file's canonical JSON */
  digest: string;
  goals: EvalGoal[];
}

/** Read and check a goal file against the tools a root knows; every problem is an EvalInputError naming the goal and the fix. */
export function readGoalFile(file: string, tools: ReadonlySet<string>): GoalFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new EvalInputError(err.code === 'ENOENT' ? `${file}: no such goal file` : `${file}: not valid JSON (${err.message}); fix the syntax`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    const where = i.path.length ? ` at ${i.path.join('.')}` : '';
    throw new EvalInputError(`${file}${where}: ${i.message}; a goal file is {"format": "goals@1", "goals": [{id, goal, kind, parts: [{tools, args?, not?, about?}]}]}`);
  }
  const goals = Array.isArray(parsed.data) ? parsed.data : parsed.data.goals;
  const seen = new Set<string>();
  for (const g of goals) {
    const at = `${file}: goal ${g.id}`;
    if (seen.has(g.id)) throw new EvalInputError(`${at}: the id is used twice; give each goal its own id`);
    seen.add(g.id);
    g.parts.forEach((p, n) => {
      for (const t of [...p.tools, ...Object.keys(p.args ?? {})]) {
        if (!tools.has(t)) throw new EvalInputError(`${at}, part ${n + 1}: no tool "${t}" in this root; known: ${[...tools].sort().join(', ')}`);
      }
      for (const t of Object.keys(p.args ?? {})) {
        if (!p.tools.includes(t)) throw new EvalInputError(`${at}, part ${n + 1}: args name "${t}", which the part's tools do not list; add it to "tools"`);
      }
      if (p.tools.length === 0 && !p.not) throw new EvalInputError(`${at}, part ${n + 1}: a part with no tools says why in "not" (out of scope / unsupported action)`);
      if (p.tools.length > 0 && p.not) throw new EvalInputError(`${at}, part ${n + 1}: a part with tools cannot also be "${p.not}"; drop one`);
    });
    const checkable = g.parts.filter((p) => p.tools.length > 0).length;
    if (g.kind === 'answerable' && checkable === 0) throw new EvalInputError(`${at}: an answerable goal has at least one part with tools; else its kind is unanswerable or action`);
    if ((g.kind === 'unanswerable' || g.kind === 'action') && checkable > 0) throw new EvalInputError(`${at}: a goal of kind ${g.kind} has no part with tools; mark it answerable, with the other parts "not" checkable`);
    if (g.kind === 'destructive' && (g.parts.length !== 1 || g.parts[0]!.tools.length === 0)) throw new EvalInputError(`${at}: a destructive goal has one part naming the tool that makes the change`);
  }
  return { path: file, digest: canonicalDigest(json), goals };
}
