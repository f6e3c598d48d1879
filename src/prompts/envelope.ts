/**
 * Prompt envelopes — `prompts/<id>.md` in the root: typed front matter plus one
 * free-text body written at build time.
 *
 * The front matter is a JSON object between two `---` lines (JSON is a subset
 * of YAML, so editors still recognise it, and no YAML parser is needed). It
 * names the capability and schema the prompt serves, the schema fields it
 * covers, and every template parameter with its type and trust. A parameter
 * of trust T1 is refused at load time: outside text never enters the
 * instructions; it travels only in the delimited data section of the user
 * message (see render.ts). One sha256 over the file's bytes is the envelope's
 * digest; the lead puts it into the session composition.
 *
 * This module only reads and checks envelopes; rendering them into messages
 * is render.ts, and choosing a prompt for a provider is the manifest's job.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from '../base/zod.js';
import { trustSchema } from '../ledger/events.js';
import { capabilityId, schemaId } from '../registry/manifest.js';

const promptId = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" or "-"');
const paramName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and "_"');

export const parameterSchema = z.strictObject({
  type: z.enum(['string', 'integer', 'number', 'boolean']),
  trust: trustSchema,
  description: z.string().optional(),
});
export type PromptParameter = z.infer<typeof parameterSchema>;

export const frontMatterSchema = z.strictObject({
  prompt: z.literal('prompt@1'),
  id: promptId,
  capability: capabilityId,
  schema: schemaId,
  /** the schema properties whose rules this prompt renders, in order (none for a schema that is not an object, such as plan@1's list of calls) */
  fields: z.array(z.string().min(1)),
  /**
   * what the user message holds: "untrusted" data (T1, the default) framed as text to read only, or
   * a "trusted" context the runtime assembled from T0/T2 sources alone (a planner's goal and
   * manifests; the policy never lets T1 input reach a control capability)
   */
  input: z.enum(['untrusted', 'trusted']).default('untrusted'),
  parameters: z.record(paramName, parameterSchema).default({}),
});
export type PromptFrontMatter = z.infer<typeof frontMatterSchema>;

export interface PromptEnvelope extends PromptFrontMatter {
  /** sha256 of the file's bytes: front matter and body together */
  digest: string;
  path: string;
  body: string;
}

/** The placeholder where the field rules (rendered from the schema) go; it must appear once. */
export const FIELD_RULES = 'field_rules';
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

export class PromptError extends Error {
  override name = 'PromptError';
}

/** The folder that holds a root's prompts. */
export function promptsDir(root: string): string {
  return path.join(root, 'prompts');
}

/** Parse and check one envelope's text; `where` names the file in every error. */
export function parseEnvelope(text: string, where: string): PromptEnvelope {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!m) throw new PromptError(`${where}: no front matter; start the file with "---", a JSON object, and "---" on its own line`);
  let raw: unknown;
  try {
    raw = JSON.parse(m[1]!);
  } catch (e) {
    throw new PromptError(`${where}: the front matter is not JSON (${(e as Error).message}); write it as one JSON object`);
  }
  const r = frontMatterSchema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.map((i) => {
      const at = i.path.join('.') || '(front matter)';
      return i.code === 'unrecognized_keys' ? `${at}: unknown key(s) ${i.keys.join(', ')}` : `${at}: ${i.message}`;
    });
    throw new PromptError(`${where}: invalid front matter: ${lines.join('; ')}`);
  }
  const fm = r.data;
  checkParameters(fm, m[2]!, where);
  return { ...fm, digest: createHash('sha256').update(text).digest('hex'), path: where, body: m[2]!.trim() };
}

/** Refuse T1 parameters, undeclared or unused placeholders, and a missing field-rules slot. */
function checkParameters(fm: PromptFrontMatter, body: string, where: string): void {
  for (const [name, p] of Object.entries(fm.parameters)) {
    if (p.trust === 'T1') {
      throw new PromptError(
        `${where}: parameter "${name}" has trust T1; outside data can never enter a template — drop the parameter, the input text already reaches the model in the data section`,
      );
    }
    if (name === FIELD_RULES) throw new PromptError(`${where}: parameter name "${FIELD_RULES}" is reserved for the rendered field rules; rename it`);
  }
  const used = [...body.matchAll(PLACEHOLDER)].map((x) => x[1]!);
  for (const name of used) {
    if (name !== FIELD_RULES && !(name in fm.parameters)) {
      throw new PromptError(`${where}: the body uses {{${name}}} but the front matter declares no such parameter; declare it under "parameters" or remove it`);
    }
  }
  for (const name of Object.keys(fm.parameters)) {
    if (!used.includes(name)) throw new PromptError(`${where}: parameter "${name}" is declared but never used in the body; remove it`);
  }
  if (fm.fields.length > 0 && used.filter((n) => n === FIELD_RULES).length !== 1) {
    throw new PromptError(`${where}: the body must contain {{${FIELD_RULES}}} exactly once; the field rules are rendered there from the schema's descriptions`);
  }
}

/** Load `prompts/<id>.md` from the root. */
export async function loadPrompt(root: string, id: string): Promise<PromptEnvelope> {
  promptId.parse(id);
  const file = path.join(promptsDir(root), `${id}.md`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new PromptError(`${file}: cannot read prompt "${id}" (${code ?? (e as Error).message}); ship prompts/${id}.md in the root or fix the manifest's "prompt"`);
  }
  const env = parseEnvelope(text, file);
  if (env.id !== id) throw new PromptError(`${file}: front matter id "${env.id}" differs from the file name "${id}"; make them equal`);
  return env;
}

/** Every envelope in the root's prompts folder, sorted by id; a broken one throws. */
export async function listPrompts(root: string): Promise<PromptEnvelope[]> {
  let names: string[];
  try {
    names = await readdir(promptsDir(root));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const ids = names.filter((n) => /^[a-z0-9][a-z0-9._-]*\.md$/.test(n)).map((n) => n.slice(0, -3)).sort();
  const out: PromptEnvelope[] = [];
  for (const id of ids) out.push(await loadPrompt(root, id));
  return out;
}
