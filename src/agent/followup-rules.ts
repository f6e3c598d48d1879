/**
 * A playbook's follow-ups (playbook@1 `followups`, issue 31): the second look
 * an admin takes once the first one found a symptom — "the fullest disk is
 * 94 % full, so: which folders hold the space". Each rule is written by the
 * operator (T2) and reads:
 *
 *   { "when": CONDITION or [CONDITION, ...] (all must hold),
 *     "add":  { "tool": TOOL, "args": { NAME: literal | {"fact": REF} } },
 *     "why":  words said after "looked further because …" }
 *
 * A CONDITION compares one field of a fact with a threshold (`at_least`,
 * `above`, `at_most`, `below`), a value (`is`, `in`: a status) or asks for a
 * list or text that is not empty (`not_empty: true`). A REF is
 * "TOOL.field.field": the fact of that tool's step in the same part of the
 * goal, then a path into it, where a number picks a list's element and `*`
 * any element (the condition holds when one of them does). An argument's REF
 * has no `*`: it must name one string or number, which the tool's
 * input_schema then checks like any argument.
 *
 * This module owns the shape and how a rule reads a fact; it decides nothing
 * about when rules are asked (followups.ts) and never runs anything. What a
 * rule may add is checked when the playbook loads: an existing tool, with a
 * fact_schema, read_only — never a destructive step — whose REFs name a
 * tool the playbook runs or an earlier rule adds.
 */
import { z } from '../base/zod.js';
import type { ToolManifest } from '../registry/manifest.js';

const ref = z.string().max(200).regex(/^[a-z0-9][a-z0-9_-]*(\.(?:[A-Za-z_][A-Za-z0-9_]*|\d+|\*))+$/, 'TOOL.field (a tool the playbook runs, then a path into its fact: field names, list positions, * for any element)');
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const OPERATORS = ['at_least', 'above', 'at_most', 'below', 'is', 'in', 'not_empty'] as const;

export const conditionSchema = z.strictObject({
  fact: ref,
  at_least: z.number().optional(),
  above: z.number().optional(),
  at_most: z.number().optional(),
  below: z.number().optional(),
  is: z.union([scalar, z.null()]).optional(),
  in: z.array(z.union([z.string(), z.number()])).min(1).max(16).optional(),
  not_empty: z.literal(true).optional(),
}).refine((c) => OPERATORS.filter((o) => c[o] !== undefined).length === 1, { message: `a condition names its fact and exactly one of ${OPERATORS.join(', ')}` });
export type Condition = z.infer<typeof conditionSchema>;

export const followupSchema = z.strictObject({
  when: z.union([conditionSchema, z.array(conditionSchema).min(1).max(4)]),
  add: z.strictObject({
    tool: z.string().min(1),
    args: z.record(z.string(), z.union([scalar, z.strictObject({ fact: ref })])).default({}),
  }),
  why: z.string().min(3).max(120).regex(/^[^\u0000-\u001f{}]*$/, 'one line of plain words'),
});
export type Followup = z.infer<typeof followupSchema>;

/** A rule's conditions as a list. */
export const conditions = (f: Followup): Condition[] => (Array.isArray(f.when) ? f.when : [f.when]);

/** The tool a REF reads, and the path into its fact. */
export function splitRef(r: string): { tool: string; path: string[] } {
  const [tool, ...path] = r.split('.');
  return { tool: tool!, path };
}

/** Every value at `path` in `value` (`*` fans out over a list); none when the path does not exist. */
export function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [value];
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    if (head === '*') return value.flatMap((v) => valuesAt(v, rest));
    return /^\d+$/.test(head!) && Number(head) < value.length ? valuesAt(value[Number(head)], rest) : [];
  }
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, head!)) return valuesAt((value as Record<string, unknown>)[head!], rest);
  return [];
}

/** Whether one value meets a condition's operator. */
function meets(c: Condition, v: unknown): boolean {
  const n = typeof v === 'number' && Number.isFinite(v) ? v : null;
  if (c.at_least !== undefined) return n !== null && n >= c.at_least;
  if (c.above !== undefined) return n !== null && n > c.above;
  if (c.at_most !== undefined) return n !== null && n <= c.at_most;
  if (c.below !== undefined) return n !== null && n < c.below;
  if (c.is !== undefined) return v === c.is;
  if (c.in !== undefined) return (typeof v === 'string' || n !== null) && c.in.includes(v as string | number);
  return (Array.isArray(v) && v.length > 0) || (typeof v === 'string' && v !== '');
}

/** Whether a condition holds on a fact (some value at its path meets it). */
export function holds(c: Condition, fact: unknown): boolean {
  return valuesAt(fact, splitRef(c.fact).path).some((v) => meets(c, v));
}

/** The tools a rule reads (its conditions' and its arguments' REFs). */
export function toolsRead(f: Followup): string[] {
  const refs = [...conditions(f).map((c) => c.fact), ...Object.values(f.add.args).flatMap((a) => (typeof a === 'object' ? [a.fact] : []))];
  return [...new Set(refs.map((r) => splitRef(r).tool))];
}

export interface RuleProblem { path: string; message: string; fix: string }

/**
 * What is wrong with a playbook's follow-ups against the tools: an unknown or destructive tool to
 * add, one that names no fact_schema, a REF to a tool neither the playbook nor an earlier rule
 * runs, an argument REF with `*`. [] when they are fine.
 */
export function checkFollowups(steps: readonly { tool: string }[], followups: readonly Followup[], tools: ReadonlyMap<string, ToolManifest>): RuleProblem[] {
  const out: RuleProblem[] = [];
  const runs = new Set(steps.map((s) => s.tool));
  followups.forEach((f, i) => {
    const at = `followups.${i}`;
    const tool = tools.get(f.add.tool);
    if (!tool) out.push({ path: `${at}.add.tool`, message: `unknown tool "${f.add.tool}"`, fix: `use one of ${[...tools.keys()].join(', ')}` });
    else if (tool.effect !== 'read_only') out.push({ path: `${at}.add.tool`, message: `tool "${f.add.tool}" is ${tool.effect}: a follow-up only looks further, it never changes the machine`, fix: 'add a read_only tool, or make the change a playbook step of its own (it waits for approval)' });
    else if (!tool.fact_schema) out.push({ path: `${at}.add.tool`, message: `tool "${f.add.tool}" names no fact_schema, so its output cannot be reduced`, fix: 'add a tool with a fact_schema' });
    for (const t of toolsRead(f)) {
      if (!runs.has(t)) out.push({ path: `${at}`, message: `"${t}" is read, but neither the playbook's steps nor an earlier follow-up run it`, fix: `read a fact of ${[...runs].join(', ')}` });
    }
    for (const [k, a] of Object.entries(f.add.args)) {
      if (typeof a === 'object' && a.fact.split('.').includes('*')) out.push({ path: `${at}.add.args.${k}`, message: 'an argument names one value; "*" names many', fix: 'name one element, as TOOL.list.0.field' });
    }
    runs.add(f.add.tool);
  });
  return out;
}
