/**
 * A model planner picks follow-ups from a menu (issue 31), for a part of the
 * goal a model planned: no playbook fits it, so no operator wrote which second
 * look it takes, and code offers the rules that hold on its facts instead.
 *
 * P7 — a provider that read outside (T1) data cannot emit a control decision —
 * holds because the model never reads a fact. Its input is built from the
 * operator's goal (T0), the names of the tools the plan ran and the menu:
 * each offered tool's name and the playbook's words for why (T2). Which rules
 * are on the menu is decided by code over the facts, as the playbook path
 * decides outright; the model's output is narrowed by a schema (and so a
 * grammar) that holds only the menu's tools, each with no arguments — the
 * arguments are code's, taken from the facts and checked against the tool's
 * input_schema — so a fact's text has no way into the choice and the model
 * has no way to a tool or an argument the menu does not hold. The call runs
 * through runStep like any planner call (recorded, validated, retried), as
 * `plan@1` served by a gguf, http or shell provider.
 */
import type { HeldFact } from '../runtime/fold.js';
import { runStep, type StepContext } from '../runtime/step.js';
import type { Registry } from '../registry/registry.js';
import { compileSchema } from '../ladder/schemas.js';
import type { SchemaHandle } from '../ladder/types.js';

export interface MenuItem { tool: string; why: string[] }

/** What the model call needs of the session. */
export interface MenuContext { registry: Registry; step: StepContext; held: Map<string, HeldFact>; missing: Map<string, string> }

/** The plan@1 schema narrowed to a menu: a list of one call or more, each a menu tool with no arguments, each at most once. */
export function menuSchema(tools: readonly string[]): SchemaHandle {
  const sorted = [...tools].sort();
  return compileSchema({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'array',
    minItems: 1,
    maxItems: sorted.length,
    items: { anyOf: sorted.map((t) => ({ type: 'object', additionalProperties: false, required: ['name', 'arguments'], properties: { name: { const: t }, arguments: { type: 'object', additionalProperties: false, properties: {} } } })) },
  }, `plan@1[followups:${sorted.join(',')}]`);
}

/** The model's whole input: the goal, what was looked at, the menu — nothing read from a fact. */
export function menuText(goal: string, looked: readonly string[], menu: readonly MenuItem[]): string {
  return [
    `Goal: ${goal}`,
    `Already looked at: ${looked.join(', ')}.`,
    'To look further, these checks are offered (each with why):',
    ...menu.map((m) => `- ${m.tool}: ${m.why.join('; ')}`),
    'Reply with a JSON list of the checks that help answer the goal (at least one), as [{"name": CHECK, "arguments": {}}].',
  ].join('\n');
}

/** The model planner's pick from the menu, or null when no model planner could choose (the ledger says why). */
export async function pickByModel(mc: MenuContext, step: string, goal: string, looked: readonly string[], menu: readonly MenuItem[]): Promise<{ tools: string[]; provider: string } | null> {
  const read = (f: HeldFact) => ({ tools: (f.fact as { name: string }[]).map((c) => c.name), provider: f.provider });
  const held = mc.held.get(step);
  if (held) return read(held);
  if (mc.missing.has(step)) return null;
  const out = await runStep(mc.step, {
    step, tool: null, args: {}, capability: 'plan@1', schema: 'plan@1', from: null,
    input: { text: menuText(goal, looked, menu), trust: 'T0', label: 'planner:followups' },
    schemaHandle: menuSchema(menu.map((m) => m.tool)), providerKinds: ['gguf', 'http', 'shell'],
    check: (value) => {
      const names = Array.isArray(value) ? value.map((c) => (c as { name?: unknown }).name) : [];
      return new Set(names).size === names.length ? null : 'name each check at most once';
    },
  }, mc.held);
  if (!out.ok) { mc.missing.set(step, out.reason); return null; }
  mc.held.set(step, out.fact);
  return read(out.fact);
}
