/**
 * Ledger durability cost: durable appends per second (stamp, validate,
 * write, fdatasync — one event per commit, the worst case) against a raw
 * write + fdatasync loop of the same bytes, measured in the same run so the
 * ratio means something on a noisy machine. Also the batched case the
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

function rawLoop(dir: string, n: number, line: string): number {
  const fd = openSync(join(dir, 'raw.jsonl'), 'a');
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
  const { ledger } = Ledger.open(join(dir, `l${batch}`), 'bench');
  const t0 = performance.now();
  for (let i = 0; i < n; i += batch) {
    for (let j = 0; j < batch; j++) ledger.append(EVENT);
    ledger.commit();
  }
  const ms = performance.now() - t0;
  ledger.close();
  return (n / ms) * 1000;
}

export async function benchLedger(n = 2000): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pico-bench-ledger-'));
  try {
    const line = JSON.stringify({ seq: 0, t: new Date().toISOString(), session_id: 'bench', ...EVENT }) + '\n';
    // Interleave to share the disk's mood between the two measurements.
    const raw: number[] = [];
    const led: number[] = [];
    for (let round = 0; round < 3; round++) {
      raw.push(rawLoop(dir, n / 2, line));
      led.push(ledgerLoop(dir, n / 2, 1));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const rawRate = med(raw);
    const ledRate = med(led);
    const batched = ledgerLoop(dir, n, 4);
    return [
      { group: 'ledger', name: 'raw write+fdatasync', value: Math.round(rawRate), unit: 'appends/s' },
      { group: 'ledger', name: 'durable append (1 event/commit)', value: Math.round(ledRate), unit: 'appends/s' },
      { group: 'ledger', name: 'durable append / raw', value: Number((ledRate / rawRate).toFixed(2)), unit: 'ratio', note: 'goal >= 0.8' },
      { group: 'ledger', name: 'batched append (4 events/commit)', value: Math.round(batched), unit: 'events/s' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
