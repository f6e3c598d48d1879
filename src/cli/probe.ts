/**
 * `pico probe ID --root DIR [--json] [--calls N]` — measure a gguf provider on
 * this machine and write the numbers into its manifest.
 *
 * Load times, tokens/s and peak RSS come from a child process (so peak RSS is
 * the model's own); p50/p90 of a whole call come from N real calls through
 * the gguf adapter with the provider's prompt, schema and residency. The
 * manifest's `resource` and `cost` are replaced, stamped with the machine
 * hash, and the file is rewritten atomically. The policy reads them; this
 * command does not decide anything with them. Only a gguf provider can be
 * probed: naming another kind, a missing or invalid manifest, or weights that
 * do not match is the user's error, said with the file and the fix (exit 2 for
 * a wrong id, 3 for a broken root), never a raw validation dump.
 */
import { unreadable } from '../base/named-file.js';
import { readdir, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../base/durable-file.js';
import { withRootTemp } from '../models/root-temp.js';
import path from 'node:path';
import { MIN_OBSERVATIONS } from '../memory/cost.js';
import { EXIT, jsonOption, parse, rootOf, rootOption, UsageError } from './args.js';
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

/** A probe the user's input or root prevents; `exit` is 2 (a wrong id) or 3 (a broken root), and `fix` says what to do. */
export class ProbeError extends Error {
  override name = 'ProbeError';
  constructor(message: string, readonly fix: string, readonly exit: 2 | 3) {
    super(message);
  }
}

/** The ids of the gguf providers in a root's manifests (for advice; unreadable files are skipped). */
async function ggufIds(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const ids: string[] = [];
  for (const n of names.filter((f) => f.endsWith('.json')).sort()) {
    const doc = await readFile(path.join(dir, n), 'utf8').then((t) => JSON.parse(t) as { id?: unknown; kind?: unknown }).catch(() => null);
    if (doc?.kind === 'gguf' && typeof doc.id === 'string') ids.push(doc.id);
  }
  return ids;
}

/** Read and check a gguf manifest; errors name the file and say how to fix it. */
async function readGgufManifest(root: string, id: string, file: string): Promise<ManifestOfKind<'gguf'>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const known = await ggufIds(path.dirname(file));
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ProbeError(missing ? `this root has no provider "${id}" (no file ${file})` : `${unreadable(file, e, 'provider manifest').problem}`,
      known.length > 0 ? `probe one of this root's models: ${known.map((k) => `pico probe ${k} --root ${root}`).join(', ')}`
        : `this root has no gguf provider; install a model first: pico provision FILE.gguf --id ID --implements CAP --root ${root}`, 2);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ProbeError(`${file}: not JSON (${(e as Error).message})`, `fix the file (pico manifests check --root ${root} names every problem)`, 3);
  }
  const kind = (raw as { kind?: unknown } | null)?.kind;
  if (kind !== 'gguf') {
    throw new ProbeError(`provider "${id}" is a ${typeof kind === 'string' ? kind : 'kindless'} provider (${file}); pico probe measures gguf models only`,
      `a ${String(kind)} provider is measured as it runs: after ${MIN_OBSERVATIONS} calls, pico cost ${id} --root ${root} shows its p50/p90; or declare "cost": {"p50_ms": N, "p90_ms": N} in its manifest`, 2);
  }
  const r = ggufProviderSchema.safeParse(raw);
  if (!r.success) {
    // one line per field, in words: a field that is absent says "missing" rather than "received undefined"
    const said = (m: string): string => m.replace(/^Invalid input: expected (.+), received undefined$/, 'missing (expected $1)');
    const issues = r.error.issues.map((i) => `  ${i.path.length > 0 ? i.path.join('.') : '(top level)'}: ${said(i.message)}`).join('\n');
    throw new ProbeError(`${file}: not a valid gguf provider manifest:\n${issues}`, `correct those fields (pico manifests check --root ${root} checks every manifest; docs/manifests.md, "Providers")`, 3);
  }
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
  const m = await readGgufManifest(root, id, manifestPath);
  const r = await withRootTemp(root, 'probe-', (tmpDir) => measureProvider(root, m, { ...opts, tmpDir, manifestPath }));
  await writeFileAtomic(manifestPath, `${JSON.stringify(r.manifest, null, 2)}\n`);
  return { manifestPath, ...r };
}

/**
 * Measure a gguf manifest (whose file may still be staged) and return it with `resource` and
 * `cost` filled in; writes nothing. `measurement`: one already taken at `m.threads` (provision's sweep).
 */
export async function measureProvider(root: string, m: ManifestOfKind<'gguf'>, opts: { calls?: number; tmpDir: string; measurement?: ModelMeasurement; manifestPath?: string }): Promise<Omit<ProbeResult, 'manifestPath'>> {
  let file: string;
  try {
    file = await verifyWeights(root, m);
  } catch (e) {
    throw new ProbeError(`provider "${m.id}": ${(e as Error).message}`, `fix "file" / "sha256" in ${opts.manifestPath ?? 'its manifest'}, or provision the model again`, 3);
  }
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

const USAGE = 'pico probe ID [--root DIR] [--json] [--calls N≥1]';

/** CLI entry: argv excludes the command name. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...rootOption, ...jsonOption, calls: { type: 'string', default: '3' } }, USAGE);
  const id = positionals[0];
  const calls = Number(values.calls);
  if (!id || positionals.length > 1) throw new UsageError(`name one gguf provider id (a file manifests/providers/ID.json)\nusage: ${USAGE}`);
  if (!Number.isInteger(calls) || calls < 1) throw new UsageError(`--calls must be a whole number from 1, got "${values.calls}"\nusage: ${USAGE}`);
  try {
    const r = await probeProvider(rootOf(values), id, { calls });
    process.stdout.write(values.json ? `${JSON.stringify({ ok: true, manifest: r.manifestPath, resource: r.manifest.resource, cost: r.manifest.cost, measurement: r.measurement, calls_ms: r.callsMs })}\n` : `${describeProbe(r)}\n`);
    return EXIT.ok;
  } catch (e) {
    const message = (e as Error).message;
    const fix = e instanceof ProbeError ? e.fix : null;
    process.stderr.write(values.json ? `${JSON.stringify({ ok: false, error: message, ...(fix ? { fix } : {}) })}\n` : `pico probe: ${message}${fix ? `\nfix: ${fix}` : ''}\n`);
    return e instanceof ProbeError ? e.exit : EXIT.negative;
  }
}
