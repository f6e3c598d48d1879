/**
 * The `answer` code provider: `answer@1` from the canonical facts document.
 * It checks the document's shape itself (names the field that is wrong) and
 * leaves everything else to `render.ts`; it keeps nothing between calls.
 */
import type { CodeProvider } from '../types.js';
import type { AnswerFact } from './overall.js';
import { renderAnswer, type AnswerInput, type CoveredPart } from './render.js';

export { renderAnswer, splitSentences, quote, humanBytes, QUOTE_MAX, MAX_TEXT, type Answer, type AnswerInput, type CoveredPart } from './render.js';
export type { AnswerFact } from './overall.js';

const SHAPE = 'expected {"goal": string, "facts": [{"step", "seq": integer, "schema", "fact": object, "trust": "T0"|"T1"|"T2", "sentence"?: string | [string]}], "missing": [string], "parts"?: [coverage part]}';

/** Parse and check the input document; an error names the field and the expected shape. */
export function parseAnswerInput(text: string): AnswerInput {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`answer provider: input is not JSON (${(e as Error).message}); ${SHAPE}`);
  }
  const d = doc as Record<string, unknown>;
  if (typeof d !== 'object' || d === null || typeof d.goal !== 'string') throw new Error(`answer provider: "goal" must be a string; ${SHAPE}`);
  if (!Array.isArray(d.facts)) throw new Error(`answer provider: "facts" must be an array; ${SHAPE}`);
  if (!Array.isArray(d.missing) || !d.missing.every((m) => typeof m === 'string')) throw new Error(`answer provider: "missing" must be an array of strings; ${SHAPE}`);
  const facts = d.facts.map((f, i): AnswerFact => {
    const x = f as Record<string, unknown>;
    const ok = typeof x === 'object' && x !== null && typeof x.step === 'string' && typeof x.schema === 'string'
      && typeof x.fact === 'object' && x.fact !== null && ['T0', 'T1', 'T2'].includes(x.trust as string);
    if (!ok) throw new Error(`answer provider: facts[${i}] is not {step, seq, schema, fact: object, trust: T0|T1|T2}; ${SHAPE}`);
    if (!Number.isInteger(x.seq) || (x.seq as number) < 0) throw new Error(`answer provider: facts[${i}].seq must be the ledger seq of the fact's fact_added event (a sentence's source); ${SHAPE}`);
    const s = x.sentence;
    if (s !== undefined && typeof s !== 'string' && !(Array.isArray(s) && s.every((t) => typeof t === 'string'))) {
      throw new Error(`answer provider: facts[${i}].sentence (the schema's x-sentence) must be a string or a list of strings; ${SHAPE}`);
    }
    return x as unknown as AnswerFact;
  });
  const parts = d.parts === undefined ? undefined : parseParts(d.parts);
  return { goal: d.goal, facts, missing: d.missing as string[], ...(parts ? { parts } : {}) };
}

/** The recorded coverage: each part a text, a status, its steps and sources (the rest is read where used). */
function parseParts(v: unknown): CoveredPart[] {
  if (!Array.isArray(v)) throw new Error(`answer provider: "parts" must be an array (the recorded coverage); ${SHAPE}`);
  return v.map((p, i) => {
    const x = p as Record<string, unknown>;
    const ok = typeof x === 'object' && x !== null && typeof x.text === 'string' && ['answered', 'partial', 'unchecked'].includes(x.status as string)
      && Array.isArray(x.steps) && x.steps.every((s) => typeof s === 'string') && Array.isArray(x.from);
    if (!ok) throw new Error(`answer provider: parts[${i}] is not {text, status: answered|partial|unchecked, steps: [string], from: [{step, seq}]}; ${SHAPE}`);
    return x as unknown as CoveredPart;
  });
}

/** Render the answer; only `answer@1` is produced. */
export const answerProvider: CodeProvider = ({ text, schemaId }) => {
  if (schemaId !== 'answer@1') {
    throw new Error(`answer provider: asked for schema "${schemaId}" but it only produces answer@1; fix the manifest's "schemas" or the job step`);
  }
  return renderAnswer(parseAnswerInput(text));
};
