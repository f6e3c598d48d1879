/**
 * Ledger durability cost: durable appends per second (stamp, validate,
 * write, fdatasync — one event per commit, the worst case) against a raw
 * write + fdatasync loop of the same bytes, measured in the same run and
 * interleaved so the ratio means something on a noisy machine. Also the batched case the
 * runtime uses within a step (several events, one fdatasync).
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger } from '../src/ledger/ledger.js';
import type { BenchRow } from './types.js';

const EVENT = {
  type: 'provider_called', step: 's1', provider: 'log-summary-parser', capability: 'extract@1', schema: 'log_summary@2',
  duration_ms: 3, outcome: 'ok', attempt: 1, input_sha256: 'sha256:' + 'a'.repeat(64), input_bytes: 2048, output_blob: null, model_call: false,
} as const;

function rawLoop(path: string, n: number, line: string): number {
  const fd = openSync(path, 'a');
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    writeSync(fd, line);
    fdatasyncSync(fd);
  }
  const ms = performance.now() - t0;
  closeSync(fd);
  return (n / ms) * 1000;
}

function ledgerLoop(dir: string, n: number, batch: number): number {
  const { ledger } = Ledger.open(dir, 'bench');
  const t0 = performance.now();
  for (let i = 0; i < n; i += batch) {
    for (let j = 0; j < batch; j++) ledger.append(EVENT);
    ledger.commit();
  }
  const ms = performance.now() - t0;
  ledger.close();
  return (n / ms) * 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Rounds of raw → ledger → raw, each on fresh files of the same size, after one warm-up
 * round (the first appends pay for compiling the validator). A round's ratio is the ledger
 * against the mean of the raw loops around it, so disk drift between rounds cancels; the
 * table shows the medians.
 */
export async function benchLedger(n = 1000, rounds = 5): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pico-bench-ledger-'));
  try {
    const line = JSON.stringify({ seq: 0, t: new Date().toISOString(), session_id: 'bench', ...EVENT }) + '\n';
    const raw: number[] = [];
    const led: number[] = [];
    const ratios: number[] = [];
    for (let round = -1; round < rounds; round++) {
      const before = rawLoop(join(dir, `raw-a${round}.jsonl`), n, line);
      const ledger = ledgerLoop(join(dir, `ledger${round}`), n, 1);
      const after = rawLoop(join(dir, `raw-b${round}.jsonl`), n, line);
      if (round < 0) continue;
      raw.push(before, after);
      led.push(ledger);
      ratios.push(ledger / ((before + after) / 2));
    }
    const batched = ledgerLoop(join(dir, 'batched'), n * 2, 4);
    return [
      { group: 'ledger', name: 'raw write+fdatasync', value: Math.round(median(raw)), unit: 'appends/s' },
      { group: 'ledger', name: 'durable append (1 event/commit)', value: Math.round(median(led)), unit: 'appends/s' },
      { group: 'ledger', name: 'durable append / raw', value: Number(median(ratios).toFixed(2)), unit: 'ratio', note: `goal >= 0.8; median of ${rounds} rounds, min ${Math.min(...ratios).toFixed(2)}` },
      { group: 'ledger', name: 'batched append (4 events/commit)', value: Math.round(batched), unit: 'events/s' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
