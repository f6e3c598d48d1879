/**
 * Issue 11 §3: "Tool calls through one path, used by the runtime, pico call
 * and pico ladder." The shapes small models write, the near-miss rule, and
 * every classified refusal; plus the dev corpus of real gemma-3-1b and
 * Qwen2.5-1.5B output, which must be at least 95 % right on both sides
 * (the test lists every failing case with its reason).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileSchema, readToolCall, runLadder, toolSetOf, toolsFromSchema } from '../../src/ladder/index.js';
import type { ToolCallResult } from '../../src/ladder/toolcall.js';
import { scoreCase } from '../../src/eval/score.js';

const weather = compileSchema({
  type: 'object',
  required: ['city'],
  additionalProperties: false,
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
});
const hypot = compileSchema({
  type: 'object',
  required: ['x', 'y'],
  additionalProperties: false,
  properties: { x: { type: 'number' }, y: { type: 'number' }, points: { type: 'array' }, opts: { type: 'object' } },
});
const tools = toolSetOf({ get_weather: weather, 'math.hypot': hypot, get_forecast: weather });

function call(text: string): Extract<ToolCallResult, { ok: true }> {
  const r = readToolCall(text, tools);
  if (!r.ok) throw new Error(`refused (${r.code}): ${r.error}`);
  return r;
}
function refusal(text: string): Extract<ToolCallResult, { ok: false }> {
  const r = readToolCall(text, tools);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(r.calls)}`);
  return r;
}

describe('tool-call shapes', () => {
  it('{name, arguments}, {tool, args} and {function, parameters} all read as one call', () => {
    for (const text of ['{"name": "get_weather", "arguments": {"city": "Oslo"}}', '{"tool": "get_weather", "args": {"city": "Oslo"}}', "{'function': 'get_weather', 'parameters': {'city': 'Oslo'}}"]) {
      expect(call(text)).toMatchObject({ name: 'get_weather', arguments: { city: 'Oslo' } });
    }
  });

  it('the OpenAI shape with arguments as a JSON string is read', () => {
    expect(call('{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\", \\"days\\": \\"3\\"}"}}').arguments).toEqual({ city: 'Oslo', days: 3 });
  });

  it('a tool_calls list and a one-element list are read', () => {
    expect(call('{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}').name).toBe('get_weather');
    expect(call('[{"name": "get_weather", "arguments": {"city": "Oslo"}}]').name).toBe('get_weather');
  });

  it('<tool_call> tags and a Llama <|python_tag|> are read', () => {
    expect(call('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>').name).toBe('get_weather');
    expect(call('<|python_tag|>get_weather(city="Oslo")<|eom_id|>').arguments).toEqual({ city: 'Oslo' });
    expect(call('<function=get_weather>{"city": "Oslo"}</function>').arguments).toEqual({ city: 'Oslo' });
  });

  it('a Python call with a dotted name and a nested list is read', () => {
    expect(call("[math.hypot(x=3, y=4.5, points=[[1, 2], (3, 4)], opts={'fast': True})]").arguments).toEqual({ x: 3, y: 4.5, points: [[1, 2], [3, 4]], opts: { fast: true } });
  });

  it('positional Python arguments map onto the declared parameters in order', () => {
    const r = call("get_weather('Oslo', 'celsius')");
    expect(r.arguments).toEqual({ city: 'Oslo', unit: 'celsius' });
    expect(r.fixes.join(' ')).toMatch(/positional/);
  });

  it('a call after prose or in a fence that never closes is read', () => {
    expect(call('**Final Response**: get_weather(city="Oslo")').name).toBe('get_weather');
    expect(call('```python\n[get_weather(city="Oslo", days=2)]\n').arguments).toEqual({ city: 'Oslo', days: 2 });
  });

  it('a tool name written just before its arguments object is read', () => {
    expect(call('get_weather\n{"city": "Oslo"}').arguments).toEqual({ city: 'Oslo' });
    expect(call('{"get_weather": {"city": "Oslo"}}').name).toBe('get_weather');
  });

  it('types are coerced from the tool schema ("3" -> 3, "True" -> true)', () => {
    expect(call('{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}').arguments).toEqual({ city: 'Oslo', days: 3 });
  });

  it('a near-miss function name is matched only when exactly one function is that near', () => {
    expect(call('get_wether(city="Oslo")').name).toBe('get_weather');
    expect(call('math_hypot(x=1, y=2)').name).toBe('math.hypot');
    const twins = toolSetOf({ get_data: weather, get_date: weather });
    const r = readToolCall('get_dat(city="Oslo")', twins);
    expect(r).toMatchObject({ ok: false, code: 'unknown_tool' });
  });
});

describe('tool-call refusals are classified', () => {
  it('prose and an empty list are no call', () => {
    expect(refusal('I cannot help with the weather.').code).toBe('no_call');
    expect(refusal('[]').code).toBe('no_call');
    expect(refusal('["get_weather", "get_forecast"]').code).toBe('no_call');
  });

  it('a call written inside a string is not a call', () => {
    expect(refusal('["get_weather(city=\'Oslo\')"]').code).toBe('no_call');
  });

  it("the function's own schema echoed back as its arguments is refused", () => {
    expect(refusal('{"name": "get_weather", "parameters": {"type": "dict", "required": ["city"], "properties": {"city": {"type": "string"}}}}').code).toBe('schema_echo');
    expect(refusal('{"name": "get_weather", "parameters": {"city": {"type": "string", "description": "the city"}}}').code).toBe('schema_echo');
  });

  it('an unknown function is refused', () => {
    expect(refusal('{"name": "delete_everything", "arguments": {}}').code).toBe('unknown_tool');
  });

  it('two or more calls where one was asked are refused, even when they are the same call', () => {
    expect(refusal('[get_weather(city="Oslo"), get_forecast(city="Oslo")]').code).toBe('extra_calls');
    expect(refusal('[get_weather(city="Oslo"), get_weather(city="Oslo")]').code).toBe('extra_calls');
  });

  it('when the schema asks for an array of calls, every call is taken', () => {
    const schema = compileSchema({ type: 'array', items: { anyOf: [
      { type: 'object', properties: { name: { const: 'get_weather' }, arguments: weather.json }, required: ['name', 'arguments'] },
      { type: 'object', properties: { name: { const: 'get_forecast' }, arguments: weather.json }, required: ['name', 'arguments'] },
    ] } });
    expect(toolsFromSchema(schema)?.many).toBe(true);
    const r = runLadder({ text: '[get_weather(city="Oslo"), get_forecast(city="Bergen")]' }, schema);
    expect(r).toMatchObject({ ok: true, value: [{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'get_forecast', arguments: { city: 'Bergen' } }] });
  });

  it('an argument the function does not declare is an error, not a key to drop', () => {
    const r = refusal('get_weather(city="Oslo", mood="sunny")');
    expect(r.code).toBe('bad_arguments');
    expect(r.error).toMatch(/mood/);
  });

  it('a missing required argument and a value outside its enum are refused', () => {
    expect(refusal('get_weather(unit="celsius")').code).toBe('bad_arguments');
    expect(refusal('get_weather(city="Oslo", unit="kelvin")').code).toBe('bad_arguments');
    expect(refusal('get_weather(city="Oslo", unit="celsiu")').code).toBe('bad_arguments');
  });

  it('a broken call (an extra parenthesis, a key: value inside the list) is refused, never cut down to the call inside', () => {
    expect(refusal('[get_weather(city="Oslo"))]').ok).toBe(false);
    expect(refusal('[get_weather(city="Oslo"), unit="celsius"]').ok).toBe(false);
    expect(refusal('get_weather(city)').ok).toBe(false);
  });
});

// ---- the dev corpus of real small-model output -------------------------------------------------

const CORPUS = fileURLToPath(new URL('../../../shared/corpora/toolcalls-dev.json', import.meta.url));
interface Case { id: string; input: string; schema: Record<string, unknown>; expected?: { name: string; arguments: Record<string, unknown> }; allowed?: Record<string, unknown[]>; expected_error?: boolean; error_kind?: string }
const present = existsSync(CORPUS);
if (!present) console.warn(`toolcalls corpus tests skipped: ${CORPUS} is absent (it lives in the shared folder beside the repo)`);

describe.skipIf(!present)('toolcalls-dev.json (issue 11, done when: ≥ 95 % of calls right and ≥ 95 % of refusals refused)', () => {
  const cases: Case[] = present ? (JSON.parse(readFileSync(CORPUS, 'utf8')) as Case[]) : [];

  it('recovers at least 95 % of the 84 recoverable calls and refuses at least 95 % of the 73 that must be refused', () => {
    const misses: string[] = [];
    let right = 0;
    let refusedRight = 0;
    for (const c of cases) {
      const r = runLadder({ text: c.input }, compileSchema(c.schema, c.id));
      if (c.expected_error) {
        if (!r.ok) refusedRight++;
        else misses.push(`${c.id} [must refuse: ${c.error_kind}]: accepted ${JSON.stringify(r.value)}`);
      } else if (scoreCase({ ...c, category: 'tool-call' }, r)) right++;
      else misses.push(`${c.id}: ${r.ok ? `got ${JSON.stringify(r.value)}` : `refused (${r.code ?? r.kind}): ${r.error}`}`);
    }
    if (misses.length) console.log(`toolcalls-dev misses (${misses.length}):\n  ${misses.join('\n  ')}`);
    const calls = cases.filter((c) => !c.expected_error).length;
    const refusals = cases.length - calls;
    expect(right / calls).toBeGreaterThanOrEqual(0.95);
    expect(refusedRight / refusals).toBeGreaterThanOrEqual(0.95);
  });
});

describe('tool-call formats of other small models', () => {
  it("Gemma's tool_code block with the call wrapped in print(...) is read", () => {
    expect(call('```tool_code\nprint(get_weather(city="Oslo"))\n```').arguments).toEqual({ city: 'Oslo' });
  });

  it('a ReAct "Action: / Action Input:" pair is read', () => {
    expect(call('Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Oslo"}').arguments).toEqual({ city: 'Oslo' });
  });

  it('a Mistral [TOOL_CALLS] prefix and a functools[...] prefix are read', () => {
    expect(call('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Oslo"}}]').name).toBe('get_weather');
    expect(call('functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]').name).toBe('get_weather');
  });
});

describe('tool-call envelopes and arguments, more shapes', () => {
  it("OpenAI's legacy function_call wrapper is read", () => {
    expect(call('{"function_call": {"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}}').arguments).toEqual({ city: 'Oslo' });
  });

  it('an optional argument given as None is left out, a required one given as None is refused', () => {
    const r = call("get_weather(city='Oslo', unit=None)");
    expect(r.arguments).toEqual({ city: 'Oslo' });
    expect(r.fixes).toContain('left out the optional argument unit, given as null');
    expect(refusal('get_weather(city=None)').code).toBe('bad_arguments');
  });
});

describe('arguments written as name/value pairs', () => {
  it('a list of {name, value} pairs is read as the arguments; a list of {name, description} is not', () => {
    expect(call('{"name": "get_weather", "parameters": [{"name": "city", "value": "Oslo"}, {"name": "days", "value": "2"}]}').arguments).toEqual({ city: 'Oslo', days: 2 });
    expect(refusal('{"name": "get_weather", "parameters": [{"name": "city", "description": "the city"}]}').code).toBe('bad_arguments');
  });
});
