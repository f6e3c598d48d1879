/**
 * The `playbook-planner` code provider: `plan@1` from playbooks, no model.
 *
 * Its input is the planning context the runtime recorded (src/agent/
 * planning.ts): the operator's goal (T0), the playbooks that matched it
 * (manifests, T2), the tools this session must avoid and, from the goal
 * reader, the entities the goal (or the part of it being planned) names. It takes the first
 * playbook whose required slots the goal fills and whose tools are not to be
 * avoided, fills each argument slot with its named extractor, and answers
 * with the plan as a list of tool calls. When no playbook can be filled it
 * answers with an empty list, which the ladder refuses as "no call", so the
 * runtime falls back to a model planner or declines. Pure: no I/O, nothing
 * kept between calls.
 */
import type { CodeProvider } from '../types.js';
import { extract, fromEntities, type ExtractorName, type SlotEntities } from '../../src/agent/extractors.js';
import type { Playbook } from '../../src/agent/playbooks.js';

/** A playbook as the planner's context carries it: only what filling it needs. */
export type PlaybookTemplate = Pick<Playbook, 'id' | 'slots' | 'steps'>;

export interface PlaybookContext {
  goal: string;
  /** the goal reader's entities for this goal or part; absent in older contexts (then the extractors read the goal) */
  entities?: SlotEntities;
  playbooks: PlaybookTemplate[];
  avoid: string[];
}

const SLOT = /^\{([a-z][a-z0-9_]*)\}$/;

/** The calls one playbook makes for a goal, or null when a required slot stays empty or a tool is to be avoided. */
export function instantiate(pb: PlaybookTemplate, goal: string, avoid: readonly string[], entities?: SlotEntities): { name: string; arguments: Record<string, unknown> }[] | null {
  if (pb.steps.some((s) => avoid.includes(s.tool))) return null;
  const values: Record<string, string | number | null> = {};
  for (const [name, slot] of Object.entries(pb.slots)) {
    const found = entities ? fromEntities(slot.extractor as ExtractorName, entities) : extract(slot.extractor as ExtractorName, goal);
    const v = found ?? slot.default ?? null;
    if (v === null && slot.required) return null;
    values[name] = v;
  }
  return pb.steps.map((s) => {
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.args)) {
      const ref = typeof v === 'string' ? SLOT.exec(v) : null;
      if (!ref) { args[k] = v; continue; }
      const filled = values[ref[1]!];
      if (filled !== null && filled !== undefined) args[k] = filled;
    }
    return { name: s.tool, arguments: args };
  });
}

export const playbookPlanner: CodeProvider = ({ text, schemaId }) => {
  if (schemaId !== 'plan@1') throw new Error(`playbook-planner: asked for schema "${schemaId}" but it only produces plan@1; fix the manifest's "schemas"`);
  const ctx = JSON.parse(text) as PlaybookContext;
  for (const pb of ctx.playbooks) {
    const calls = instantiate(pb, ctx.goal, ctx.avoid, ctx.entities);
    if (calls) return calls;
  }
  return [];
};
