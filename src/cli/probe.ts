/**
 * `pico probe ID --root DIR [--json] [--calls N]` — measure a gguf provider on
 * this machine and write the numbers into its manifest.
 *
 * Load times, tokens/s and peak RSS come from a child process (so peak RSS is
 * the model's own); p50/p90 of a whole call come from N real calls through
 * the gguf adapter with the provider's prompt, schema and residency. The
 * manifest's `resource` and `cost` are replaced, stamped with the machine
 * hash, and the file is rewritten atomically. The policy reads them; this
 * command does not decide anything with them.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../durable-file.js';
import { withRootTemp } from '../models/root-temp.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createGgufAdapter } from '../adapters/gguf.js';
import { measureModel, type ModelMeasurement } from '../adapters/gguf-measure.js';
import { verifyWeights } from '../adapters/gguf-weights.js';
import { machineHash } from '../machine/profile.js';
import { loadPrompt } from '../prompts/envelope.js';
import { ggufProviderSchema, type ManifestOfKind } from '../registry/manifest.js';

export interface ProbeResult {
  manifestPath: string;
  manifest: ManifestOfKind<'gguf'>;
  measurement: ModelMeasurement;
  callsMs: number[];
}

const SAMPLE_INPUT = [
  'Mar  3 10:15:01 web01 systemd[1]: Started Daily apt upgrade and clean activities.',
  'Mar  3 10:15:07 web01 nginx[812]: error: upstream timed out while reading response header from upstream',
  'Mar  3 10:15:09 web01 nginx[812]: warning: retrying upstream 10.0.0.7:8080',
].join('\n');

/** Path of a provider manifest in a root. */
export function providerManifestPath(root: string, id: string): string {
  return path.join(root, 'manifests', 'providers', `${id}.json`);
}

/** Read and check a gguf manifest; errors name the file and say how to fix it. */
async function readGgufManifest(file: string): Promise<ManifestOfKind<'gguf'>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: cannot read the manifest (${(e as Error).message}); run \`pico provision\` first`);
  }
  const r = ggufProviderSchema.safeParse(raw);
  if (!r.success) throw new Error(`${file}: not a valid gguf provider manifest: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

/** The p-th percentile (nearest rank) of a list of numbers. */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

/** Measure one gguf provider and write resource/cost into its manifest (atomically). */
export async function probeProvider(root: string, id: string, opts: { calls?: number } = {}): Promise<ProbeResult> {
  const manifestPath = providerManifestPath(root, id);
  const m = await readGgufManifest(manifestPath);
  const r = await withRootTemp(root, 'probe-', (tmpDir) => measureProvider(root, m, { ...opts, tmpDir }));
  await writeFileAtomic(manifestPath, `${JSON.stringify(r.manifest, null, 2)}\n`);
  return { manifestPath, ...r };
}

/**
 * Measure a gguf manifest (whose file may still be staged) and return it with `resource` and
 * `cost` filled in; writes nothing. `measurement`: one already taken at `m.threads` (provision's sweep).
 */
export async function measureProvider(root: string, m: ManifestOfKind<'gguf'>, opts: { calls?: number; tmpDir: string; measurement?: ModelMeasurement }): Promise<Omit<ProbeResult, 'manifestPath'>> {
  const file = await verifyWeights(root, m);
  const measurement = opts.measurement ?? await measureModel(file, { threads: m.threads, contextSize: m.context_size, tmpDir: opts.tmpDir });
  const prompt = await loadPrompt(root, m.prompt);
  const schemaFile = path.join(root, 'manifests', 'schemas', `${prompt.schema}.json`);
  const schema = JSON.parse(await readFile(schemaFile, 'utf8').catch(() => {
    throw new Error(`${schemaFile}: missing; the prompt "${prompt.id}" needs schema ${prompt.schema} in the root`);
  })) as Record<string, unknown>;
  const adapter = createGgufAdapter();
  const callsMs: number[] = [];
  try {
    for (let i = 0; i < (opts.calls ?? 3); i++) {
      const t = performance.now();
      await adapter.invoke(m, {
        capability: prompt.capability, schemaId: prompt.schema, schema, input: SAMPLE_INPUT, feedback: null,
        attempt: 0, root, signal: new AbortController().signal,
      }).catch((e: unknown) => {
        if ((e as { type?: string }).type === 'tool_timeout') throw e;
      });
      await adapter.release!(m);
      callsMs.push(performance.now() - t);
    }
  } finally {
    await adapter.dispose!();
  }
  const machine = machineHash();
  const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
  const updated = ggufProviderSchema.parse({
    ...m,
    resource: {
      peak_rss_mb: round(measurement.peak_rss_mb), load_ms_cold: round(measurement.load_ms_cold), load_ms_warm: round(measurement.load_ms_warm),
      machine, measured_at: new Date().toISOString(),
    },
    cost: {
      p50_ms: round(percentile(callsMs, 50)), p90_ms: round(percentile(callsMs, 90)),
      prompt_tokens_per_s: round(measurement.prompt_tokens_per_s), decode_tokens_per_s: round(measurement.decode_tokens_per_s), machine,
    },
  });
  return { manifest: updated, measurement, callsMs };
}

/** Human-readable summary of a probe. */
export function describeProbe(r: ProbeResult): string {
  const { resource, cost } = r.manifest;
  return [
    `probed ${r.manifest.id} → ${r.manifestPath}`,
    `  load: cold ${resource?.load_ms_cold} ms, warm ${resource?.load_ms_warm} ms; peak RSS ${resource?.peak_rss_mb} MB`,
    `  tokens/s: prompt ${cost?.prompt_tokens_per_s}, decode ${cost?.decode_tokens_per_s} (with grammar ${r.measurement.grammar_decode_tokens_per_s.toFixed(1)})`,
    `  call: p50 ${cost?.p50_ms} ms, p90 ${cost?.p90_ms} ms over ${r.callsMs.length} calls; machine ${resource?.machine.slice(0, 12)}`,
  ].join('\n');
}

/** CLI entry: argv excludes the command name. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: { root: { type: 'string', default: '.' }, json: { type: 'boolean', default: false }, calls: { type: 'string', default: '3' } },
  } as const);
  const id = positionals[0];
  const calls = Number(values.calls);
  if (!id || positionals.length > 1 || !Number.isInteger(calls) || calls < 1) {
    process.stderr.write('usage: pico probe ID [--root DIR] [--json] [--calls N≥1]\n');
    return 2;
  }
  try {
    const r = await probeProvider(path.resolve(values.root), id, { calls });
    process.stdout.write(values.json ? `${JSON.stringify({ ok: true, manifest: r.manifestPath, resource: r.manifest.resource, cost: r.manifest.cost, measurement: r.measurement, calls_ms: r.callsMs })}\n` : `${describeProbe(r)}\n`);
    return 0;
  } catch (e) {
    const message = (e as Error).message;
    process.stderr.write(values.json ? `${JSON.stringify({ ok: false, error: message })}\n` : `pico probe: ${message}\n`);
    return 1;
  }
}
