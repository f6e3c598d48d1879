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
 * The schema as node-llama-cpp's grammar builder reads it. Its builder (3.21) knows `oneOf` but not
 * `anyOf`: an `anyOf` (every tool-call schema, and nullable `$ref`s) collapses to a grammar that only
 * admits `null`. For generating one value the two mean the same, so `anyOf` is read as `oneOf`.
 */
export function grammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(grammarSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  // const, enum and default hold values, not schemas: copied as they are
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k === 'anyOf' && !('oneOf' in schema) ? 'oneOf' : k, k === 'const' || k === 'enum' || k === 'default' ? v : grammarSchema(v)]));
}

/** The grammar for a schema, built once per entry. */
export async function grammarFor(llama: Llama, entry: LoadedModel, schema: Record<string, unknown>): Promise<LlamaGrammar> {
  const digest = schemaDigest(schema);
  const hit = entry.grammars.get(digest);
  if (hit) return hit;
  // node-llama-cpp's GbnfJsonSchema type is narrower than JSON Schema; unsupported keywords are ignored
  // by its grammar builder and enforced later by the validation ladder.
  const grammar = await llama.createGrammarForJsonSchema(grammarSchema(schema) as never);
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
