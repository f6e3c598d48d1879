/**
 * One loaded model: the model, its context and the grammars built for it.
 *
 * An entry is created by the adapter on first use and owns its children;
 * `disposeEntry` releases them in reverse order of creation (grammars,
 * context, model), tries every releaser even when one fails, and reports all
 * failures at once. Grammars are cached by schema digest inside the entry, so
 * releasing a model also drops the grammars built for it. This module does
 * not decide when to load or release; gguf.ts does (residency).
 */
import { createHash } from 'node:crypto';
import type { Llama, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { gbnfFor } from './gbnf.js';

export interface LoadedModel {
  key: string;
  residency: 'cold' | 'warm' | 'pinned';
  model: LlamaModel;
  context: LlamaContext;
  grammars: Map<string, LlamaGrammar>;
}

/** Load a model file and make one context with the manifest's threads and size. */
export async function loadEntry(
  llama: Llama,
  key: string,
  opts: { file: string; threads: number; contextSize: number; residency: LoadedModel['residency'] },
): Promise<LoadedModel> {
  const model = await llama.loadModel({ modelPath: opts.file, gpuLayers: 0 });
  try {
    const context = await model.createContext({ contextSize: opts.contextSize, threads: opts.threads, sequences: 1 });
    return { key, residency: opts.residency, model, context, grammars: new Map() };
  } catch (e) {
    await model.dispose();
    throw e;
  }
}

/** Canonical JSON (sorted keys) of a schema, hashed: equal schemas share one grammar. */
export function schemaDigest(schema: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
        : v;
  return createHash('sha256').update(JSON.stringify(canon(schema))).digest('hex');
}

/**
 * The grammar for a schema, built once per entry: our own JSON Schema → GBNF translation (gbnf.ts),
 * which covers pattern, enum, const and string lengths; a schema it cannot translate exactly is
 * refused with a GrammarRefused naming the place, and the call fails saying so.
 */
export async function grammarFor(llama: Llama, entry: LoadedModel, schema: Record<string, unknown>): Promise<LlamaGrammar> {
  const digest = schemaDigest(schema);
  const hit = entry.grammars.get(digest);
  if (hit) return hit;
  const grammar = await llama.createGrammar({ grammar: gbnfFor(schema, typeof schema.$id === 'string' ? schema.$id : 'schema') });
  entry.grammars.set(digest, grammar);
  return grammar;
}

/** Release an entry's children in reverse order; every failure is reported together. */
export async function disposeEntry(entry: LoadedModel): Promise<void> {
  const errors: unknown[] = [];
  entry.grammars.clear();
  for (const release of [() => entry.context.dispose(), () => entry.model.dispose()]) {
    try {
      await release();
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `releasing model ${entry.key} failed ${errors.length} time(s)`);
}
