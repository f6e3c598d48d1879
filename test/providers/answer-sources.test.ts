// Every sentence of an answer names where it came from (issue 30, seam §4): the renderer run over
// every shipped schema's facts — real parser outputs on the fixtures and the example data, and the
// same schemas with every value absent — alone, as an answered, partial or unchecked part, and
// under every ask (state, why, list, count, member, show with every noun). A sentence with no
// fact must name the fixed phrase it is; every source must be a fact of the input; the text is
// the sentences joined; and the same words are never said twice.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeProviders } from '../../providers/index.js';
import { renderAnswer, type Answer, type AnswerInput, type CoveredPart } from '../../providers/answer/index.js';
import type { AnswerFact } from '../../providers/answer/index.js';
import { NOUNS } from '../../src/agent/answer/select.js';
import { compileSchema, FIXTURES, ROOT } from './fixtures.js';

type Fact = Record<string, unknown>;
interface Provider { id: string; kind: string; entry?: string; command?: string[]; schemas?: string[] }

const providers = readdirSync(join(ROOT, 'manifests/providers')).map((f) => JSON.parse(readFileSync(join(ROOT, 'manifests/providers', f), 'utf8')) as Provider);
const schemaIds = readdirSync(join(ROOT, 'manifests/schemas')).map((f) => f.replace(/\.json$/, '')).filter((s) => s !== 'answer@1' && s !== 'plan@1');

/** A fact of the schema in which every value is absent: null where the schema allows it, else an empty list or false. */
function absent(schemaId: string): Fact {
  const s = JSON.parse(readFileSync(join(ROOT, 'manifests/schemas', `${schemaId}.json`), 'utf8')) as { required?: string[]; properties: Record<string, { type?: string | string[] }> };
  return Object.fromEntries((s.required ?? Object.keys(s.properties)).map((k) => {
    const t = s.properties[k]?.type;
    const types = Array.isArray(t) ? t : [t];
    return [k, types.includes('null') ? null : types.includes('array') ? [] : types.includes('boolean') ? false : types.includes('integer') || types.includes('number') ? 0 : types.includes('string') ? '' : null];
  }));
}

/** Real parser outputs: every code parser on its fixtures, the example data through its parser, the media script on the example files. */
function realFacts(): { schema: string; fact: Fact; from: string }[] {
  const out: { schema: string; fact: Fact; from: string }[] = [];
  const parse = (p: Provider, schema: string, text: string, from: string) => {
    try {
      const v = codeProviders[p.entry!]!({ text, capability: 'extract@1', schemaId: schema });
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push({ schema, fact: v as Fact, from });
    } catch {
      // an input its parser refuses gives no fact, as in a session
    }
  };
  for (const p of providers) {
    if (p.kind !== 'code' || !p.entry || p.entry === 'answer' || p.entry === 'playbook-planner') continue;
    for (const schema of p.schemas ?? []) {
      const dir = join(FIXTURES, schema.replace(/@\d+$/, ''));
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir).filter((x) => x.endsWith('.input')).sort()) parse(p, schema, readFileSync(join(dir, f), 'utf8'), `${schema} fixture ${f}`);
    }
  }
  const by = (schema: string) => providers.find((p) => p.kind === 'code' && p.schemas?.includes(schema));
  const disk = by('disk_usage@1');
  const log = by('log_summary@2');
  if (disk) parse(disk, 'disk_usage@1', readFileSync(join(ROOT, 'examples/data/df.txt'), 'utf8'), 'examples/data/df.txt');
  if (log) parse(log, 'log_summary@2', readFileSync(join(ROOT, 'examples/data/syslog.txt'), 'utf8'), 'examples/data/syslog.txt');
  // the second modality: the image_info / audio_info tools' od dump through providers/media-header.sh
  const tool = JSON.parse(readFileSync(join(ROOT, 'manifests/tools/image_info.json'), 'utf8')) as { command: string[] };
  for (const [file, schema] of [['examples/data/sample.png', 'image_properties@1'], ['examples/data/tone.wav', 'audio_properties@1']] as const) {
    const [cmd, ...args] = tool.command.map((a) => (a === '{path}' ? join(ROOT, file) : a));
    const dump = execFileSync(cmd!, args, { encoding: 'utf8' });
    const r = spawnSync(join(ROOT, 'providers/media-header.sh'), [], { input: JSON.stringify({ input: dump, capability: 'extract@1', schema: { $id: schema }, schema_id: schema, feedback: null }), encoding: 'utf8' });
    out.push({ schema, fact: JSON.parse(r.stdout) as Fact, from: file });
  }
  return out;
}

const facts = [...realFacts(), ...schemaIds.map((schema) => ({ schema, fact: absent(schema), from: `${schema} with every value absent` }))];

/** The first string value a fact holds (a name a member ask could be about). */
function firstString(v: unknown, depth = 0): string | null {
  if (typeof v === 'string' && v.trim()) return v;
  if (depth > 3 || typeof v !== 'object' || v === null) return null;
  for (const x of Object.values(v)) { const s = firstString(x, depth + 1); if (s) return s; }
  return null;
}

/** What every answer must hold: a source or a fixed name for each sentence, real sources, the text joined from them, no words twice. */
function checkSources(a: Answer, input: AnswerInput, what: string): void {
  expect(a.sentences.length, what).toBeGreaterThan(0);
  for (const s of a.sentences) {
    expect(s.text.trim().length, `${what}: an empty sentence`).toBeGreaterThan(0);
    if (s.from.length === 0) expect(s.fixed, `${what}: "${s.text}" has no source and names no fixed phrase`).toMatch(/^[a-z-]+$/);
    for (const f of s.from) expect(input.facts.some((x) => x.step === f.step && x.seq === f.seq), `${what}: "${s.text}" cites ${f.step}#${f.seq}, which is not a fact of the input`).toBe(true);
  }
  const texts = a.sentences.map((s) => s.text);
  expect(new Set(texts).size, `${what}: a sentence said twice: ${texts.join(' | ')}`).toBe(texts.length);
  expect(a.text.replace(/\s+/g, ' '), `${what}: the text is not its sentences joined`).toBe(texts.join(' ').replace(/\s+/g, ' '));
}

const part = (o: Partial<CoveredPart> & { steps: string[] }): CoveredPart => ({ text: 'the question', status: 'answered', from: [], ...o });

describe('every sentence of an answer says where it came from', () => {
  it('the corpus holds a real parser output for every shipped fact schema a parser serves, and an absent one for every schema', () => {
    const real = new Set(facts.filter((f) => !f.from.includes('absent')).map((f) => f.schema));
    for (const p of providers) for (const s of p.schemas ?? []) if (s !== 'answer@1' && s !== 'plan@1' && p.entry !== 'playbook-planner') expect(real.has(s) || !existsSync(join(FIXTURES, s.replace(/@\d+$/, ''))), `no real ${s} fact`).toBe(true);
    expect(real.size).toBeGreaterThanOrEqual(10);
  });

  it('no sentence is emitted without a source, whatever the schema, the part\'s status or its ask', async () => {
    const valid = await compileSchema('answer@1');
    const asks = [undefined, { kind: 'state' }, { kind: 'why' }, { kind: 'show' }, ...NOUNS.flatMap((noun) => [{ kind: 'list', noun }, { kind: 'count', noun }, { kind: 'show', noun }])];
    let answers = 0;
    for (const [i, f] of facts.entries()) {
      const fact: AnswerFact = { step: `s${i}`, seq: 10 + i, schema: f.schema, trust: 'T1', fact: f.fact };
      const name = firstString(f.fact);
      const inputs: [string, AnswerInput][] = [[`${f.from} alone`, { goal: 'how is it', facts: [fact], missing: [] }]];
      for (const ask of [...asks, ...(name ? [{ kind: 'member', name }, { kind: 'member', name: 'not-there-at-all' }] : [])]) {
        inputs.push([`${f.from} answered, ask ${JSON.stringify(ask)}`, { goal: 'q', facts: [fact], missing: [], parts: [part({ steps: [fact.step], from: [{ step: fact.step, seq: fact.seq }], ...(ask ? { ask } : {}), window: { label: 'today', from: [{ step: fact.step, seq: fact.seq }] } })] }]);
      }
      inputs.push([`${f.from} partial`, { goal: 'q', facts: [fact], missing: [], parts: [part({ status: 'partial', steps: [fact.step, 'gone'], from: [{ step: fact.step, seq: fact.seq }], said: 'Not checked: a check (the tool failed).' })] }]);
      inputs.push([`${f.from} unchecked beside it`, { goal: 'q', facts: [fact], missing: [], parts: [part({ status: 'unchecked', steps: [fact.step], said: 'I could not check "the question": nothing read speaks of it.', offers: ['what happened'] })] }]);
      for (const [what, input] of inputs) {
        const a = renderAnswer(input);
        checkSources(a, input, what);
        expect(valid(a), `${what}: not a valid answer@1`).toBe(true);
        answers++;
      }
    }
    expect(answers).toBeGreaterThan(500);
  });

  it('the same fact is never said twice: two parts sharing a step say it once, and the same words from two facts once with both sources', () => {
    const load = facts.find((f) => f.schema === 'load_processes@1' && f.from.includes('pi4'))!.fact;
    const a1: AnswerFact = { step: 'load_top', seq: 7, schema: 'load_processes@1', trust: 'T1', fact: load };
    const a2: AnswerFact = { step: 'load_top_2', seq: 9, schema: 'load_processes@1', trust: 'T1', fact: { ...load, sorted_by: 'memory' } };
    const input: AnswerInput = { goal: 'temps and load, and is it slow', facts: [a1, a2], missing: [], parts: [
      part({ text: 'load', steps: ['load_top'], from: [{ step: 'load_top', seq: 7 }] }),
      part({ text: 'is it slow', steps: ['load_top', 'load_top_2'], from: [{ step: 'load_top', seq: 7 }, { step: 'load_top_2', seq: 9 }] }),
    ] };
    const a = renderAnswer(input);
    checkSources(a, input, 'two parts, one shared step');
    const averages = a.sentences.filter((s) => s.text.startsWith('Load averages'));
    expect(averages).toHaveLength(1);
    expect(averages[0]!.from).toEqual([{ step: 'load_top', seq: 7 }, { step: 'load_top_2', seq: 9 }]);
    expect(a.sentences.filter((s) => s.text.startsWith('Top process by CPU'))).toHaveLength(1);
    expect(a.sentences.filter((s) => s.text.startsWith('Top process by memory'))).toHaveLength(1);
    // read again moments later, the same kind of sentence with other numbers is a repeat: said once, from the first reading
    const later: AnswerFact = { ...a2, fact: { ...a2.fact, load_1m: 9.99 } };
    const b = renderAnswer({ ...input, facts: [a1, later] });
    checkSources(b, { ...input, facts: [a1, later] }, 'a second reading');
    expect(b.sentences.filter((s) => s.text.startsWith('Load averages')).map((s) => s.from)).toEqual([[{ step: 'load_top', seq: 7 }]]);
  });
});
