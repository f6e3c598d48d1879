// The prompt budget is the runtime's (design §9): the longest disclosure level that fits, else a named refusal.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assemblePrompt, fitPrompt, type PromptParts } from '../../src/agent/budget.js';
import { describeTool, renderTools, signature, typeOf } from '../../src/agent/disclosure.js';
import { rankTools } from '../../src/agent/retrieval.js';
import { AGENT_DEFAULTS, agentSettingsSchema } from '../../src/agent/settings.js';
import { estimateTokens, estimator } from '../../src/agent/tokens.js';
import type { AgentTool } from '../../src/agent/types.js';

const tools = JSON.parse(readFileSync(new URL('./fixtures/tools.json', import.meta.url), 'utf8')) as AgentTool[];
const byName = (n: string) => tools.find((t) => t.name === n)!;

describe('disclosure', () => {
  it('the brief view is a call signature with types, optional marks and quoted enum values', () => {
    const journal = byName('read_journal');
    expect(signature(journal)).toBe('read_journal(unit?: string, since: string, priority?: "emerg"|"alert"|"crit"|"err"|"warning"|"notice"|"info"|"debug", lines?: integer)');
    expect(describeTool(journal, 'brief')).toBe(`${signature(journal)} — ${journal.when}`);
    expect(signature(byName('failed_units'))).toBe('failed_units()');
  });

  it('types render from type lists, arrays, const and anyOf', () => {
    expect(typeOf({ type: ['string', 'null'] })).toBe('string|null');
    expect(typeOf({ type: 'array', items: { type: 'integer' } })).toBe('integer[]');
    expect(typeOf({ type: 'array', items: { enum: ['a', 'b'] } })).toBe('("a"|"b")[]');
    expect(typeOf({ const: 'x' })).toBe('"x"');
    expect(typeOf({ anyOf: [{ type: 'string' }, { type: 'integer' }] })).toBe('string|integer');
    expect(typeOf({})).toBe('any');
  });

  it('the full view holds the whole input schema as JSON that parses back to it, without $schema', () => {
    const tool: AgentTool = { ...byName('read_file'), input_schema: { $schema: 'http://json-schema.org/draft-07/schema#', ...byName('read_file').input_schema } };
    const full = describeTool(tool, 'full');
    const json = full.split('\n').find((l) => l.startsWith('  input: '))!.slice('  input: '.length);
    expect(JSON.parse(json)).toEqual(byName('read_file').input_schema);
    expect(full).toContain(`when: ${tool.when}`);
  });

  it('a tool without a when line shows its description\'s first sentence in the brief view', () => {
    const t: AgentTool = { name: 'x_probe', description: 'Probe x. Then report it.', input_schema: {} };
    expect(describeTool(t, 'brief')).toBe('x_probe() — Probe x.');
  });

  it('the full view is the longest of every fixture tool, and the title view has no parameters', () => {
    for (const t of tools) {
      const [full, brief, title] = (['full', 'brief', 'title'] as const).map((l) => estimateTokens(describeTool(t, l)));
      expect(full, t.name).toBeGreaterThan(brief!);
      expect(full, t.name).toBeGreaterThan(title!);
      expect(describeTool(t, 'title')).toBe(`${t.name}: ${t.description}`);
    }
    expect(renderTools(tools.slice(0, 2), 'title').split('\n')).toHaveLength(2);
  });
});

describe('fitPrompt', () => {
  const top = rankTools('the journal shows errors for a service that keeps restarting', tools, 3).map((r) => byName(r.name));
  const parts: PromptParts = {
    instructions: 'You plan the steps that answer an operator\'s question. Use only the tools listed. Reply with JSON.',
    avoidance: 'Avoid: read_journal failed twice with tool_timeout.',
    goal: 'Goal: why does the backup service keep restarting?',
    tools: top,
  };
  const at = (level: 'full' | 'brief' | 'title') => estimator.count(assemblePrompt(parts, level));

  it('over budget the prompt drops to the brief level, then the title level, then refuses', () => {
    const [full, brief, title] = [at('full'), at('brief'), at('title')];
    expect(full).toBeGreaterThan(brief);
    expect(brief).toBeGreaterThan(title);

    const roomy = fitPrompt(parts, { prompt_tokens: full, reserve_tokens: 0 }, estimator);
    expect(roomy).toMatchObject({ ok: true, level: 'full', tokens: full, dropped: [] });

    const mid = fitPrompt(parts, { prompt_tokens: full - 1, reserve_tokens: 0 }, estimator);
    expect(mid).toMatchObject({ ok: true, level: 'brief', tokens: brief, tried: [{ level: 'full', tokens: full }, { level: 'brief', tokens: brief }] });
    if (mid.ok) expect(mid.dropped.length).toBeGreaterThan(0);

    const tight = fitPrompt(parts, { prompt_tokens: brief - 1, reserve_tokens: 0 }, estimator);
    expect(tight).toMatchObject({ ok: true, level: 'title', tokens: title });
    if (tight.ok) {
      expect(tight.text).toBe(assemblePrompt(parts, 'title'));
      expect(tight.tools).toEqual(top.map((t) => t.name)); // no tool dropped
      expect(tight.dropped).toContain('parameters');
    }

    const none = fitPrompt(parts, { prompt_tokens: title - 1, reserve_tokens: 0 }, estimator);
    expect(none).toMatchObject({ ok: false, reason: 'context_overflow', cause: 'tools_at_title', limit: title - 1, needed_tokens: title, exact: false });
    if (!none.ok) {
      expect(none.tried.map((t) => t.level)).toEqual(['full', 'brief', 'title']);
      expect(none.message).toMatch(/needs \d+ tokens even with tool titles only/);
    }
  });

  it('the reserve for the answer comes out of the context window', () => {
    const full = at('full');
    const fits = fitPrompt(parts, { prompt_tokens: 10_000, reserve_tokens: 100, context_tokens: full + 100 }, estimator);
    expect(fits).toMatchObject({ ok: true, level: 'full', limit: full });
    const squeezed = fitPrompt(parts, { prompt_tokens: 10_000, reserve_tokens: 101, context_tokens: full + 100 }, estimator);
    expect(squeezed).toMatchObject({ ok: true, level: 'brief' });
    const noRoom = fitPrompt(parts, { prompt_tokens: 500, reserve_tokens: 2048, context_tokens: 2048 }, estimator);
    expect(noRoom).toMatchObject({ ok: false, cause: 'reserve' });
  });

  it('fixed parts that alone overflow are refused as such, before any tool is tried', () => {
    const long = { ...parts, instructions: 'word '.repeat(400) };
    const r = fitPrompt(long, { prompt_tokens: 300, reserve_tokens: 0 }, estimator);
    expect(r).toMatchObject({ ok: false, cause: 'fixed_parts', tried: [] });
    if (!r.ok) expect(r.fixed_tokens).toBeGreaterThan(300);
  });

  it('an empty tool list is the caller\'s bug and is refused with what to do', () => {
    expect(() => fitPrompt({ ...parts, tools: [] }, { prompt_tokens: 500, reserve_tokens: 0 }, estimator)).toThrow(/declined before a prompt is built/);
  });

  it('the default planner budget holds the top 3 fixture tools at some level', () => {
    const r = fitPrompt(parts, agentSettingsSchema.parse({}), estimator);
    expect(r.ok).toBe(true);
    expect(agentSettingsSchema.parse({})).toEqual(AGENT_DEFAULTS);
    expect(() => agentSettingsSchema.parse({ top_k: 0 })).toThrow();
    expect(() => agentSettingsSchema.parse({ top_kk: 3 })).toThrow();
  });
});
