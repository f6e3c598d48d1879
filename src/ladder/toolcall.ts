/**
 * Tool calls from small-model text: find the call, name the tool, repair its
 * arguments against that tool's input schema.
 *
 * Accepted shapes: `{"tool"|"name"|"function": NAME, "arguments"|"args"|
 * "parameters": ARGS}` (keys matched up to case and separators), the OpenAI
 * form `{"function": {"name", "arguments"}}`, a `tool_calls` list or a bare
 * list (the first call is taken), and ARGS written as a JSON string. A
 * misspelt tool name is matched only when exactly one tool is that near. The
 * tools are given as a map of input schemas, or as one schema that is an
 * `anyOf` over `{tool: {const: NAME}, arguments: {...}}` alternatives (the
 * corpus shape), where an alternative with a non-const name admits unknown
 * tools. This module never decides whether a call may run; policy does.
 */
import { readings } from './attempts.js';
import { confidenceOf } from './confidence.js';
import type { Fix } from './fixes.js';
import { nearName, sameName } from './match.js';
import { repairSyntax } from './rungs/syntax.js';
import { parseStrict } from './rungs/strict.js';
import { compileSchema } from './schemas.js';
import { fail, settleAttempt } from './settle.js';
import type { LadderFail, SchemaHandle } from './types.js';

export type ToolCallResult = { ok: true; name: string; arguments: unknown; fixes: string[]; confidence: number } | LadderFail;

export interface ToolSet {
  tools: Record<string, SchemaHandle>;
  /** arguments schema for names not in `tools`, or null when unknown tools are refused */
  open: SchemaHandle | null;
}

const NAME_KEYS = ['tool', 'name', 'function', 'tool_name', 'function_name'];
const ARG_KEYS = ['arguments', 'args', 'parameters', 'params', 'input'];
type Obj = Record<string, unknown>;

/** Read a tool-call `anyOf` schema into one arguments schema per tool; null when it has another shape. */
export function toolsFromSchema(handle: SchemaHandle): ToolSet | null {
  const root = handle.json;
  const branches = (Array.isArray(root.anyOf) ? root.anyOf : Array.isArray(root.oneOf) ? root.oneOf : null) as Obj[] | null;
  if (!branches) return null;
  const shared: Obj = {};
  for (const k of ['$schema', 'definitions', '$defs']) if (k in root) shared[k] = root[k];
  const set: ToolSet = { tools: {}, open: null };
  for (const branch of branches) {
    const props = (branch?.properties ?? null) as Obj | null;
    if (!props) return null;
    const nameKey = Object.keys(props).find((k) => sameName(k, NAME_KEYS) !== null);
    const argKey = Object.keys(props).find((k) => sameName(k, ARG_KEYS) !== null);
    if (!nameKey || !argKey) return null;
    const nameSchema = props[nameKey] as Obj;
    const args = compileSchema({ ...shared, ...(props[argKey] as Obj) });
    if (typeof nameSchema?.const === 'string') set.tools[nameSchema.const] = args;
    else if (Array.isArray(nameSchema?.enum)) for (const n of nameSchema.enum) set.tools[String(n)] = args;
    else set.open = args;
  }
  return set;
}

/** Find, name and repair one tool call in `text`. */
export function repairToolCall(text: string, tools: Record<string, SchemaHandle> | SchemaHandle): ToolCallResult {
  const set = isHandle(tools) ? toolsFromSchema(tools) : { tools, open: null };
  if (!set) return fail('schema', `/: schema ${(tools as SchemaHandle).id} is not a tool-call anyOf ({tool: {const}, arguments} alternatives); pass a map of tool input schemas instead`, []);
  let call: { name: unknown; args: unknown; fixes: Fix[] } | null = null;
  let sawJson = false;
  for (const attempt of readings(text)) {
    if (attempt.weak) continue;
    sawJson = true;
    call = findCall(attempt.value, attempt.fixes);
    if (call) break;
  }
  if (!call) {
    return sawJson
      ? fail('schema', `/: no tool name found; expected {"tool": NAME, "arguments": {...}} with one of ${Object.keys(set.tools).join(', ')}`, [])
      : fail('grammar', '/: no JSON tool call found in the text', []);
  }
  const fixes = [...call.fixes];
  if (typeof call.name !== 'string' || call.name.trim() === '') return fail('schema', `/tool: the tool name must be a non-empty string, got ${JSON.stringify(call.name)}`, fixes);
  const resolved = resolveName(call.name, set, fixes);
  if (typeof resolved === 'string') return fail('schema', resolved, fixes);
  let args = call.args;
  if (args === undefined) {
    args = {};
    fixes.push({ rung: 'defaults', text: 'no arguments given; used {}' });
  } else if (typeof args === 'string') {
    const parsed = parseStrict(args) ?? repairSyntax(args);
    if (parsed && typeof parsed.value === 'object' && parsed.value !== null) {
      args = parsed.value;
      fixes.push({ rung: 'coerce', text: 'parsed the arguments from a JSON string' });
    }
  }
  const settled = settleAttempt({ value: args, fixes: [], weak: false }, resolved.schema);
  const all = [...fixes, ...settled.fixes];
  if (!settled.ok) return fail(settled.kind, settled.error.replace(/^\//, '/arguments/').replace('/arguments/:', '/arguments:'), all);
  return { ok: true, name: resolved.name, arguments: settled.value, fixes: all.map((f) => f.text), confidence: confidenceOf({ value: settled.value, fixes: all, handle: resolved.schema }) };
}

/** True for a SchemaHandle rather than a map of them. */
function isHandle(x: Record<string, SchemaHandle> | SchemaHandle): x is SchemaHandle {
  return typeof (x as SchemaHandle).digest === 'string' && typeof (x as SchemaHandle).json === 'object' && typeof (x as SchemaHandle).id === 'string';
}

/** Pull {name, args} out of one parsed value, or null when it holds no call. */
function findCall(value: unknown, fixes: Fix[]): { name: unknown; args: unknown; fixes: Fix[] } | null {
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    const note = value.length === 1 ? 'unwrapped the tool call from a one-element array' : `took the first of ${value.length} tool calls`;
    return findCall(value[0], [...fixes, { rung: 'coerce', text: note }]);
  }
  if (value === null || typeof value !== 'object') return null;
  const obj = value as Obj;
  const keys = Object.keys(obj);
  const listKey = keys.find((k) => sameName(k, ['tool_calls', 'calls']) !== null);
  if (listKey && Array.isArray(obj[listKey])) return findCall(obj[listKey], fixes);
  const nameKey = keys.find((k) => sameName(k, NAME_KEYS) !== null);
  if (!nameKey) return null;
  const argKey = keys.find((k) => sameName(k, ARG_KEYS) !== null);
  const name = obj[nameKey];
  if (name !== null && typeof name === 'object' && !Array.isArray(name)) return findCall(name, fixes);
  return { name, args: argKey ? obj[argKey] : undefined, fixes };
}

/** The tool a name stands for, or an error message. */
function resolveName(name: string, set: ToolSet, fixes: Fix[]): { name: string; schema: SchemaHandle } | string {
  const names = Object.keys(set.tools);
  if (Object.hasOwn(set.tools, name)) return { name, schema: set.tools[name]! };
  const match = sameName(name, names) ?? nearName(name, names);
  if (match) {
    fixes.push({ rung: 'enum', text: `matched tool name ${name} -> ${match}` });
    return { name: match, schema: set.tools[match]! };
  }
  if (set.open) return { name, schema: set.open };
  return `/tool: unknown tool ${JSON.stringify(name)}; expected one of ${names.join(', ')} (a near miss is matched only when one tool is that near)`;
}
