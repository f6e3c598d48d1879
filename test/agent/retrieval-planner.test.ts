// The retrieval planner (issue 35) as a pure function: which of the tools covers a part's subject,
// with which arguments. Tools here are plain objects shaped like the shipped ones.
import { describe, expect, it } from 'vitest';
import { planFromTools, type CoverTool, type PartEntities } from '../../src/agent/retrieval-planner.js';

const schema = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });
const tool = (name: string, words: string[], input: Record<string, unknown> = schema({}), lists: string[] = []): CoverTool => ({ name, words: new Set(words), input_schema: input, lists });
const TOOLS = new Map([
  tool('unit_status', ['unit', 'servic', 'running', 'restart'], schema({ unit: { type: 'string' } }, ['unit'])),
  tool('journal_window', ['journal', 'log', 'servic', 'restart'], schema({ since: { type: 'string', pattern: '^[0-9a-z: -]+$' }, until: { type: 'string' }, unit: { type: 'string' }, boot: { type: 'integer', maximum: 0 } })),
  tool('load_top', ['cpu', 'process', 'load'], schema({ sort: { type: 'string', enum: ['cpu', 'mem'] } }), ['processes']),
  tool('thermal', ['cpu', 'temperatur'], schema({})),
  tool('file_stat', ['stat', 'file', 'size'], schema({ path: { type: 'string' } }, ['path'])),
].map((t) => [t.name, t]));
const none: PartEntities = { unit: null, path: null, since: null, until: null, boot: null, priority: null, sort: null };
const ranked = (...names: string[]) => names.map((name, i) => ({ name, score: 10 - i }));

describe('the retrieval planner', () => {
  it('a tool whose required argument the part does not give is never planned', () => {
    const calls = planFromTools({ concepts: [{ word: 'restarted', any: ['restart'] }], entities: none, ranked: ranked('unit_status', 'journal_window'), tools: TOOLS });
    expect(calls.map((c) => c.name)).toEqual(['journal_window']);
    const named = planFromTools({ concepts: [{ word: 'restarted', any: ['restart'] }], entities: { ...none, unit: 'nginx.service' }, ranked: ranked('unit_status', 'journal_window'), tools: TOOLS });
    expect(named.map((c) => [c.name, c.arguments])).toEqual([['unit_status', { unit: 'nginx.service' }], ['journal_window', { unit: 'nginx.service' }]]);
  });

  it('the tools kept cover the most of the subject, and an argument the schema refuses is left out', () => {
    const calls = planFromTools({ concepts: [{ word: 'cpu', any: ['cpu'] }, { word: 'temp', any: ['temperatur'] }], entities: { ...none, since: 'NOT A TIME!' }, ranked: ranked('load_top', 'thermal', 'journal_window'), tools: TOOLS });
    expect(calls.map((c) => c.name)).toEqual(['thermal']);
    const windowed = planFromTools({ concepts: [{ word: 'log', any: ['log'] }], entities: { ...none, since: 'NOT A TIME!', until: '11:00' }, ranked: ranked('journal_window'), tools: TOOLS });
    expect(windowed[0]!.arguments).toEqual({ until: '11:00' });
  });

  it("a selection's noun prefers the tool whose facts list that kind of thing", () => {
    const calls = planFromTools({ concepts: [{ word: 'cpu', any: ['cpu'] }], entities: none, noun: 'process', ranked: ranked('thermal', 'load_top'), tools: TOOLS });
    expect(calls.map((c) => c.name)).toEqual(['load_top']);
  });

  it('a part that names only a thing is served by the tool that reads that thing; a part that names nothing gets nothing', () => {
    expect(planFromTools({ concepts: [], entities: { ...none, path: '/etc/hosts' }, ranked: [], tools: TOOLS }).map((c) => c.name)).toEqual(['file_stat']);
    expect(planFromTools({ concepts: [], entities: none, ranked: ranked('thermal'), tools: TOOLS })).toEqual([]);
    expect(planFromTools({ concepts: [{ word: 'gpio', any: ['gpio'] }], entities: none, ranked: ranked('thermal'), tools: TOOLS })).toEqual([]);
  });

  it('at most three tools are planned', () => {
    const many = new Map([...Array(6).keys()].map((i) => [`t${i}`, tool(`t${i}`, ['disk'])]));
    expect(planFromTools({ concepts: [{ word: 'disk', any: ['disk'] }], entities: none, ranked: [...many.keys()].map((name) => ({ name, score: 1 })), tools: many })).toHaveLength(3);
  });
});
