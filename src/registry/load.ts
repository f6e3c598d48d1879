/**
 * Loading a root's manifests: `manifests/{capabilities,schemas,tools,providers}/*.json`.
 *
 * Every file is parsed strictly; every problem is collected (not just the
 * first) as an issue naming the file, the key path and the fix, so
 * `pico manifests check` can list them all. An unknown key is an error with a
 * did-you-mean — a misspelt `secuirty` must never silently widen a boundary.
 * Cross-references (a provider implementing an unknown capability, a data
 * capability claiming control, an unknown escalation target) are checked
 * after each file is valid on its own. A manifest means one thing
 * (manifest-text.ts): read without following a link, UTF-8, no key twice,
 * no id in two files, no provider serving a control and a data capability.
 */
import { readdirSync, existsSync } from 'node:fs';
import { checkCodeHazards, checkHostView, checkInsideRoot, checkProgram, checkToolArgv, type ManifestIssue } from './boundary.js';
import { join } from 'node:path';
import type { z } from '../base/zod.js';
import { compileSchema } from '../ladder/schemas.js';
import { canonicalDigest } from '../ladder/canonical.js';
import type { SchemaHandle } from '../ladder/types.js';
import {
  capabilityManifestSchema, providerManifestSchema, toolManifestSchema,
  type CapabilityManifest, type ProviderManifest, type ToolManifest,
} from './manifest.js';
import { manifestJson, ManifestReadError, readManifestText } from '../base/manifest-file.js';
import { duplicateId, mixedServing } from './manifest-text.js';
import { Registry } from './registry.js';
import { Scope } from './scope.js';
import { nearest } from '../base/near.js';
import { checkSentence } from '../base/sentence.js';

export class ManifestError extends Error {
  override name = 'ManifestError';
  constructor(readonly issues: ManifestIssue[]) {
    super(issues.map(formatIssue).join('\n'));
  }
}

export function formatIssue(i: ManifestIssue): string {
  return `${i.file}${i.path ? ` at ${i.path}` : ''}: ${i.message} — ${i.fix}`;
}

export interface LoadedRoot {
  root: string;
  registry: Registry;
  scope: Scope;
  /** the parsed documents by table and id, for the composition */
  documents: {
    capabilities: Record<string, CapabilityManifest>;
    schemas: Record<string, Record<string, unknown>>;
    tools: Record<string, ToolManifest>;
    providers: Record<string, ProviderManifest>;
  };
  /** where each entry came from, relative to the root */
  files: Record<string, string>;
}

const KNOWN_KEYS = new Set<string>();
for (const s of [capabilityManifestSchema, toolManifestSchema, ...providerManifestSchema.options]) collectKeys(s, KNOWN_KEYS);

/** Where manifest texts come from: the root's folders, or a snapshot of the last good set. */
export interface ManifestSource {
  /** file names in manifests/<dir>, or null when the folder is absent */
  list(dir: string, issues: ManifestIssue[]): string[] | null;
  read(file: string): string;
}

/** The manifests under a root, never followed out of it through a symlink. */
export function folderSource(root: string): ManifestSource {
  return {
    list(dir, issues) {
      const abs = join(root, 'manifests', dir);
      if (!existsSync(abs)) return null;
      if (!checkInsideRoot(`manifests/${dir}`, abs, root, issues)) return [];
      // an entry that is no symlink is where its folder is, inside the root: only a link is followed to see where it leads
      return readdirSync(abs, { withFileTypes: true }).filter((e) => e.name.startsWith('.') || !e.isSymbolicLink() || checkInsideRoot(`manifests/${dir}/${e.name}`, join(abs, e.name), root, issues)).map((e) => e.name);
    },
    read: (file) => readManifestText(root, file),
  };
}

/**
 * Read and check every manifest under `root`; throws ManifestError listing all problems. With
 * `compile: false` the schemas are only read and digested, and compile on first use: the caller
 * then owns the check that they compile (root/runtime.ts, right after the session worker is ready).
 */
export function loadRoot(root: string, registry = new Registry(), source: ManifestSource = folderSource(root), o: { compile?: boolean } = {}): LoadedRoot {
  const issues: ManifestIssue[] = [];
  const docs: LoadedRoot['documents'] = { capabilities: {}, schemas: {}, tools: {}, providers: {} };
  const files: Record<string, string> = {};
  const handles: Record<string, SchemaHandle> = {};

  for (const file of jsonFiles(source, 'schemas', issues)) {
    const json = readJson(source, file, issues);
    if (json === undefined) continue;
    const id = typeof json.$id === 'string' ? json.$id : file.replace(/^.*\//, '').replace(/\.json$/, '');
    if (docs.schemas[id]) issues.push(duplicateId('schema', id, files[`schema:${id}`]!, file));
    try {
      handles[id] = o.compile === false ? { id, json, digest: canonicalDigest(json) } : compileSchema(json, id);
      for (const p of checkSentence(json)) issues.push({ file, ...p });
      docs.schemas[id] = json;
      files[`schema:${id}`] = file;
    } catch (err) {
      issues.push({ file, path: '', message: `not a usable JSON Schema: ${(err as Error).message}`, fix: 'fix the schema so it compiles (draft 2020-12 or draft-07)' });
    }
  }
  const parseAll = <T>(dir: string, schema: z.ZodType<T>, keyOf: (v: T) => string, into: Record<string, T>, tag: string) => {
    for (const file of jsonFiles(source, dir, issues)) {
      const json = readJson(source, file, issues);
      if (json === undefined) continue;
      const r = schema.safeParse(json);
      if (!r.success) {
        for (const i of r.error.issues) issues.push(zodIssue(file, i));
        continue;
      }
      const key = keyOf(r.data);
      const expectedName = `${key}.json`;
      if (!file.endsWith(`/${expectedName}`)) {
        issues.push({ file, path: '', message: `declares id "${key}" but the file is not named ${expectedName}`, fix: `rename the file to ${expectedName} or change the id` });
      }
      if (into[key]) issues.push({ file, path: '', message: `id "${key}" is declared twice (also in ${files[`${tag}:${key}`]})`, fix: 'ids must be unique; rename one' });
      into[key] = r.data;
      files[`${tag}:${key}`] = file;
    }
  };
  parseAll('capabilities', capabilityManifestSchema, (c) => c.id, docs.capabilities, 'capability');
  parseAll('tools', toolManifestSchema, (t) => t.name, docs.tools, 'tool');
  parseAll('providers', providerManifestSchema as z.ZodType<ProviderManifest>, (p) => p.id, docs.providers, 'provider');

  return finishLoad(root, registry, docs, files, handles, issues);
}

/** The checks between manifests and against the filesystem, then the set registered (root/checked-set.ts calls it too). */
export function finishLoad(root: string, registry: Registry, docs: LoadedRoot['documents'], files: Record<string, string>, handles: Record<string, SchemaHandle>, issues: ManifestIssue[]): LoadedRoot {
  crossCheck(docs, files, issues);
  boundaries(root, docs, files, issues);
  if (issues.length > 0) throw new ManifestError(issues);
  const scope = new Scope(`root ${root}`);
  for (const [id, c] of Object.entries(docs.capabilities)) registry.register('capabilities', id, c, scope);
  for (const [id, h] of Object.entries(handles)) registry.register('schemas', id, h, scope);
  for (const [id, t] of Object.entries(docs.tools)) registry.register('tools', id, t, scope);
  for (const [id, p] of Object.entries(docs.providers)) registry.register('providers', id, p, scope);
  return { root, registry, scope, documents: docs, files };
}

/** References between manifests that no single file can check. */
function crossCheck(docs: LoadedRoot['documents'], files: Record<string, string>, issues: ManifestIssue[]): void {
  issues.push(...mixedServing(Object.values(docs.providers), (cap) => docs.capabilities[cap]?.control, (id) => files[`provider:${id}`]!));
  for (const c of Object.values(docs.capabilities)) {
    for (const s of c.schemas) {
      if (!docs.schemas[s]) issues.push({ file: files[`capability:${c.id}`]!, path: 'schemas', message: `schema "${s}" does not exist`, fix: `add manifests/schemas/${s}.json or remove it` });
    }
  }
  for (const t of Object.values(docs.tools)) {
    const file = files[`tool:${t.name}`]!;
    const reducer = docs.capabilities[t.reducer];
    if (!reducer) issues.push({ file, path: 'reducer', message: `capability "${t.reducer}" does not exist`, fix: `add manifests/capabilities/${t.reducer}.json or name a known capability` });
    if (t.fact_schema !== undefined) {
      if (!docs.schemas[t.fact_schema]) issues.push({ file, path: 'fact_schema', message: `schema "${t.fact_schema}" does not exist`, fix: `add manifests/schemas/${t.fact_schema}.json or fix the name` });
      else if (reducer && !reducer.schemas.includes(t.fact_schema)) issues.push({ file, path: 'fact_schema', message: `the reducer ${t.reducer} does not produce "${t.fact_schema}"`, fix: `add "${t.fact_schema}" to "schemas" in manifests/capabilities/${t.reducer}.json` });
    }
  }
  for (const p of Object.values(docs.providers)) {
    const file = files[`provider:${p.id}`]!;
    p.implements.forEach((cap, i) => {
      if (!docs.capabilities[cap]) issues.push({ file, path: `implements.${i}`, message: `capability "${cap}" does not exist`, fix: `add manifests/capabilities/${cap}.json or fix the name` });
    });
    for (const s of p.schemas ?? []) {
      if (!docs.schemas[s]) issues.push({ file, path: 'schemas', message: `schema "${s}" does not exist`, fix: `add manifests/schemas/${s}.json or fix the name` });
    }
    for (const [cap, sec] of Object.entries(p.security)) {
      if (!p.implements.includes(cap)) issues.push({ file, path: `security.${cap}`, message: `security is given for "${cap}", which this provider does not implement`, fix: 'remove the entry or add the capability to implements' });
      const c = docs.capabilities[cap];
      if (c && !c.control && sec.may_emit_control) issues.push({ file, path: `security.${cap}.may_emit_control`, message: `"${cap}" is a data capability; a data capability can never emit control`, fix: 'set may_emit_control to false' });
      if (c?.control && sec.max_trust_in === 'T1') issues.push({ file, path: `security.${cap}.max_trust_in`, message: `"${cap}" is a control capability; it may not read T1 (untrusted) input`, fix: 'set max_trust_in to T2 or T0' });
    }
    p.escalates_to.forEach((target, i) => {
      if (!docs.providers[target]) issues.push({ file, path: `escalates_to.${i}`, message: `provider "${target}" does not exist`, fix: 'name a provider id from manifests/providers/' });
      if (target === p.id) issues.push({ file, path: `escalates_to.${i}`, message: 'a provider cannot escalate to itself', fix: 'name another provider' });
    });
  }
}

/** What a program may reach, per tool and shell provider (boundary.ts). */
function boundaries(root: string, docs: LoadedRoot['documents'], files: Record<string, string>, issues: ManifestIssue[]): void {
  for (const t of Object.values(docs.tools)) {
    const file = files[`tool:${t.name}`]!;
    if (!t.command[0]!.startsWith('builtin:')) checkProgram(file, 'command', t.command[0]!, root, issues);
    const props = t.input_schema.properties;
    checkToolArgv(file, t.command, props && typeof props === 'object' ? Object.keys(props) : [], issues);
    checkHostView(file, t.host_view ?? [], t.requires_isolation, issues);
  }
  for (const p of Object.values(docs.providers)) {
    if (p.kind !== 'shell') continue;
    const file = files[`provider:${p.id}`]!;
    checkProgram(file, 'command', p.command[0]!, root, issues);
    checkCodeHazards(file, p.command, issues, false);
  }
}

function jsonFiles(source: ManifestSource, dir: string, issues: ManifestIssue[]): string[] {
  const names = source.list(dir, issues);
  if (names === null) return [];
  const out: string[] = [];
  for (const name of [...names].sort()) {
    if (name.startsWith('.')) continue;
    if (!name.endsWith('.json')) {
      issues.push({ file: `manifests/${dir}/${name}`, path: '', message: 'not a .json file', fix: 'manifests are JSON files ending in .json; move other files elsewhere' });
      continue;
    }
    out.push(`manifests/${dir}/${name}`);
  }
  return out;
}

/** One manifest's object, or undefined with its issues (not UTF-8, not JSON, …); every folder's loader reads through it. */
export function readJson(source: ManifestSource, file: string, issues: ManifestIssue[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = source.read(file);
  } catch (err) {
    issues.push({ file, path: '', message: err instanceof ManifestReadError ? err.message : `cannot be read: ${(err as Error).message}`, fix: err instanceof ManifestReadError ? err.fix : 'check the file permissions' });
    return undefined;
  }
  const r = manifestJson(file, text);
  if ('issues' in r) {
    issues.push(...r.issues);
    return undefined;
  }
  return r.value;
}

function zodIssue(file: string, i: z.core.$ZodIssue): ManifestIssue {
  const path = i.path.map(String).join('.');
  if (i.code === 'unrecognized_keys') {
    const key = i.keys[0]!;
    const near = nearest(key, KNOWN_KEYS);
    return {
      file,
      path: path ? `${path}.${key}` : key,
      message: `unknown key${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`,
      fix: near ? `did you mean "${near}"? unknown keys are refused so a typo cannot widen a boundary` : 'remove it; unknown keys are refused so a typo cannot widen a boundary',
    };
  }
  if (i.code === 'invalid_type' && / received undefined$/.test(i.message)) {
    return { file, path, message: `required key "${path.split('.').pop()}" is missing`, fix: 'add it; see the manifest format in docs/manifests.md' };
  }
  if (path === 'trust_out') return { file, path, message: i.message, fix: 'set "trust_out": "T1"' };
  if (path.startsWith('host_view')) return { file, path, message: i.message, fix: 'write host_view as a list of what the tool must see of the host: ["fs"] (df), ["pid"] (ps), ["net"] (ip); see docs/manifests.md, "Tools"' };
  return { file, path, message: i.message, fix: 'see the manifest format in docs/manifests.md' };
}

function collectKeys(schema: unknown, into: Set<string>): void {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  if (!shape) return;
  for (const [k, v] of Object.entries(shape)) {
    into.add(k);
    let inner: unknown = v;
    for (let d = 0; d < 4 && inner; d++) {
      const def = (inner as { def?: { innerType?: unknown; valueType?: unknown } }).def;
      if ((inner as { shape?: unknown }).shape) break;
      inner = def?.innerType ?? def?.valueType;
    }
    if (inner) collectKeys(inner, into);
  }
}
