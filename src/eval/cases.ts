/**
 * Eval case files: what `pico eval` reads, checked case by case.
 *
 * A case file is a JSON array of cases (or `{"cases": [...]}`) in the two
 * shapes of the shared corpora: tool calls like `toolcalls-dev.json` (a
 * `schema` that is an `anyOf` over the offered functions, `expected`
 * `{name, arguments}` with `allowed` values, or `expected_error`) and
 * extractions like `ladder-dev.json` (`input`, `schema`, `expected`). For a
 * live run a case also needs what a model reads: `query` (the admin's
 * question) for a tool call, `prompt` (the instruction) plus `input` (the
 * data) for an extraction. With `--recorded`, `input` is instead text a model
 * already wrote, and no model is asked.
 *
 * Three references keep a shipped set short; each expands into the corpus
 * shape when the file is read: `tools: [NAME, ...]` (tool manifests of the
 * root → the `anyOf` schema, each branch described by the tool's
 * `description` and `when`), `schema_id` without `schema` (the root's
 * `manifests/schemas/ID.json`), and `input_file` / `expected_file` (paths
 * relative to the case file). A bad case is an `EvalInputError` naming the
 * file, the case and the fix; nothing here runs a model or scores.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unreadable } from '../base/named-file.js';
import { compileSchema } from '../ladder/index.js';
import type { SchemaHandle } from '../ladder/types.js';
import { canonicalDigest } from '../ladder/index.js';
import type { ToolManifest } from '../registry/manifest.js';

export class EvalInputError extends Error {
  override name = 'EvalInputError';
}

export interface EvalCase {
  id: string;
  category: string;
  toolCall: boolean;
  schema: Record<string, unknown>;
  handle: SchemaHandle;
  /** what the measurement is filed under in a provider manifest */
  capability: string;
  schemaId: string;
  query: string | null;
  prompt: string | null;
  input: string | null;
  expected?: unknown;
  expected_error?: boolean;
  allowed?: Record<string, unknown[]> | null;
}

export interface CaseFile {
  path: string;
  /** sha256 of the file's canonical JSON: the record names the cases it scored */
  digest: string;
  cases: EvalCase[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The tool-call schema offering these tools, one `anyOf` branch per tool. */
export function toolCallSchema(tools: ToolManifest[]): Obj {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    anyOf: tools.map((t) => {
      const { $schema: _drop, ...args } = t.input_schema;
      return {
        type: 'object',
        description: t.when ? `${t.description} Use it when: ${t.when}.` : t.description,
        properties: { name: { const: t.name }, arguments: args },
        required: ['name', 'arguments'],
        additionalProperties: false,
      };
    }),
  };
}

/** Read a JSON file a case names, relative to the case file. */
function readRef(dir: string, rel: unknown, where: string, key: string, asJson: boolean): unknown {
  if (typeof rel !== 'string' || rel === '') throw new EvalInputError(`${where}: "${key}" must be a path relative to the case file`);
  const file = path.resolve(dir, rel);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new EvalInputError(`${where}: "${key}" names ${unreadable(file, e, 'file').problem}; fix the path (it is relative to the case file)`);
  }
  if (!asJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new EvalInputError(`${where}: "${key}" names ${file}, which is not JSON (${(e as Error).message})`);
  }
}

export interface ResolveContext {
  /** the root's tool manifests by name */
  tools: Record<string, ToolManifest>;
  /** the root's schemas by id */
  schemas: Record<string, Obj>;
}

/** Expand and check one raw case. */
function resolveCase(raw: unknown, index: number, file: string, ctx: ResolveContext): EvalCase {
  const dir = path.dirname(file);
  if (!isObj(raw)) throw new EvalInputError(`${file}: case ${index} is not an object; every case is {"id", "schema" or "tools", "expected" or "expected_error", ...}`);
  const id = raw.id;
  if (typeof id !== 'string' || id === '') throw new EvalInputError(`${file}: case ${index} has no string "id"; give every case a unique id`);
  const where = `${file}: case "${id}"`;
  let schema: Obj;
  let toolCall = raw.category === 'tool-call';
  if (raw.tools !== undefined) {
    if (!Array.isArray(raw.tools) || raw.tools.length === 0 || !raw.tools.every((t) => typeof t === 'string')) {
      throw new EvalInputError(`${where}: "tools" must be a non-empty list of tool names`);
    }
    const missing = raw.tools.filter((t) => !ctx.tools[t as string]);
    if (missing.length) throw new EvalInputError(`${where}: no tool manifest for ${missing.join(', ')} in the root; known: ${Object.keys(ctx.tools).sort().join(', ') || '(none)'} — pass --root DIR of a picoharness root`);
    schema = toolCallSchema(raw.tools.map((t) => ctx.tools[t as string]!));
    toolCall = true;
  } else if (isObj(raw.schema)) {
    schema = raw.schema;
  } else if (typeof raw.schema_id === 'string') {
    const s = ctx.schemas[raw.schema_id];
    if (!s) throw new EvalInputError(`${where}: schema "${raw.schema_id}" is not in the root's manifests/schemas/; pass --root DIR or inline "schema"`);
    schema = s;
  } else {
    throw new EvalInputError(`${where}: needs "schema" (a JSON Schema), "schema_id" (one of the root's schemas) or "tools" (tool names)`);
  }
  let handle: SchemaHandle;
  try {
    handle = compileSchema(schema, id);
  } catch (e) {
    throw new EvalInputError(`${where}: the schema does not compile (${(e as Error).message})`);
  }
  const input = raw.input_file !== undefined ? (readRef(dir, raw.input_file, where, 'input_file', false) as string) : raw.input;
  if (input !== undefined && typeof input !== 'string') throw new EvalInputError(`${where}: "input" must be a string`);
  const expected = raw.expected_file !== undefined ? readRef(dir, raw.expected_file, where, 'expected_file', true) : raw.expected;
  const expectedError = raw.expected_error === true;
  if (!expectedError && expected === undefined) throw new EvalInputError(`${where}: needs "expected" (or "expected_file"), or "expected_error": true for a case that must be refused`);
  if (raw.allowed !== undefined && raw.allowed !== null && !(isObj(raw.allowed) && Object.values(raw.allowed).every(Array.isArray))) {
    throw new EvalInputError(`${where}: "allowed" maps each argument to a list of accepted values ("" = may be absent)`);
  }
  for (const key of ['query', 'prompt', 'capability', 'schema_id'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') throw new EvalInputError(`${where}: "${key}" must be a string`);
  }
  return {
    id,
    category: typeof raw.category === 'string' ? raw.category : toolCall ? 'tool-call' : 'uncategorised',
    toolCall,
    schema,
    handle,
    capability: (raw.capability as string | undefined) ?? (toolCall ? 'plan@1' : 'extract@1'),
    schemaId: (raw.schema_id as string | undefined) ?? (toolCall ? 'plan@1' : typeof schema.$id === 'string' ? schema.$id : 'unnamed'),
    query: (raw.query as string | undefined) ?? null,
    prompt: (raw.prompt as string | undefined) ?? null,
    input: input ?? null,
    ...(expected !== undefined ? { expected } : {}),
    ...(expectedError ? { expected_error: true } : {}),
    allowed: (raw.allowed as Record<string, unknown[]> | undefined) ?? null,
  };
}

/** Read and check a case file; ids must be unique. */
export function readCaseFile(file: string, ctx: ResolveContext): CaseFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const u = unreadable(file, e, 'case file');
    throw new EvalInputError(`${u.problem}; ${u.fix} (a JSON array of cases)`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new EvalInputError(`${file}: ${text.trim() === '' ? 'is empty' : `is not JSON (${(e as Error).message})`}; give a case file (a JSON array of cases)`);
  }
  const list = Array.isArray(doc) ? doc : isObj(doc) && Array.isArray(doc.cases) ? doc.cases : null;
  if (!list) throw new EvalInputError(`${file}: expected a JSON array of cases or {"cases": [...]}`);
  if (list.length === 0) throw new EvalInputError(`${file}: holds no cases`);
  const cases = list.map((c, i) => resolveCase(c, i, file, ctx));
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new EvalInputError(`${file}: case id "${c.id}" appears twice; ids must be unique`);
    seen.add(c.id);
  }
  return { path: file, digest: canonicalDigest(doc as object), cases };
}

/** Check that every case holds what a live model run needs. */
export function checkLive(file: CaseFile): void {
  for (const c of file.cases) {
    const where = `${file.path}: case "${c.id}"`;
    if (c.toolCall && c.query === null) {
      throw new EvalInputError(`${where}: a tool-call case needs "query" (the question a model is asked); if "input" already holds a model's answer, pass --recorded`);
    }
    if (!c.toolCall && (c.prompt === null || c.input === null)) {
      throw new EvalInputError(`${where}: an extraction case needs "prompt" (the instruction) and "input" or "input_file" (the data); if "input" already holds a model's answer, pass --recorded`);
    }
  }
}

/** Check that every case holds recorded model text. */
export function checkRecorded(file: CaseFile): void {
  for (const c of file.cases) {
    if (c.input === null) throw new EvalInputError(`${file.path}: case "${c.id}" has no "input"; --recorded scores the model text held in each case's "input"`);
  }
}
