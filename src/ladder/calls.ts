/**
 * Tool calls out of read values: the envelopes small models wrap a call in,
 * reduced to one shape, `{name, args}`, before any name is resolved.
 *
 *   {"name"|"tool"|"function": NAME, "arguments"|"parameters"|"args": ARGS}
 *   {"type": "function", "function": {"name": NAME, "arguments": "<JSON>"}}  (OpenAI)
 *   {"tool_calls": [...]}, a list of calls, a one-element list
 *   {"NAME": {ARGS}}                      the name as the only key
 *   NAME(a=1, b='x'), [NAME(...)]         Python call syntax (scan.ts reads it)
 *   NAME {ARGS}, NAME: {ARGS}             a name written just before its arguments
 *   Action: NAME / Action Input: {ARGS}   ReAct
 *   print(NAME(...))                      a call wrapped in an unknown one (Gemma's tool_code)
 *   <tool_call>…</tool_call>, <|python_tag|>…, <function=NAME>{ARGS}</function>
 *
 * A list counts only when every element is a call: `["a", "b"]` or
 * `[name, {...}]` hold no call. A string is never read as a call, even when
 * it looks like one. Keys beside the name and arguments (an echoed
 * `required` list, an `id`) are ignored at this level. Nothing here knows
 * which tools exist; toolcall.ts decides that.
 */
import type { Fix } from '../reader/fixes.js';
import { foldName, sameName } from './match.js';
import type { Found } from '../reader/candidates.js';
import { PyCall } from '../reader/scan.js';

export interface RawCall {
  name: unknown;
  /** the arguments as written: an object, a JSON string, undefined, or anything else (refused later) */
  args: unknown;
  /** positional arguments of a Python call, mapped onto parameters later */
  positional: unknown[];
  fixes: Fix[];
  /** the name was taken from a key or from the text before the arguments: it must name an offered tool */
  guessedName?: true;
}

export const NAME_KEYS = ['name', 'tool', 'function', 'tool_name', 'function_name', 'func', 'action'];
export const ARG_KEYS = ['arguments', 'args', 'parameters', 'params', 'input', 'kwargs', 'action_input', 'argument'];
const LIST_KEYS = ['tool_calls', 'calls', 'function_calls', 'tools'];
/** keys that wrap one call: OpenAI's legacy `function_call`, `tool_call`, `call` */
const WRAP_KEYS = ['function_call', 'tool_call', 'call'];
const FOLDED_LISTS = new Set(LIST_KEYS.map(foldName));
const ENVELOPE = new Set([...ARG_KEYS, ...NAME_KEYS, ...LIST_KEYS, ...WRAP_KEYS].map(foldName));
const FOLDED_WRAPS = new Set(WRAP_KEYS.map(foldName));
type Obj = Record<string, unknown>;

/** The calls one read value holds, or null when it holds none (or is not made only of calls). */
export function callsIn(value: unknown, fixes: Fix[] = [], known: readonly string[] = []): RawCall[] | null {
  if (value instanceof PyCall) {
    const inner = value.positional[0];
    if (inner instanceof PyCall && value.positional.length === 1 && value.keywords.length === 0 && !known.includes(value.name)) {
      // print(get_weather(city="Oslo")) — Gemma's tool_code blocks wrap the call in another
      return callsIn(inner, [...fixes, { rung: 'shape', text: `read the call inside ${value.name}(…)` }], known);
    }
    return [{ name: value.name, args: Object.fromEntries(value.keywords), positional: value.positional, fixes }];
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    const out: RawCall[] = [];
    for (const item of value) {
      const inner = callsIn(item, fixes, known);
      if (!inner || inner.length === 0) return null;
      out.push(...inner);
    }
    if (out.length === 1) out[0] = { ...out[0]!, fixes: [...out[0]!.fixes, { rung: 'shape', text: 'unwrapped the tool call from a one-element list' }] };
    return out;
  }
  if (value === null || typeof value !== 'object') return null;
  const obj = value as Obj;
  const keys = Object.keys(obj);
  const folded = keys.map(foldName);
  const listAt = folded.findIndex((k, i) => FOLDED_LISTS.has(k) && Array.isArray(obj[keys[i]!]));
  const listKey = listAt >= 0 ? keys[listAt] : undefined;
  if (listKey) return callsIn(obj[listKey], [...fixes, { rung: 'shape', text: `read the calls from ${listKey}` }], known);
  const wrapAt = folded.findIndex((k, i) => FOLDED_WRAPS.has(k) && isObject(obj[keys[i]!]));
  if (wrapAt >= 0 && pickKey(keys, folded, NAME_KEYS) === undefined) return callsIn(obj[keys[wrapAt]!], [...fixes, { rung: 'shape', text: `read the call inside ${keys[wrapAt]}` }], known);
  const nameKey = pickKey(keys, folded, NAME_KEYS);
  if (nameKey !== undefined) {
    const name = obj[nameKey];
    const argKey = pickKey(keys, folded, ARG_KEYS);
    if (name !== null && typeof name === 'object' && !Array.isArray(name)) {
      return callsIn(name, [...fixes, { rung: 'shape', text: `read the call inside ${nameKey}` }], known);
    }
    const renamed = nameKey === 'name' && (argKey === undefined || argKey === 'arguments') ? [] : [{ rung: 'shape' as const, text: `read the call from ${nameKey}/${argKey ?? '(no arguments)'}` }];
    return [{ name, args: argKey === undefined ? undefined : obj[argKey], positional: [], fixes: [...fixes, ...renamed] }];
  }
  if (keys.length === 1 && !ENVELOPE.has(folded[0]!)) {
    const inner = obj[keys[0]!];
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner) && !(inner instanceof PyCall)) {
      return [{ name: keys[0], args: inner, positional: [], fixes: [...fixes, { rung: 'shape', text: 'read the tool name from the only key' }], guessedName: true }];
    }
  }
  return null;
}

/** A name written just before an arguments object (`NAME {…}`, `NAME:\n{…}`), when it names a known tool. */
export function namedBefore(found: Found, known: readonly string[]): RawCall | null {
  if (found.value === null || typeof found.value !== 'object' || Array.isArray(found.value) || found.value instanceof PyCall) return null;
  // NAME {…}, NAME:\n{…}, >>>NAME\n{…}, or ReAct's "Action: NAME\nAction Input: {…}"
  const m = /Action\s*:\s*([A-Za-z_][\w.]*)\s*\n\s*Action[ _]Input\s*:\s*$/i.exec(found.before) ?? /([A-Za-z_][\w.]*)\s*:?\s*$/.exec(found.before);
  if (!m) return null;
  const name = known.includes(m[1]!) ? m[1]! : sameName(m[1]!, known);
  if (!name) return null;
  return { name, args: found.value, positional: [], fixes: [...found.fixes, { rung: 'shape', text: 'read the tool name written before its arguments' }], guessedName: true };
}

/** `<function=NAME>ARGS</function>` (Llama 3.1 custom tool format) rewritten as `{"name": NAME, "arguments": ARGS}`. */
export function rewriteFunctionTags(text: string): string {
  if (!text.includes('<function=')) return text;
  return text.replace(/<function=([\w.-]+)>([\s\S]*?)(?:<\/function>|$)/g, (_, name: string, args: string) => `{"name": ${JSON.stringify(name)}, "arguments": ${args.trim() === '' ? '{}' : args}}`);
}

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof PyCall);
}

/** The first key that names one of `names` (case and separators aside), in the order of `names`. */
function pickKey(keys: readonly string[], folded: readonly string[], names: readonly string[]): string | undefined {
  for (const n of names) {
    const exact = keys.indexOf(n);
    if (exact >= 0) return n;
    const near = folded.indexOf(foldName(n));
    if (near >= 0) return keys[near];
  }
  return undefined;
}
