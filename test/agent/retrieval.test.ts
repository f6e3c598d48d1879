// Retrieval ranks tools by BM25 over their own words (design §9): the planner sees only the top few.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rankTools, ToolIndex, toolSetDigest } from '../../src/agent/retrieval.js';
import { stem, terms } from '../../src/memory/terms.js';
import type { AgentTool } from '../../src/agent/types.js';

const tools = JSON.parse(readFileSync(new URL('./fixtures/tools.json', import.meta.url), 'utf8')) as AgentTool[];
const goals = JSON.parse(readFileSync(new URL('./fixtures/goals.json', import.meta.url), 'utf8')) as { goal: string; tool: string }[];

describe('terms', () => {
  it('splits identifiers on separators and camelCase and stems the forms of one word alike', () => {
    expect(terms('read_journal diskUsage top-processes cpu.temperature')).toEqual(['read', 'journal', 'disk', 'usag', 'top', 'process', 'cpu', 'temperatur']);
    for (const [a, b] of [['failed', 'fail'], ['filling', 'filled'], ['processes', 'process'], ['entries', 'entry'], ['throttled', 'throttling'], ['upgradable', 'upgrade'], ['running', 'run'], ['Disks', 'disk']] as const) {
      expect(stem(a.toLowerCase()), `${a} ~ ${b}`).toBe(stem(b.toLowerCase()));
    }
  });

  it('drops stop words and single letters but keeps numbers', () => {
    expect(terms('Is the port 22 open on a box?')).toEqual(['port', '22', 'open', 'box']);
  });
});

describe('rankTools', () => {
  it('a goal about a full disk ranks the disk tool first', () => {
    const ranked = rankTools('The root disk is full, what is using the space?', tools, 3);
    expect(ranked[0]?.name).toBe('disk_usage');
    expect(ranked.length).toBeLessThanOrEqual(3);
    expect(ranked.every((r, i) => i === 0 || ranked[i - 1]!.score >= r.score)).toBe(true);
  });

  it('a goal that names no tool\'s words retrieves nothing', () => {
    expect(rankTools('bake a chocolate cake', tools, 3)).toEqual([]);
    expect(rankTools('', tools, 3)).toEqual([]);
    expect(rankTools('what is this, please?', tools, 3)).toEqual([]);
  });

  it('returns at most k tools, every one with a score above zero', () => {
    const ranked = rankTools('service log memory disk network port file', tools, 5);
    expect(ranked).toHaveLength(5);
    expect(ranked.every((r) => r.score > 0)).toBe(true);
    expect(rankTools('disk', tools, 1)).toHaveLength(1);
  });

  it('ties are broken by name, so equal tools always come out in the same order', () => {
    const twins: AgentTool[] = [
      { name: 'zeta_probe', description: 'probe the widget', input_schema: {} },
      { name: 'alpha_probe', description: 'probe the widget', input_schema: {} },
    ];
    const ranked = rankTools('widget', twins, 3);
    expect(ranked.map((r) => r.name)).toEqual(['alpha_probe', 'zeta_probe']);
    expect(ranked[0]!.score).toBe(ranked[1]!.score);
  });

  it('the same set in another order has the same digest and ranks the same', () => {
    const reversed = [...tools].reverse();
    expect(toolSetDigest(reversed)).toBe(toolSetDigest(tools));
    expect(rankTools('why is the machine so slow', reversed, 3)).toEqual(rankTools('why is the machine so slow', tools, 3));
    const changed = tools.map((t) => (t.name === 'disk_usage' ? { ...t, when: 'never' } : t));
    expect(toolSetDigest(changed)).not.toBe(toolSetDigest(tools));
  });

  it('a tool set with a name twice is refused, naming the tool', () => {
    expect(() => ToolIndex.build([tools[0]!, tools[0]!])).toThrow(/two tools are named "disk_usage"/);
  });

  it('a top_k that is not a whole number of at least 1 is refused, naming the setting', () => {
    expect(() => rankTools('disk', tools, 0)).toThrow(/top_k/);
    expect(() => rankTools('disk', tools, 1.5)).toThrow(/top_k/);
  });

  it('an empty tool set retrieves nothing', () => {
    expect(rankTools('disk full', [], 3)).toEqual([]);
  });

  it('on 20 admin goals the right tool is in the top 3 for at least 18', () => {
    let top1 = 0;
    let top3 = 0;
    const misses: string[] = [];
    for (const g of goals) {
      const ranked = rankTools(g.goal, tools, 3).map((r) => r.name);
      if (ranked[0] === g.tool) top1++;
      else if (ranked.includes(g.tool)) misses.push(`(top-1 only) ${JSON.stringify(g.goal)}: wanted ${g.tool}, got [${ranked.join(', ')}]`);
      if (ranked.includes(g.tool)) top3++;
      else misses.push(`${JSON.stringify(g.goal)}: wanted ${g.tool}, got [${ranked.join(', ')}]`);
    }
    console.log(`retrieval on ${goals.length} goals: top-1 ${top1}/${goals.length}, top-3 ${top3}/${goals.length}${misses.length ? `\nmisses:\n  ${misses.join('\n  ')}` : ''}`);
    expect(top3).toBeGreaterThanOrEqual(18);
  });
});
