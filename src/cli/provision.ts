/**
 * `pico provision FILE.gguf --id ID --implements CAP[,CAP] --root DIR [--json]`
 * — admit a local model: verify the file, bring it into the root's models/
 * folder (a hard link on the same filesystem, else a copy; a file already
 * there is used in place), pin its sha256, measure it — 1 to N threads, the
 * fastest kept, then p50/p90 of real calls — and write a complete manifest.
 *
 * Nothing is left behind when it fails: the model is staged under a unique
 * dot-name in models/ and takes its name only at the end, the measuring
 * programs live in a mkdtemp folder under the root's .tmp/ that is removed
 * whatever happens, and the manifest is written once, atomically, last.
 *
 * Models arrive only this way (P9: nothing is downloaded at run time). The
 * file must start with the GGUF magic and its metadata must be readable by
 * node-llama-cpp; a data capability gets `max_trust_in: T1`,
 * `may_emit_control: false`, a control capability (`--implements plan@1`)
 * `max_trust_in: T2`, `may_emit_control: true` — never both in one
 * manifest; the sampler is greedy and seeded,
 * and points at a shipped prompt for the capability. It refuses to overwrite
 * an existing manifest unless `--force`. Probing is `probe.ts`; `--eval CASES`
 * then runs `pico eval` on the new provider and saves its pass rates into the
 * manifest's `measured` (src/eval/).
 */
import { access, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse, rootOf } from './args.js';
import { importNodeLlamaCpp } from '../adapters/gguf-llama.js';
import { hasGgufMagic, sha256File } from '../adapters/gguf-weights.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { listPrompts } from '../prompts/envelope.js';
import { capabilityId, ggufProviderSchema, type ManifestOfKind } from '../registry/manifest.js';
import { describeProbe, measureProvider, providerManifestPath, type ProbeResult } from './probe.js';
import { writeFileAtomic } from '../base/durable-file.js';
import { insideModels, modelsDirFor, stageModel, type Placement } from '../models/folder.js';
import { withRootTemp } from '../models/root-temp.js';
import { describeSweep, sweepThreads, type ThreadSweep } from '../models/threads.js';
import type { Saved } from '../eval/save.js';

/** A provision refused before anything changed, for something the user named (the file, the id, a prompt, the capabilities). */
class ProvisionRefused extends Error {
  override name = 'ProvisionRefused';
}

export interface ProvisionOptions {
  file: string;
  id: string;
  implements: string[];
  root: string;
  prompt?: string;
  threads?: number;
  contextSize?: number;
  force?: boolean;
  probe?: boolean;
}

/** Verify a GGUF file and return its architecture and name from the metadata. */
async function inspectGguf(file: string): Promise<{ architecture: string; name: string | null }> {
  try {
    await access(file);
  } catch {
    throw new ProvisionRefused(`${file}: no such file; give the path of a .gguf model on this machine`);
  }
  if (!(await hasGgufMagic(file))) throw new ProvisionRefused(`${file}: not a GGUF file (the first 4 bytes are not "GGUF"); convert the model to GGUF first`);
  const { readGgufFileInfo } = await importNodeLlamaCpp();
  try {
    const info = await readGgufFileInfo(file, { readTensorInfo: false, logWarnings: false, sourceType: 'filesystem' });
    const general = info.metadata.general as { architecture?: string; name?: string } | undefined;
    if (!general?.architecture) throw new ProvisionRefused('general.architecture is missing');
    return { architecture: general.architecture, name: general.name ?? null };
  } catch (e) {
    throw new ProvisionRefused(`${file}: GGUF metadata cannot be read (${(e as Error).message}); the file is damaged or from an unsupported GGUF version`);
  }
}

/** Write a verified manifest for a model (and probe it unless told not to). */
/** The root's control capabilities (plan@1, route@1, …), read from manifests/capabilities. */
function controlCapabilities(root: string): Set<string> {
  const dir = path.join(root, 'manifests', 'capabilities');
  const out = new Set<string>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    try {
      const doc = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { id?: unknown; control?: unknown };
      if (doc.control === true && typeof doc.id === 'string') out.add(doc.id);
    } catch { /* pico manifests check reports broken files */ }
  }
  return out;
}

export interface ProvisionResult {
  manifestPath: string;
  manifest: ManifestOfKind<'gguf'>;
  architecture: string;
  probe: ProbeResult | null;
  /** how the file came into models/ */
  placed: Placement['how'];
  /** decode rates per thread count (null: --threads given, or --no-probe) */
  sweep: ThreadSweep | null;
}

export async function provisionModel(o: ProvisionOptions): Promise<ProvisionResult> {
  const root = path.resolve(o.root);
  const file = path.resolve(o.file);
  for (const c of o.implements) {
    if (!capabilityId.safeParse(c).success) throw new ProvisionRefused(`--implements: "${c}" is not a capability id; write name@version, e.g. extract@1`);
  }
  const manifestPath = providerManifestPath(root, o.id);
  if (!o.force && (await access(manifestPath).then(() => true, () => false))) {
    throw new ProvisionRefused(`${manifestPath} already exists; pass --force to replace it, or choose another --id`);
  }
  const { architecture } = await inspectGguf(file);
  const prompts = await listPrompts(root);
  const prompt = o.prompt ? prompts.find((p) => p.id === o.prompt) : prompts.find((p) => p.capability === o.implements[0]);
  if (!prompt) {
    throw new ProvisionRefused(o.prompt
      ? `${root}/prompts/${o.prompt}.md: no such prompt; ship it in the root's prompts/ folder`
      : `${root}/prompts: no prompt for ${o.implements[0]}; ship one (e.g. extract-log-summary.md for extract@1) or pass --prompt ID`);
  }
  // A control capability (plan@1) is served only from trusted input: T0/T2 in, control out. A data
  // capability never emits control. One manifest cannot be both (the policy refuses that mix).
  const control = new Set(o.implements.filter((c) => controlCapabilities(root).has(c)));
  if (control.size > 0 && control.size < o.implements.length) {
    throw new ProvisionRefused(`--implements ${o.implements.join(',')}: mixes control (${[...control].join(', ')}) and data capabilities; provision one manifest per kind (a planner reads only trusted input, a reducer reads T1)`);
  }
  const sha256 = await sha256File(file);
  // From here on the root changes; until the manifest is written at the very end, everything
  // made is undone on failure (the staged model, a models/ folder made for it, .tmp/).
  const sameName = path.join(modelsDirFor(root), path.basename(file));
  const sameContent = existsSync(sameName) && !insideModels(root, file) && (await sha256File(sameName)) === sha256;
  const placement = stageModel(root, file, () => sameContent);
  let done = false;
  try {
    const manifestFor = (weights: string, threads: number) => ggufProviderSchema.parse({
      manifest: 'provider@1',
      id: o.id,
      description: `${architecture} model ${path.basename(file)}, provisioned ${new Date().toISOString().slice(0, 10)}`,
      implements: o.implements,
      schemas: [prompt.schema],
      kind: 'gguf',
      file: weights,
      sha256,
      threads,
      context_size: o.contextSize ?? 4096,
      residency: 'cold',
      max_input_bytes: 8192,
      resource: null,
      cost: null,
      security: Object.fromEntries(o.implements.map((c) => [c, control.has(c) ? { max_trust_in: 'T2', may_emit_control: true } : { max_trust_in: 'T1', may_emit_control: false }])),
      confidence_floor: 0.5,
      escalates_to: [],
      priority: 100,
      sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 42, max_tokens: 512 },
      prompt: prompt.id,
      limits: { timeout_ms: 60_000, max_output_bytes: 8192 },
    });
    let manifest = manifestFor(placement.file, o.threads ?? Math.min(4, os.availableParallelism()));
    let probe: ProbeResult | null = null;
    let sweep: ThreadSweep | null = null;
    if (o.probe !== false) {
      await withRootTemp(root, 'provision-', async (tmpDir) => {
        // measured on the staged file (absolute path), written with its final name
        if (o.threads === undefined) sweep = await sweepThreads(placement.current, { contextSize: manifest.context_size, tmpDir });
        const staged = manifestFor(placement.current, sweep?.best ?? manifest.threads);
        const r = await measureProvider(root, staged, { tmpDir, ...(sweep ? { measurement: sweep.measurement } : {}) });
        manifest = ggufProviderSchema.parse({ ...r.manifest, file: placement.file });
        probe = { manifestPath, ...r, manifest };
      });
    }
    placement.commit();
    await mkdir(path.dirname(manifestPath), { recursive: true });
    await writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    done = true;
    return { manifestPath, manifest, architecture, probe, placed: placement.how, sweep };
  } finally {
    if (!done) placement.discard();
  }
}

/** `--eval CASES`: run pico eval on the provisioned model (its progress line on stderr) and save its pass rates (src/eval/). */
async function evalProvisioned(cases: string, root: string, id: string): Promise<Saved[]> {
  const { evaluateWithProgress, saveRun } = await import('./eval.js');
  return saveRun(await evaluateWithProgress({ casesPath: cases, root, provider: id }), root);
}

const USAGE = 'pico provision FILE.gguf --id ID --implements CAP[,CAP] [--root DIR] [--prompt ID] [--threads N] [--context-size N] [--force] [--no-probe] [--eval CASES] [--json]';

/** CLI entry: argv excludes the command name. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    id: { type: 'string' }, implements: { type: 'string' }, root: { type: 'string' }, json: { type: 'boolean', default: false },
    prompt: { type: 'string' }, threads: { type: 'string' }, 'context-size': { type: 'string' }, force: { type: 'boolean', default: false },
    'no-probe': { type: 'boolean', default: false }, eval: { type: 'string' },
  } as const, USAGE);
  const root = rootOf(values);
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const threads = num(values.threads);
  const contextSize = num(values['context-size']);
  const bad = (v: number | undefined) => v !== undefined && !(Number.isInteger(v) && v > 0);
  if (positionals.length !== 1 || !values.id || !values.implements || bad(threads) || bad(contextSize)) {
    process.stderr.write(`usage: ${USAGE}\n`);
    return 2;
  }
  try {
    const r = await provisionModel({
      file: positionals[0]!, id: values.id, implements: values.implements.split(',').map((s) => s.trim()).filter(Boolean), root,
      prompt: values.prompt, threads, contextSize, force: values.force, probe: !values['no-probe'],
    });
    // --eval: measure the new provider on a case file and write the pass rates into its manifest
    const saved = values.eval ? await evalProvisioned(values.eval, root, r.manifest.id) : null;
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ ok: true, manifest: r.manifestPath, id: r.manifest.id, sha256: r.manifest.sha256, architecture: r.architecture, file: r.manifest.file, placed: r.placed, threads: r.manifest.threads, threads_measured: r.sweep?.table ?? null, resource: r.manifest.resource, cost: r.manifest.cost, ...(saved ? { measured: saved } : {}) })}\n`);
    } else {
      process.stdout.write(`provisioned ${r.manifest.id} (${r.architecture}, sha256 ${r.manifest.sha256.slice(0, 16)}…) → ${r.manifestPath}\n`);
      process.stdout.write(`  weights: ${r.manifest.file} (${r.placed})\n`);
      if (r.sweep) process.stdout.write(`  threads measured on this machine, the fastest kept:\n${describeSweep(r.sweep)}\n`);
      else process.stdout.write(`  threads: ${r.manifest.threads}${values.threads ? ' (--threads)' : ' (not measured: --no-probe; run pico probe, or provision again without --no-probe)'}\n`);
      if (r.probe) process.stdout.write(`${describeProbe(r.probe)}\n`);
      for (const x of saved ?? []) process.stdout.write(`  measured ${x.capability} ${x.schema}: pass rate ${x.measurement.pass_rate} over ${x.measurement.n} cases (${x.measurement.mode})\n`);
    }
    return 0;
  } catch (e) {
    const message = (e as Error).message;
    process.stderr.write(values.json ? `${JSON.stringify({ ok: false, error: message })}\n` : `pico provision: ${message}\n`);
    // the user's mistake (a file, an id, a prompt to name differently) is exit 2; a failure on the way (a full disk) is 1
    return e instanceof ProvisionRefused ? 2 : 1;
  }
}
