/**
 * `--save`: what an eval run teaches the policy. The pass rate per
 * capability and schema goes into the provider manifest's `measured` field,
 * where the policy's pass-rate floor reads it until five live observations
 * take over (runtime/policy.ts `judgedPassRate`).
 *
 * The mode saved is the one closest to how the runtime calls the provider:
 * `grammar` when it ran (the runtime decodes under a grammar), else `retry`,
 * else `ladder`; `raw` and `extract` are never how picoharness calls a
 * model. The manifest is re-validated and rewritten whole (temp + rename);
 * other capabilities' and schemas' entries are kept.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { machineHash } from '../machine/profile.js';
import { providerManifestSchema, type EvalMeasurement } from '../registry/manifest.js';
import { EvalInputError } from './cases.js';
import type { Mode } from './modes.js';
import type { CaseResult } from './run.js';

const PREFERENCE: Mode[] = ['grammar', 'retry', 'ladder'];

export interface Saved { capability: string; schema: string; measurement: EvalMeasurement }

/** Write the measured pass rates into the manifest file; returns what was written. */
export function saveMeasured(manifestFile: string, results: CaseResult[], modes: Mode[], run: { cases: string; cases_sha256: string; variant_digest: string }): Saved[] {
  const mode = PREFERENCE.find((m) => modes.includes(m));
  if (!mode) throw new EvalInputError(`--save needs one of the modes ${PREFERENCE.join(', ')} (how the runtime calls a model); add it to --modes`);
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    const key = `${r.capability}\u0000${r.schemaId}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const raw = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  const measured = { ...((raw.measured ?? {}) as Record<string, Record<string, EvalMeasurement>>) };
  const machine = machineHash();
  const at = new Date().toISOString();
  const saved: Saved[] = [];
  for (const [key, rows] of groups) {
    const [capability, schema] = key.split('\u0000') as [string, string];
    const right = rows.filter((r) => r.modes[mode]?.right).length;
    const m: EvalMeasurement = { pass_rate: Math.round((right / rows.length) * 1000) / 1000, n: rows.length, mode, ...run, machine, measured_at: at };
    measured[capability] = { ...(measured[capability] ?? {}), [schema]: m };
    saved.push({ capability, schema, measurement: m });
  }
  const parsed = providerManifestSchema.safeParse({ ...raw, measured });
  if (!parsed.success) throw new EvalInputError(`${manifestFile}: the manifest would not validate with the measurement (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`);
  const tmp = `${manifestFile}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify({ ...raw, measured }, null, 2)}\n`);
  renameSync(tmp, manifestFile);
  return saved;
}
