/**
 * Shared fixtures for the model suites: where the tiny real GGUF files live,
 * a temp root holding the shipped prompt and the log_summary@2 schema, and a
 * complete gguf manifest. The models are never copied into the project; when
 * `../shared/models` is absent the suites skip with a message, never fail.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ggufProviderSchema, type ManifestOfKind } from '../../src/registry/manifest.js';
import { tempDir } from '../helpers/temp.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MODELS = path.resolve(REPO, '../shared/models');
export const STORIES = path.join(MODELS, 'stories260K.gguf');
export const STORIES_SHA = '270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d';
export const RANDOM = path.join(MODELS, 'llama-2-tiny-random.gguf');
export const RANDOM_SHA = '81f226c62d28ed4a1a9b9fa080fcd9f0cc40e0f9d5680036583ff98fbcd035cb';
export const HAVE_MODELS = existsSync(STORIES) && existsSync(RANDOM);
if (!HAVE_MODELS) console.warn(`[test/models] skipping model tests: ${MODELS} has no stories260K.gguf / llama-2-tiny-random.gguf`);

/** The log_summary@2 schema: the root's copy when it exists, else the shared contract. */
export function schemaPath(): string {
  const own = path.join(REPO, 'manifests/schemas/log_summary@2.json');
  return existsSync(own) ? own : path.resolve(REPO, '../shared/schemas/log_summary@2.json');
}
export const LOG_SUMMARY = JSON.parse(readFileSync(schemaPath(), 'utf8')) as Record<string, unknown>;

/**
 * A small schema and prompt for plumbing tests: the shipped log prompt is
 * ~1,500 tokens, which stories260K evaluates in seconds; these keep the
 * 20-cycle and determinism tests fast while exercising the same path.
 */
export const TINY_SCHEMA: Record<string, unknown> = {
  type: 'object', additionalProperties: false, required: ['level', 'count', 'seen'],
  properties: {
    level: { description: 'Highest level named in the data.', type: ['string', 'null'], enum: ['error', 'warning', 'info', null] },
    count: { description: 'How many lines the data has.', type: ['integer', 'null'], minimum: 0 },
    seen: { description: 'Whether the data names a host.', type: ['boolean', 'null'] },
  },
};
export const TINY_PROMPT = `---
{"prompt":"prompt@1","id":"tiny-note","capability":"extract@1","schema":"tiny_note@1","fields":["level","count","seen"]}
---
Fill in a record about the data.
{{field_rules}}
`;

/** A fresh temp root with prompts/ and manifests/ like `pico init` would leave. */
export function makeRoot(): string {
  const root = tempDir('pico-models-');
  mkdirSync(path.join(root, 'prompts'));
  mkdirSync(path.join(root, 'manifests/providers'), { recursive: true });
  mkdirSync(path.join(root, 'manifests/schemas'), { recursive: true });
  copyFileSync(path.join(REPO, 'prompts/extract-log-summary.md'), path.join(root, 'prompts/extract-log-summary.md'));
  copyFileSync(schemaPath(), path.join(root, 'manifests/schemas/log_summary@2.json'));
  writeFileSync(path.join(root, 'prompts/tiny-note.md'), TINY_PROMPT);
  writeFileSync(path.join(root, 'manifests/schemas/tiny_note@1.json'), JSON.stringify(TINY_SCHEMA));
  return root;
}

/** A complete, schema-valid gguf manifest for stories260K, with overrides. */
export function ggufManifest(over: Record<string, unknown> = {}): ManifestOfKind<'gguf'> {
  return ggufProviderSchema.parse({
    manifest: 'provider@1', id: 'tiny', implements: ['extract@1'], kind: 'gguf',
    file: STORIES, sha256: STORIES_SHA, threads: 1, context_size: 4096, residency: 'cold',
    max_input_bytes: 4096, resource: null, cost: null,
    security: { 'extract@1': { max_trust_in: 'T1', may_emit_control: false } },
    confidence_floor: 0.5, escalates_to: [], priority: 100,
    sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 42, max_tokens: 160 },
    prompt: 'extract-log-summary', limits: { timeout_ms: 20_000, max_output_bytes: 8192 },
    ...over,
  });
}

export const SAMPLE_LOG = [
  'Mar  3 10:15:01 web01 systemd[1]: Started Daily apt upgrade.',
  'Mar  3 10:15:07 web01 nginx[812]: error: upstream timed out while reading response header',
  'Mar  3 10:15:09 web01 nginx[812]: warning: retrying upstream',
].join('\n');

/** A request for extract@1 → tiny_note@1 with a short input. */
export function tinyRequest(root: string, input = 'web01: error: disk full', feedback: string | null = null) {
  return { ...request(root, input, feedback), schemaId: 'tiny_note@1', schema: TINY_SCHEMA };
}

/** A manifest that uses the tiny prompt and a short decode. */
export function tinyManifest(over: Record<string, unknown> = {}): ManifestOfKind<'gguf'> {
  return ggufManifest({ prompt: 'tiny-note', sampler: { determinism: 'seeded', temperature: 0, top_k: 1, seed: 7, max_tokens: 48 }, ...over });
}

/** A provider request for extract@1 → log_summary@2. */
export function request(root: string, input = SAMPLE_LOG, feedback: string | null = null) {
  return {
    capability: 'extract@1', schemaId: 'log_summary@2', schema: LOG_SUMMARY, input, feedback,
    attempt: feedback === null ? 0 : 1, root, signal: new AbortController().signal,
  };
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}
