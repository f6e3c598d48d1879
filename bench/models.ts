/**
 * Model bench rows (issue 5, item 8) on stories260K: load ms (cold, warm),
 * prompt and decode tokens/s with and without a JSON-schema grammar, and peak
 * RSS — measured in a child process so the numbers are the model's own, not
 * the bench harness's. When `../shared/models` is absent the rows are skipped
 * with a note instead of failing the bench.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureModel } from '../src/adapters/gguf-measure.js';
import type { BenchRow } from './types.js';

/** Find the shared models folder from the repository root (dist/bench or bench). */
export function storiesPath(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = path.resolve(dir, '../shared/models/stories260K.gguf');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return null;
}

/** Bench rows for the gguf kind; one thread (the fastest setting for a model this small). */
export async function benchModels(): Promise<BenchRow[]> {
  const file = storiesPath();
  if (!file) return [{ group: 'models', name: 'stories260K', value: 0, unit: 'skipped', note: '../shared/models/stories260K.gguf is absent' }];
  const m = await measureModel(file, { threads: 1, contextSize: 1024 });
  const g = 'models/stories260K';
  return [
    { group: g, name: 'load cold (backend + model + context)', value: m.load_ms_cold, unit: 'ms', note: 'README: getLlama ≈ 700–800 ms' },
    { group: g, name: 'load warm (model + context)', value: m.load_ms_warm, unit: 'ms', note: 'README: loadModel ≈ 80 ms' },
    { group: g, name: 'prompt eval', value: m.prompt_tokens_per_s, unit: 'tokens/s', note: `${m.prompt_tokens} tokens, 1 thread` },
    { group: g, name: 'decode without grammar', value: m.decode_tokens_per_s, unit: 'tokens/s', note: 'README: ≈ 1,100 with 1 thread' },
    { group: g, name: 'decode with JSON-schema grammar', value: m.grammar_decode_tokens_per_s, unit: 'tokens/s', note: `${m.grammar_decode_tokens} tokens` },
    { group: g, name: 'peak RSS (child process)', value: m.peak_rss_mb, unit: 'MB', note: 'README: whole script ≈ 108 MB' },
  ];
}
