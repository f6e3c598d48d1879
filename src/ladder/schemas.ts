/**
 * Schemas: JSON Schema documents compiled to validators once, cached by digest.
 *
 * This module owns ladder levels 2 and 3 (`checkValue`): a value either fits
 * its schema or gets a classified error that says what was wrong where. It
 * also hands the repair rungs validators for any sub-schema (by JSON pointer),
 * so a rung can tell whether one field already fits before touching it.
 * Draft-07 and 2020-12 documents both work; `x-extractive` is an allowed
 * keyword (level 4 reads it, see spans.ts). It does not repair values and it
 * does not fetch remote `$ref`s: a schema is one self-contained file.
 */
import { readFileSync } from 'node:fs';
import { unreadable } from '../base/named-file.js';
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction, ErrorObject } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalDigest } from './canonical.js';
import { describeErrors, type CheckFailure } from './errors.js';
import type { SchemaHandle } from './types.js';

type Draft = '07' | '2020';
type AnyAjv = Ajv | Ajv2020;

interface Compiled {
  draft: Draft;
  /** the registered copy of the document, with a digest-based $id */
  root: Record<string, unknown>;
  base: string;
  fast: ValidateFunction;
  full: ValidateFunction | null;
  sub: Map<string, ValidateFunction>;
  hasDefaults: boolean;
  hasExtractive: boolean;
}

// Ajv (CommonJS) is required at the first compilation, not imported: a session worker reads its
// manifests and says ready before it compiles a schema (issue 24, root/runtime.ts warm()). Each
// require is written out whole, so that the worker's bundle carries Ajv inside it, in its code
// cache (scripts/bundles.mjs).
const ajv2020 = (): { Ajv2020: typeof Ajv2020 } => createRequire(import.meta.url)('ajv/dist/2020') as { Ajv2020: typeof Ajv2020 };
const ajv07 = (): { Ajv: typeof Ajv } => createRequire(import.meta.url)('ajv') as { Ajv: typeof Ajv };
const registry = new Map<string, Compiled>();
const ajvs = new Map<string, AnyAjv>();

/**
 * One Ajv instance per draft and error mode; `x-extractive` is declared on each. Only the fast
 * instance checks a document against the draft's meta-schema: the all-errors one compiles the
 * very documents the fast one already accepted, and checking them again cost it a compilation
 * of the meta-schema on the first refusal a worker met (issue 24).
 */
function ajvFor(draft: Draft, allErrors: boolean): AnyAjv {
  const key = `${draft}:${allErrors}`;
  let ajv = ajvs.get(key);
  if (!ajv) {
    // no pass over the generated code (code.optimize): it took two fifths of compiling a schema,
    // which a new worker does for every manifest schema, and the validators ran no faster for it
    const opts = { strict: false, allErrors, verbose: allErrors, logger: false as const, validateSchema: !allErrors, code: { optimize: false } };
    ajv = draft === '2020' ? new (ajv2020().Ajv2020)(opts) : new (ajv07().Ajv)(opts);
    ajv.addKeyword({ keyword: 'x-extractive', schemaType: 'boolean' });
    ajvs.set(key, ajv);
  }
  return ajv;
}

/** Which draft a document declares; no `$schema` means draft-07. */
function draftOf(json: Record<string, unknown>): Draft {
  const declared = typeof json.$schema === 'string' ? json.$schema : '';
  return /2020-12|2019-09/.test(declared) ? '2020' : '07';
}

/** True when any sub-schema carries keyword `name`. */
function mentions(node: unknown, name: string): boolean {
  if (Array.isArray(node)) return node.some((n) => mentions(n, name));
  if (node === null || typeof node !== 'object') return false;
  const obj = node as Record<string, unknown>;
  if (name in obj && !(name === 'default' && isPropertyMap(obj))) return true;
  return Object.values(obj).some((n) => mentions(n, name));
}

/** A `properties` map may have a property called "default"; that is not the keyword. */
function isPropertyMap(obj: Record<string, unknown>): boolean {
  const d = obj.default;
  return d !== null && typeof d === 'object' && !Array.isArray(d) && ('type' in d || 'properties' in d);
}

/** Compile a schema document (or return the cached compilation of an equal one). */
export function compileSchema(json: object, id?: string): SchemaHandle {
  const doc = json as Record<string, unknown>;
  const digest = canonicalDigest(doc);
  const handleId = id ?? (typeof doc.$id === 'string' ? doc.$id : typeof doc.title === 'string' ? doc.title : `sha256:${digest.slice(0, 12)}`);
  const handle: SchemaHandle = { id: handleId, json: doc, digest };
  compiledOf(handle);
  return handle;
}

/** The compiled form of a handle, compiling on first use (handles may be rebuilt from JSON). */
export function compiledOf(handle: SchemaHandle): Compiled {
  const hit = registry.get(handle.digest);
  if (hit) return hit;
  const draft = draftOf(handle.json);
  const base = `https://picoharness.invalid/schemas/${handle.digest}.json`;
  const root: Record<string, unknown> = { ...handle.json, $id: base };
  if (typeof root.$schema === 'string' && !/2020-12|2019-09|draft-0[67]/.test(root.$schema)) delete root.$schema;
  let fast: ValidateFunction;
  try {
    fast = ajvFor(draft, false).compile(root);
  } catch (err) {
    throw new Error(`schema ${handle.id}: does not compile (${(err as Error).message}); fix the schema document`);
  }
  const compiled: Compiled = {
    draft, root, base, fast, full: null, sub: new Map(),
    hasDefaults: mentions(handle.json, 'default'),
    hasExtractive: mentions(handle.json, 'x-extractive'),
  };
  registry.set(handle.digest, compiled);
  return compiled;
}

/** Read and compile a schema file; the id is the file's `$id`, else its name without `.json`. */
export function loadSchemaFile(path: string): SchemaHandle {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const u = unreadable(path, err, 'schema file');
    throw new Error(`schema file ${u.problem}; ${u.fix}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`schema file ${path}: ${text.trim() === '' ? 'is empty' : `is not JSON (${(err as Error).message})`}; a schema file is one JSON Schema document`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error(`schema file ${path}: must hold a JSON object (a JSON Schema document), got ${Array.isArray(json) ? 'an array' : typeof json}`);
  }
  const doc = json as Record<string, unknown>;
  const fallback = path.replace(/^.*[\\/]/, '').replace(/\.json$/, '');
  try {
    return compileSchema(doc, typeof doc.$id === 'string' ? doc.$id : fallback);
  } catch (err) {
    throw new Error(`schema file ${path}: ${(err as Error).message}`);
  }
}

/** Levels 2 and 3: null when the value fits, else the classified error. */
export function checkValue(handle: SchemaHandle, value: unknown): CheckFailure | null {
  const compiled = compiledOf(handle);
  if (compiled.fast(value)) return null;
  if (!compiled.full) compiled.full = ajvFor(compiled.draft, true).compile(compiled.root);
  compiled.full(value);
  return describeErrors((compiled.full.errors ?? []) as ErrorObject[], value);
}

/** True when `value` fits the sub-schema at JSON pointer `pointer` ("" is the root). */
export function fitsAt(handle: SchemaHandle, pointer: string, value: unknown): boolean {
  const compiled = compiledOf(handle);
  if (pointer === '') return compiled.fast(value) as boolean;
  let validate = compiled.sub.get(pointer);
  if (!validate) {
    const fragment = pointer.split('/').map((s) => encodeURIComponent(s)).join('/');
    validate = ajvFor(compiled.draft, false).compile({ $ref: `${compiled.base}#${fragment}` });
    compiled.sub.set(pointer, validate);
  }
  return validate(value) as boolean;
}

/** The schema node at a JSON pointer, or undefined. */
export function nodeAt(handle: SchemaHandle, pointer: string): unknown {
  let node: unknown = handle.json;
  if (pointer === '') return node;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Append one segment to a JSON pointer, escaping ~ and /. */
export function childPointer(pointer: string, segment: string | number): string {
  return `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Whether a schema uses `default` / `x-extractive` anywhere (lets the common path skip walks). */
export function schemaFeatures(handle: SchemaHandle): { hasDefaults: boolean; hasExtractive: boolean } {
  const c = compiledOf(handle);
  return { hasDefaults: c.hasDefaults, hasExtractive: c.hasExtractive };
}
