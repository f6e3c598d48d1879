/**
 * The `answer` code provider: `answer@1` from the canonical facts document.
 * It checks the document's shape itself (names the field that is wrong) and
 * leaves everything else to `render.ts`; it keeps nothing between calls.
 */
import type { CodeProvider } from '../types.js';
import type { AnswerFact } from './overall.js';
import { renderAnswer, type AnswerInput } from './render.js';

export { renderAnswer, quote, humanBytes, QUOTE_MAX, type Answer, type AnswerInput } from './render.js';
export type { AnswerFact } from './overall.js';

const SHAPE = 'expected {"goal": string, "facts": [{"step", "schema", "fact": object, "trust": "T0"|"T1"|"T2", "sentence"?: string | [string]}], "missing": [string]}';

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
    if (!ok) throw new Error(`answer provider: facts[${i}] is not {step, schema, fact: object, trust: T0|T1|T2}; ${SHAPE}`);
    const s = x.sentence;
    if (s !== undefined && typeof s !== 'string' && !(Array.isArray(s) && s.every((t) => typeof t === 'string'))) {
      throw new Error(`answer provider: facts[${i}].sentence (the schema's x-sentence) must be a string or a list of strings; ${SHAPE}`);
    }
    return x as unknown as AnswerFact;
  });
  return { goal: d.goal, facts, missing: d.missing as string[] };
}

/** Render the answer; only `answer@1` is produced. */
export const answerProvider: CodeProvider = ({ text, schemaId }) => {
  if (schemaId !== 'answer@1') {
    throw new Error(`answer provider: asked for schema "${schemaId}" but it only produces answer@1; fix the manifest's "schemas" or the job step`);
  }
  return renderAnswer(parseAnswerInput(text));
};
