/**
 * Which thread count decodes fastest on this machine: measured, not assumed.
 *
 * A 260K-parameter model decodes twenty times faster on one thread than on
 * two (thread synchronisation dominates), while a 1B model on a Pi 5 wants
 * all four cores; only a measurement tells. Each count from 1 to N (N = the
 * CPUs this process may use) runs the measuring child of
 * adapters/gguf-measure.ts once; the fastest decode rate wins, ties going to
 * fewer threads. Each run decodes 64 tokens, and a count that takes more
 * than four times as long as the fastest so far (at least 20 s) is stopped
 * and recorded as slower: on a loaded 2-core box two threads decoded at
 * 2 tokens/s, where a full run would take minutes to say "no". The whole
 * table is returned, for the operator to see. It does not write manifests.
 */
import os from 'node:os';
import { measureModel, type ModelMeasurement } from '../adapters/gguf-measure.js';

export interface ThreadRow {
  threads: number;
  /** null: stopped for being far slower than the best (see `note`) */
  decode_tokens_per_s: number | null;
  grammar_decode_tokens_per_s: number | null;
  prompt_tokens_per_s: number | null;
  note?: string;
}

export interface ThreadSweep {
  best: number;
  table: ThreadRow[];
  /** the full measurement at the best count */
  measurement: ModelMeasurement;
}

/** Measure 1..max threads (default: the CPU count) and keep the fastest decode. */
export async function sweepThreads(file: string, opts: { contextSize: number; tmpDir: string; max?: number }): Promise<ThreadSweep> {
  const max = Math.max(1, opts.max ?? os.availableParallelism());
  const table: ThreadRow[] = [];
  let best: { threads: number; m: ModelMeasurement } | null = null;
  let bestMs = 0;
  for (let threads = 1; threads <= max; threads++) {
    const limit = Math.round(best ? Math.max(20_000, 4 * bestMs) : 120_000);
    const t = performance.now();
    let m: ModelMeasurement;
    try {
      m = await measureModel(file, { threads, contextSize: opts.contextSize, tmpDir: opts.tmpDir, decodeTokens: 64, timeoutMs: limit });
    } catch (e) {
      if (!best || performance.now() - t < limit * 0.95) throw e; // a real failure, not the slowness limit
      table.push({ threads, decode_tokens_per_s: null, grammar_decode_tokens_per_s: null, prompt_tokens_per_s: null, note: `stopped after ${Math.round(limit / 1000)} s: far slower than ${best.threads} thread(s)` });
      continue;
    }
    const ms = performance.now() - t;
    table.push({ threads, decode_tokens_per_s: m.decode_tokens_per_s, grammar_decode_tokens_per_s: m.grammar_decode_tokens_per_s, prompt_tokens_per_s: m.prompt_tokens_per_s });
    if (!best || m.decode_tokens_per_s > best.m.decode_tokens_per_s) {
      best = { threads, m };
      bestMs = ms;
    }
  }
  return { best: best!.threads, table, measurement: best!.m };
}

/** The table as lines for a person. */
export function describeSweep(s: ThreadSweep): string {
  return ['  threads  decode tok/s  with grammar  prompt tok/s',
    ...s.table.map((r) => {
      const cell = (v: number | null) => (v === null ? '—' : v.toFixed(1)).padStart(12);
      return `  ${String(r.threads).padStart(7)}  ${cell(r.decode_tokens_per_s)}  ${cell(r.grammar_decode_tokens_per_s)}  ${cell(r.prompt_tokens_per_s)}${r.threads === s.best ? '  ← kept' : ''}${r.note ? `  (${r.note})` : ''}`;
    })].join('\n');
}
