/**
 * Disclosure: how much of a tool a planner prompt shows, at three levels.
 *
 * A small model reads a short prompt best, yet it must see enough of a tool
 * to call it right. So each tool has three views, longest first:
 *   - `full`  — name, description, the `when` line and the whole input schema
 *               as compact JSON (only its `$schema` key dropped);
 *   - `brief` — a call signature with the one line: name, each parameter with
 *               its type, `?` when optional, enum values quoted, e.g.
 *               `read_journal(unit?: string, since: string, priority?: "err"|"warning") — …`;
 *   - `title` — name and description.
 * The levels are ordered by what they tell, not strictly by length: a tool
 * with no parameters and a long description can have a title longer than its
 * brief line. `budget.ts` tries them richest first and takes the first that
 * fits; this module only renders, deterministically, and never shortens a
 * view by cutting text.
 */
import type { AgentTool } from './types.js';

export type DisclosureLevel = 'full' | 'brief' | 'title';
/** The levels in the order a prompt tries them. */
export const LEVELS: readonly DisclosureLevel[] = ['full', 'brief', 'title'];

/** What a prompt at each level leaves out compared with `full`. */
export const DROPPED_AT: Record<DisclosureLevel, readonly string[]> = {
  full: [],
  brief: ['description', 'parameter constraints and descriptions'],
  title: ['when', 'parameters'],
};

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A parameter's type as a short signature: `string`, `integer[]`, `"a"|"b"`, `string|null`. */
export function typeOf(schema: unknown): string {
  if (!isObject(schema)) return 'any';
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join('|');
  if ('const' in schema) return JSON.stringify(schema.const);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.length > 0) return [...new Set(alts.map(typeOf))].join('|');
  }
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return 'any';
  return types.map((t) => (t === 'array' ? `${wrap(typeOf(schema.items))}[]` : String(t))).join('|');
}

const wrap = (t: string) => (t.includes('|') ? `(${t})` : t);

/** `name(a: string, b?: integer)` from the input schema's properties, in their declared order. */
export function signature(tool: AgentTool): string {
  const props = isObject(tool.input_schema.properties) ? tool.input_schema.properties : {};
  const required = new Set(Array.isArray(tool.input_schema.required) ? tool.input_schema.required.map(String) : []);
  const params = Object.entries(props).map(([name, s]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(s)}`);
  return `${tool.name}(${params.join(', ')})`;
}

/** The first sentence of a description, for a tool that has no `when` line. */
function oneLine(tool: AgentTool): string {
  const when = tool.when?.trim();
  if (when) return when;
  const d = tool.description.trim();
  const end = d.search(/[.!?](\s|$)/);
  return end === -1 ? d : d.slice(0, end + 1);
}

/** One tool's view at a level. */
export function describeTool(tool: AgentTool, level: DisclosureLevel): string {
  switch (level) {
    case 'title':
      return `${tool.name}: ${tool.description.trim()}`;
    case 'brief':
      return `${signature(tool)} — ${oneLine(tool)}`;
    case 'full': {
      const { $schema: _meta, ...schema } = tool.input_schema;
      const lines = [`${tool.name}: ${tool.description.trim()}`];
      if (tool.when?.trim()) lines.push(`  when: ${tool.when.trim()}`);
      lines.push(`  input: ${JSON.stringify(schema)}`);
      return lines.join('\n');
    }
  }
}

/** The tool list of a prompt at one level: one entry per tool, in the order given (the ranking's). */
export function renderTools(tools: readonly AgentTool[], level: DisclosureLevel): string {
  return tools.map((t) => `- ${describeTool(t, level)}`).join('\n');
}
