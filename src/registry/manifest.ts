/**
 * manifest@1 — the strict shape of provider, tool and capability manifests.
 *
 * Every object is strict: an unknown key is a load error that names the file
 * and the key path, so a misspelt `secuirty` can never silently widen a
 * boundary. This module owns the shapes only; reading files and registering
 * them is `load.ts` and `registry.ts`.
 */
import { z } from 'zod';
import { trustSchema } from '../ledger/events.js';
import { capabilityId, schemaId } from '../base/ids.js';
import { HOST_VIEWS } from './host-view.js';
import { toolCauseSchema } from '../base/tool-cause.js';

const id = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" or "-"');
export { capabilityId, schemaId } from '../base/ids.js';
export { toolCauseSchema, type ToolCause } from '../base/tool-cause.js';

/** What a provider may do with one capability; a capability not named gets the strictest answer. */
export const securitySchema = z.strictObject({
  max_trust_in: trustSchema,
  may_emit_control: z.boolean(),
});
export type Security = z.infer<typeof securitySchema>;

export const samplerSchema = z.strictObject({
  determinism: z.enum(['seeded', 'sampled']),
  temperature: z.number().min(0).max(2),
  top_k: z.number().int().min(0),
  top_p: z.number().min(0).max(1).optional(),
  seed: z.number().int().nonnegative(),
  max_tokens: z.number().int().positive(),
});
export type Sampler = z.infer<typeof samplerSchema>;

/** Measured on a machine by `pico probe`; null until measured. */
export const resourceSchema = z.strictObject({
  peak_rss_mb: z.number().nonnegative(),
  load_ms_cold: z.number().nonnegative(),
  load_ms_warm: z.number().nonnegative(),
  machine: z.string(),
  measured_at: z.string(),
});
export const costSchema = z.strictObject({
  p50_ms: z.number().nonnegative(),
  p90_ms: z.number().nonnegative(),
  prompt_tokens_per_s: z.number().nonnegative().optional(),
  decode_tokens_per_s: z.number().nonnegative().optional(),
  machine: z.string().optional(),
});
export type Cost = z.infer<typeof costSchema>;

/**
 * A pass rate measured by `pico eval --save` (or `pico provision --eval`) on a case file: per
 * capability and schema, what the policy's pass-rate floor reads until live observations take over.
 */
export const evalMeasurementSchema = z.strictObject({
  pass_rate: z.number().min(0).max(1),
  n: z.number().int().positive(),
  /** the harness mode measured (the one closest to how the runtime calls this provider) */
  mode: z.enum(['raw', 'extract', 'ladder', 'retry', 'grammar']),
  cases: z.string(),
  cases_sha256: z.string(),
  variant_digest: z.string(),
  machine: z.string(),
  measured_at: z.string(),
});
export type EvalMeasurement = z.infer<typeof evalMeasurementSchema>;

export const limitsSchema = z.strictObject({
  timeout_ms: z.number().int().positive(),
  max_output_bytes: z.number().int().positive(),
});
export type Limits = z.infer<typeof limitsSchema>;

const providerCommon = {
  manifest: z.literal('provider@1'),
  id,
  description: z.string().optional(),
  implements: z.array(capabilityId).min(1),
  /** output schemas this provider can produce; absent = any schema the capability allows */
  schemas: z.array(schemaId).min(1).optional(),
  max_input_bytes: z.number().int().positive(),
  resource: resourceSchema.nullable(),
  cost: costSchema.nullable(),
  /** capability -> schema -> pass rate measured by pico eval; absent until measured */
  measured: z.record(capabilityId, z.record(schemaId, evalMeasurementSchema)).optional(),
  security: z.record(capabilityId, securitySchema),
  confidence_floor: z.number().min(0).max(1).nullable(),
  escalates_to: z.array(id),
  /** selection order among equals: lower first (after code-first and cost) */
  priority: z.number().int().default(100),
};

export const codeProviderSchema = z.strictObject({
  ...providerCommon,
  kind: z.literal('code'),
  /** name of a module registered in providers/index.ts */
  entry: z.string().min(1),
});
/** The least isolation a program needs (src/world/sandbox.ts); where the machine gives less, it does not run. */
export const isolationSchema = z.enum(['none', 'network', 'partial', 'full']);

export const shellProviderSchema = z.strictObject({
  ...providerCommon,
  kind: z.literal('shell'),
  /** argv; the first element is resolved against the root when it is relative */
  command: z.array(z.string().min(1)).min(1),
  limits: limitsSchema,
  requires_isolation: isolationSchema.optional(),
});
export const ggufProviderSchema = z.strictObject({
  ...providerCommon,
  kind: z.literal('gguf'),
  file: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lower-case hex digits'),
  threads: z.number().int().positive().default(1),
  context_size: z.number().int().positive().default(2048),
  residency: z.enum(['cold', 'warm', 'pinned']).default('cold'),
  sampler: samplerSchema,
  prompt: z.string().min(1),
  limits: limitsSchema,
});
export const httpProviderSchema = z.strictObject({
  ...providerCommon,
  kind: z.literal('http'),
  endpoint: z.url(),
  model: z.string().min(1),
  sampler: samplerSchema,
  prompt: z.string().min(1),
  limits: limitsSchema,
});

export const providerManifestSchema = z.discriminatedUnion('kind', [
  codeProviderSchema, shellProviderSchema, ggufProviderSchema, httpProviderSchema,
]);
export type ProviderManifest = z.infer<typeof providerManifestSchema>;
export type ProviderKind = ProviderManifest['kind'];
export type ManifestOfKind<K extends ProviderKind> = Extract<ProviderManifest, { kind: K }>;

export const toolManifestSchema = z.strictObject({
  manifest: z.literal('tool@1'),
  name: id,
  /** one line: what the tool reads (a planner's retrieval indexes it) */
  description: z.string(),
  /** one line in an admin's words: when this is the right tool ("the disk is full"); every shipped tool has one */
  when: z.string().min(1).max(200).optional(),
  /** the schema its output reduces to by default; absent when it feeds several (read_file) */
  fact_schema: schemaId.optional(),
  /**
   * argv; "{name}" is replaced by the checked argument of that name, "--opt={name}" by the option with
   * the value attached, and "{name?}" / "--opt={name?}" are dropped when the argument is absent.
   * Each stays one argv element; nothing goes through a shell.
   */
  command: z.array(z.string().min(1)).min(1),
  /**
   * What of the host the tool must see as the host does (src/registry/host-view.ts): "fs" (the host's
   * whole tree, read-only, for df), "pid" (every process, for ps), "net" (the host's interfaces and
   * routes, for ip). Each one named is NOT isolated for this tool, and its runs are reported at the
   * level that remains ("fs": partial at most, "pid": network, "net": none).
   */
  host_view: z.array(z.enum(HOST_VIEWS, { error: `host_view lists what the tool sees of the host: any of ${HOST_VIEWS.map((v) => `"${v}"`).join(', ')}` }))
    .min(1).refine((v) => new Set(v).size === v.length, { error: 'host_view names each view once' }).optional(),
  input_schema: z.record(z.string(), z.unknown()),
  /** argument names whose values are paths; each must resolve inside one of read_paths */
  path_args: z.array(z.string()).default([]),
  read_paths: z.array(z.string()).default([]),
  /** groups that may read what it reads (the journal's): the sandbox user keeps those this machine has */
  read_groups: z.array(z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, 'a group name: lower-case letters, digits, "_" or "-"')).min(1).max(4).optional(),
  /**
   * folders a destructive tool may change, relative to the root (nothing else is writable but its
   * own work folder); a read_only tool may name none, and every run waits for a person's approval
   */
  write_paths: z.array(z.string().min(1).refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), { error: 'write_paths are folders inside the root: relative, without ".."' })).optional(),
  output: z.strictObject({ media: z.enum(['text', 'json']) }),
  reducer: capabilityId,
  effect: z.enum(['read_only', 'destructive']),
  idempotent: z.boolean(),
  /** what enters a session from a tool is outside data: T1 only (T0/T2 would let it steer control) */
  trust_out: z.literal('T1', { error: 'a tool\'s output is outside data: trust_out must be "T1" (T0 and T2 are for the runtime and the operator)' }),
  limits: limitsSchema,
  /** exit codes meaning "did part of the work" (du: a folder it could not read): the output is kept, its stderr after it, the answer partial */
  partial_exit_codes: z.array(z.number().int().min(1).max(255)).min(1).max(8).optional(),
  requires_isolation: isolationSchema.optional(),
  /** why a run read nothing, classified into plain words (first match wins); see toolCauseSchema */
  causes: z.array(toolCauseSchema).min(1).max(16).optional(),
});
export type ToolManifest = z.infer<typeof toolManifestSchema>;

export const capabilityManifestSchema = z.strictObject({
  manifest: z.literal('capability@1'),
  id: capabilityId,
  description: z.string(),
  /** a control capability decides what runs next (plan, route); a data one only reduces */
  control: z.boolean(),
  /** output schemas this capability may produce */
  schemas: z.array(schemaId).min(1),
});
export type CapabilityManifest = z.infer<typeof capabilityManifestSchema>;

/** The strictest answer for a capability a manifest does not name. */
export const STRICTEST: Security = { max_trust_in: 'T0', may_emit_control: false };
