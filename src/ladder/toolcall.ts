/**
 * The tool-call path of the ladder: text a model wrote → the one call it
 * meant (or every call, when the schema asks for a list), with the tool named
 * exactly and the arguments checked against that tool's input schema. The
 * runtime, `pico call` and `pico ladder` reach it through runLadder whenever
 * the schema has the tool-call shape (an `anyOf` of `{name: {const}, arguments}`
 * alternatives, or an array of them); code may call readToolCall directly.
 *
 * Refusals are classified (`code` on the failure), because a harness that is
 * about to run something must not guess: no call at all (`no_call`), two or
 * more where one was asked (`extra_calls`), a tool that is not offered
 * (`unknown_tool`; a near-miss name is matched only when exactly one tool is
 * that near), the tool's own schema echoed back as its arguments
 * (`schema_echo`), and arguments that do not fit (`bad_arguments`: a missing
 * required one, a value outside its enum, or one the tool does not declare —
 * for a tool call an undeclared argument is an error, never a key to drop).
 * This module never decides whether a call may run; policy does.
 */
import { callsIn, namedBefore, rewriteFunctionTags, type RawCall, NAME_KEYS, ARG_KEYS } from './calls.js';
import { confidenceOf } from './confidence.js';
import type { Fix } from '../reader/fixes.js';
import { nearName, sameName } from './match.js';
import { locate } from '../reader/candidates.js';
import { readValueAt } from '../reader/scan.js';
import { parseStrict } from '../reader/strict.js';
import { checkValue, compileSchema } from './schemas.js';
import { settleAttempt } from './settle.js';
import { LEVEL_OF, type LadderFailureKind, type SchemaHandle, type ToolCallFailureCode } from './types.js';

export interface ToolSpec {
  /** the input schema of the tool's arguments */
  schema: SchemaHandle;
  /** declared parameter names in order: positional arguments map onto them */
  params: string[];
}

export interface ToolSet {
  tools: Record<string, ToolSpec>;
  /** arguments schema for names not in `tools`, or null when unknown tools are refused */
  open: ToolSpec | null;
  /** the key names the schema uses for the call */
  nameKey: string;
  argKey: string;
  /** the schema asks for a list of calls: take them all */
  many: boolean;
}

export interface ToolCall { name: string; arguments: Record<string, unknown> }
export type ToolCallResult =
  | { ok: true; name: string; arguments: unknown; calls: ToolCall[]; fixes: string[]; confidence: number }
  | { ok: false; kind: LadderFailureKind; level: 1 | 2 | 3 | 4; code: ToolCallFailureCode; error: string; fixes: string[] };

type Obj = Record<string, unknown>;
const toolSets = new WeakMap<SchemaHandle, ToolSet | null>();

/** Read a tool-call schema into one arguments schema per tool; null when it has another shape (cached per handle). */
export function toolsFromSchema(handle: SchemaHandle): ToolSet | null {
  if (toolSets.has(handle)) return toolSets.get(handle)!;
  const set = readToolSet(handle);
  toolSets.set(handle, set);
  return set;
}

function readToolSet(handle: SchemaHandle): ToolSet | null {
  let root = handle.json;
  let many = false;
  if (root.type === 'array' && root.items && typeof root.items === 'object' && !Array.isArray(root.items)) {
    root = root.items as Obj;
    many = true;
  }
  const branches = (Array.isArray(root.anyOf) ? root.anyOf : Array.isArray(root.oneOf) ? root.oneOf : root.properties ? [root] : null) as Obj[] | null;
  if (!branches || branches.length === 0) return null;
  const shared: Obj = {};
  for (const k of ['$schema', 'definitions', '$defs']) if (k in handle.json) shared[k] = handle.json[k];
  const set: ToolSet = { tools: {}, open: null, nameKey: '', argKey: '', many };
  for (const branch of branches) {
    const props = (branch?.properties ?? null) as Obj | null;
    if (!props) return null;
    const nameKey = Object.keys(props).find((k) => NAME_KEYS.includes(k));
    const argKey = Object.keys(props).find((k) => ARG_KEYS.includes(k));
    if (!nameKey || !argKey) return null;
    if (set.nameKey && (set.nameKey !== nameKey || set.argKey !== argKey)) return null;
    set.nameKey = nameKey;
    set.argKey = argKey;
    const nameSchema = props[nameKey] as Obj;
    const argSchema = { ...shared, ...(props[argKey] as Obj) };
    const spec: ToolSpec = { schema: compileSchema(argSchema), params: Object.keys((argSchema.properties as Obj | undefined) ?? {}) };
    if (typeof nameSchema?.const === 'string') set.tools[nameSchema.const] = spec;
    else if (Array.isArray(nameSchema?.enum)) for (const n of nameSchema.enum) set.tools[String(n)] = spec;
    else set.open = spec;
  }
  return set;
}

/** A ToolSet from a map of tool input schemas (the runtime's form). */
export function toolSetOf(tools: Record<string, SchemaHandle>, many = false): ToolSet {
  const out: ToolSet = { tools: {}, open: null, nameKey: 'name', argKey: 'arguments', many };
  for (const [name, schema] of Object.entries(tools)) {
    out.tools[name] = { schema, params: Object.keys((schema.json.properties as Obj | undefined) ?? {}) };
  }
  return out;
}

/** Find, name and check the tool call(s) in `text`. */
export function readToolCall(text: string, set: ToolSet): ToolCallResult {
  const r = readCalls(text, set);
  if (!r.ok) return r;
  const first = r.calls[0]!;
  const confidence = confidenceOf({ value: first.arguments, fixes: r.fixes, handle: (set.tools[first.name] ?? set.open)!.schema });
  const shaped = r.calls.map((c) => ({ [set.nameKey]: c.name, [set.argKey]: c.arguments }));
  return { ok: true, name: first.name, arguments: set.many ? shaped : first.arguments, calls: r.calls, fixes: r.fixes.map((f) => f.text), confidence };
}

type Calls = { ok: true; calls: ToolCall[]; fixes: Fix[] } | Extract<ToolCallResult, { ok: false }>;

function readCalls(text: string, set: ToolSet): Calls {
  const known = Object.keys(set.tools);
  const source = rewriteFunctionTags(text);
  const raws = findCalls(source, known);
  if (raws === 'no-json') return refuse('grammar', 'no_call', '/: no tool call found in the text: no JSON and no Python call in it', []);
  if (raws.length === 0) return refuse('schema', 'no_call', `/: the text holds no tool call; expected {"${set.nameKey}": NAME, "${set.argKey}": {...}} or NAME(arg=value) with one of ${list(known)}`, []);
  if (raws.length > 1 && !set.many) {
    return refuse('schema', 'extra_calls', `/: the text holds ${raws.length} tool calls (${raws.map((r) => String(r.name)).join(', ')}) where one was asked; write exactly one call`, []);
  }
  const calls: ToolCall[] = [];
  const fixes: Fix[] = [];
  for (const raw of raws) {
    const r = checkCall(raw, set);
    if (!r.ok) return r;
    calls.push({ name: r.name, arguments: r.args });
    fixes.push(...r.fixes);
  }
  return { ok: true, calls, fixes };
}

/** The calls in the text, in order; 'no-json' when nothing in it reads as a value. */
function findCalls(text: string, known: readonly string[]): RawCall[] | 'no-json' {
  const strict = parseStrict(text);
  if (strict) return callsIn(strict.value, [], known) ?? [];
  const located = locate(text);
  if (located.values.length === 0) return 'no-json';
  const around = located.prose || located.fenced;
  const out: RawCall[] = [];
  const seen: { key: string; region: number }[] = [];
  const regions = new Set(located.values.map((v) => v.region)).size;
  for (const found of located.values) {
    const extract: Fix[] = around ? [{ rung: 'extract', text: found.fenced ? 'extracted the call from a markdown fence' : 'extracted the call from surrounding text' }] : [];
    const calls = callsIn(found.value, [...extract, ...found.fixes], known) ?? (() => { const n = namedBefore(found, known); return n ? [{ ...n, fixes: [...extract, ...n.fixes] }] : null; })();
    if (!calls) continue;
    for (const c of calls) {
      if (regions > 1) {
        // the same call written twice in different places (a prose mention and its fence) is one call
        const key = JSON.stringify([c.name, c.args, c.positional]);
        if (seen.some((s) => s.key === key && s.region !== found.region)) continue;
        seen.push({ key, region: found.region });
      }
      out.push(c);
    }
  }
  return out;
}

type Checked = { ok: true; name: string; args: Record<string, unknown>; fixes: Fix[] } | Extract<ToolCallResult, { ok: false }>;

/** Resolve the name and check the arguments of one call. */
function checkCall(raw: RawCall, set: ToolSet): Checked {
  const fixes = [...raw.fixes];
  if (typeof raw.name !== 'string' || raw.name.trim() === '') return refuse('schema', 'no_call', `/${set.nameKey}: the tool name must be a non-empty string, got ${JSON.stringify(raw.name)}`, fixes);
  const resolved = resolveName(raw.name.trim(), raw.guessedName ? { ...set, open: null } : set, fixes);
  if (typeof resolved === 'string') return refuse('schema', 'unknown_tool', resolved, fixes);
  const where = `/${set.argKey}`;
  let args = raw.args;
  if (args === undefined) {
    args = {};
    fixes.push({ rung: 'defaults', text: 'no arguments given; used {}' });
  } else if (typeof args === 'string') {
    const strict = parseStrict(args);
    const read = strict ? undefined : readValueAt(args);
    const value = strict ? strict.value : read?.ok ? read.value : undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return refuse('schema', 'bad_arguments', `${where}: the arguments are a string that holds no JSON object`, fixes);
    args = value;
    fixes.push({ rung: 'coerce', text: 'parsed the arguments from a JSON string' });
  }
  if (Array.isArray(args) && args.length > 0 && args.every(isNameValue)) {
    args = Object.fromEntries((args as { name: string; value: unknown }[]).map((p) => [p.name, p.value]));
    fixes.push({ rung: 'shape', text: 'read the arguments from a list of {name, value} pairs' });
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return refuse('schema', 'bad_arguments', `${where}: the arguments must be an object of named values, got ${Array.isArray(args) ? 'a list' : JSON.stringify(args)}`, fixes);
  }
  const named = { ...(args as Obj) };
  if (raw.positional.length) {
    const mapped = mapPositional(raw.positional, named, resolved.spec.params, where);
    if (typeof mapped === 'string') return refuse('schema', 'bad_arguments', mapped, fixes);
    fixes.push({ rung: 'positional', text: `mapped ${raw.positional.length} positional argument(s) onto ${resolved.spec.params.slice(0, raw.positional.length).join(', ')}` });
  }
  const echo = schemaEcho(named, resolved.spec);
  if (echo) return refuse('schema', 'schema_echo', `${where}: ${echo}; write the values, not the function's schema`, fixes);
  dropEchoedRequired(named, resolved.spec, fixes);
  dropNullOptionals(named, resolved.spec, fixes);
  const settled = settleAttempt({ value: named, fixes: [], weak: false }, resolved.spec.schema, { keepUnknown: true });
  const all = [...fixes, ...settled.fixes];
  if (!settled.ok) return refuse(settled.kind, 'bad_arguments', settled.error.replace(/^\//, `${where}/`).replace(`${where}/:`, `${where}:`), all);
  return { ok: true, name: resolved.name, args: settled.value as Record<string, unknown>, fixes: all };
}

/** The tool a name stands for, or an error message. */
function resolveName(name: string, set: ToolSet, fixes: Fix[]): { name: string; spec: ToolSpec } | string {
  const names = Object.keys(set.tools);
  if (Object.hasOwn(set.tools, name)) return { name, spec: set.tools[name]! };
  const match = sameName(name, names) ?? nearName(name, names);
  if (match) {
    fixes.push({ rung: 'enum', text: `matched tool name ${name} -> ${match}` });
    return { name: match, spec: set.tools[match]! };
  }
  if (set.open) return { name, spec: set.open };
  return `/${set.nameKey}: unknown tool ${JSON.stringify(name)}; expected one of ${list(names)} (a near miss is matched only when one tool is that near)`;
}

/** `{"name": "city", "value": "Oslo"}`: one argument written as a pair (never a schema's `{name, description}`). */
function isNameValue(p: unknown): boolean {
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return false;
  const keys = Object.keys(p);
  return keys.length === 2 && typeof (p as Obj).name === 'string' && 'value' in (p as Obj);
}

/** Put positional values onto the declared parameters in order; an error message when they do not fit. */
function mapPositional(positional: unknown[], named: Obj, params: readonly string[], where: string): string | null {
  if (positional.length > params.length) return `${where}: ${positional.length} positional arguments, but the tool declares ${params.length} parameter(s)`;
  for (let i = 0; i < positional.length; i++) {
    const p = params[i]!;
    if (Object.hasOwn(named, p)) return `${where}: ${p} is given both by position and by name`;
    named[p] = positional[i];
  }
  return null;
}

const TYPE_WORDS = new Set(['string', 'str', 'integer', 'int', 'number', 'float', 'boolean', 'bool', 'array', 'list', 'tuple', 'object', 'dict', 'any', 'null']);

/** A description of the echo when the arguments are the tool's schema (or a parameter's), else null. */
function schemaEcho(args: Obj, spec: ToolSpec): string | null {
  const declared = new Set(spec.params);
  const schemaLike = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const o = v as Obj;
    return typeof o.type === 'string' && TYPE_WORDS.has(o.type.toLowerCase()) && ('description' in o || 'items' in o || 'properties' in o || 'enum' in o || 'default' in o || 'required' in o);
  };
  if (!declared.has('type') && !declared.has('properties') && (schemaLike(args) || (args.properties && typeof args.properties === 'object' && !declared.has('properties')))) {
    return 'the arguments are a JSON schema (type/properties/required)';
  }
  for (const [k, v] of Object.entries(args)) {
    if (!schemaLike(v)) continue;
    const sub = (spec.schema.json.properties as Obj | undefined)?.[k] as Obj | undefined;
    const declaresType = sub && typeof sub.properties === 'object' && sub.properties !== null && 'type' in (sub.properties as Obj);
    if (!declaresType) return `the value of ${k} is its parameter's schema (${JSON.stringify(v).slice(0, 60)}…)`;
  }
  return null;
}

/** An echoed `required: [declared names]` beside real arguments is schema text, not an argument: drop it, named. */
function dropEchoedRequired(args: Obj, spec: ToolSpec, fixes: Fix[]): void {
  const r = args.required;
  if (spec.params.includes('required') || !Array.isArray(r) || !r.every((x) => typeof x === 'string' && spec.params.includes(x))) return;
  delete args.required;
  fixes.push({ rung: 'drop', text: 'dropped the echoed schema keyword "required" from the arguments' });
}

/** `unit=None` for an optional argument means "not given": left out, named — never for a required one, nor where null is allowed. */
function dropNullOptionals(args: Obj, spec: ToolSpec, fixes: Fix[]): void {
  const schema = spec.schema.json;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const props = (schema.properties ?? {}) as Record<string, Obj>;
  for (const [k, v] of Object.entries(args)) {
    if (v !== null || required.has(k) || !Object.hasOwn(props, k)) continue;
    const t = props[k]!.type;
    if (t === 'null' || (Array.isArray(t) && t.includes('null')) || (Array.isArray(props[k]!.enum) && (props[k]!.enum as unknown[]).includes(null))) continue;
    delete args[k];
    fixes.push({ rung: 'drop', text: `left out the optional argument ${k}, given as null` });
  }
}

function refuse(kind: LadderFailureKind, code: ToolCallFailureCode, error: string, fixes: readonly Fix[]): Extract<ToolCallResult, { ok: false }> {
  return { ok: false, kind, level: LEVEL_OF[kind], code, error, fixes: fixes.map((f) => f.text) };
}

function list(names: readonly string[]): string {
  return names.length > 8 ? `${names.slice(0, 8).join(', ')} (and ${names.length - 8} more)` : names.join(', ');
}

/** Back-compatible entry: a map of tool input schemas, or one tool-call schema. */
export function repairToolCall(text: string, tools: Record<string, SchemaHandle> | SchemaHandle): ToolCallResult {
  const set = isHandle(tools) ? toolsFromSchema(tools) : toolSetOf(tools);
  if (!set) return refuse('schema', 'no_call', `/: schema ${(tools as SchemaHandle).id} is not a tool-call anyOf ({name: {const}, arguments} alternatives); pass a map of tool input schemas instead`, []);
  return readToolCall(text, set);
}

/** The whole call(s) as the schema writes them, checked against the whole schema; for runLadder. */
export function toolCallValue(text: string, handle: SchemaHandle, set: ToolSet): { ok: true; value: unknown; fixes: Fix[] } | Extract<ToolCallResult, { ok: false }> {
  const r = readCalls(text, set);
  if (!r.ok) return r;
  const shaped = r.calls.map((c) => ({ [set.nameKey]: c.name, [set.argKey]: c.arguments }));
  const value = set.many ? shaped : shaped[0];
  const failure = checkValue(handle, value);
  if (failure) return refuse(failure.kind, 'bad_arguments', failure.error, []);
  return { ok: true, value, fixes: r.fixes };
}

function isHandle(x: Record<string, SchemaHandle> | SchemaHandle): x is SchemaHandle {
  return typeof (x as SchemaHandle).digest === 'string' && typeof (x as SchemaHandle).json === 'object' && typeof (x as SchemaHandle).id === 'string';
}

