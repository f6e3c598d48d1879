// A model planner's grammar (design §7, issue 26): JSON Schema → GBNF with pattern, enum, const and
// string lengths, refusing — by name — what it cannot express, and accepted by llama.cpp's parser.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gbnfFor, GrammarRefused, patternRule } from '../../src/adapters/gbnf.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tool = (name: string) => JSON.parse(readFileSync(join(ROOT, 'manifests/tools', `${name}.json`), 'utf8')) as { input_schema: Record<string, unknown> };

describe('JSON Schema to GBNF', () => {
  it('a schema pattern becomes rules the model cannot leave: the journal window takes only its time forms', () => {
    const g = gbnfFor(tool('journal_window').input_schema, 'journal_window');
    expect(g).toContain('"now" | "today" | "yesterday" | [0-9]{4} "-" [0-9]{2} "-" [0-9]{2}');
    expect(g).toContain('" ago"');
    // the unit pattern: a first character class, then up to 250 more
    expect(g).toContain('[A-Za-z0-9_] [A-Za-z0-9_.@:\\x2D]{0,250}');
  });

  it('enum, const, minLength and maxLength become exact rules', () => {
    const g = gbnfFor({ type: 'object', required: ['name', 'sort', 'path'], properties: {
      name: { const: 'load_top' }, sort: { enum: ['cpu', 'mem'] }, path: { type: 'string', minLength: 1, maxLength: 12 },
    } });
    expect(g).toContain('"\\"load_top\\""');
    expect(g).toContain('("\\"cpu\\"" | "\\"mem\\"")');
    expect(g).toMatch(/\{1,12\}/);
  });

  it('optional properties may each be left out, and a comma never leads', () => {
    const g = gbnfFor({ type: 'object', properties: { a: { type: 'boolean' }, b: { type: 'null' } } });
    expect(g).toMatch(/"\\"a\\"" ws ":" ws \("true" \| "false"\) obj-\d+ \| obj-\d+/);
    expect(g).toMatch(/obj-\d+ ::= "," ws "\\"b\\"" ws ":" ws "null" \| ""/);
  });

  it('a pattern with a lookahead is refused, naming the place and the pattern', () => {
    const schema = tool('image_info').input_schema;
    expect(() => gbnfFor(schema, 'image_info')).toThrow(GrammarRefused);
    expect(() => gbnfFor(schema, 'image_info')).toThrow(/image_info\.path: pattern "\^\(\?!.*lookarounds/);
    expect(() => patternRule('(a)\\1')).toThrow(/back-references/);
    expect(() => patternRule('^a|b$')).toThrow(/top-level "\|"/);
  });

  it('a plan over several tools leaves out only the tool whose arguments cannot become a grammar; with none left it is refused', () => {
    const call = (name: string) => ({ type: 'object', required: ['name', 'arguments'], properties: { name: { const: name }, arguments: tool(name).input_schema } });
    const plan = (...names: string[]) => ({ type: 'array', minItems: 1, items: { anyOf: names.map(call) } });
    const g = gbnfFor(plan('load_top', 'image_info', 'file_stat'), 'plan');
    expect(g).toContain(JSON.stringify(JSON.stringify('load_top')).slice(1, -1));
    expect(g).toContain(JSON.stringify(JSON.stringify('file_stat')).slice(1, -1));
    expect(g).not.toContain('image_info');
    expect(() => gbnfFor(plan('image_info'), 'plan')).toThrow(/plan\[\]\|0\.arguments\.path: pattern .*lookarounds/);
  });

  it('an unanchored pattern may be surrounded by other characters, as JSON Schema searches', () => {
    expect(patternRule('ab')).toMatch(/^\[\^.*\]\* \("ab"\) \[\^.*\]\*$/);
    expect(patternRule('^ab$')).toBe('("ab")');
  });

  it('every shipped schema and every plannable tool builds a grammar that llama.cpp parses', async () => {
    const { getLlama } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false });
    const schemas = readdirSync(join(ROOT, 'manifests/schemas')).map((f) => JSON.parse(readFileSync(join(ROOT, 'manifests/schemas', f), 'utf8')) as Record<string, unknown>);
    for (const name of ['journal_window', 'unit_status', 'load_top', 'file_stat', 'capture_df']) {
      schemas.push({ type: 'array', minItems: 1, maxItems: 7, items: { anyOf: [{ type: 'object', required: ['name', 'arguments'], properties: { name: { const: name }, arguments: tool(name).input_schema } }] } });
    }
    for (const s of schemas) await expect(llama.createGrammar({ grammar: gbnfFor(s) })).resolves.toBeDefined();
  }, 60_000);
});
