/**
 * Building the composition document (src/ledger/composition.ts owns its
 * form, hash and storage) from a loaded root: every manifest, schema, tool
 * and playbook, the prompts' digests, the policy settings, and the digests of
 * the policy code, the shipped code providers and the shell providers'
 * programs. Here, above the registry and the runtime, because it reads both;
 * the document's content is the same for the same inputs wherever it is built
 * (the policy modules are named by their place under src/, as before).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { digestBytes } from '../ledger/canonical.js';
import { compositionHash, compositionText, type Composition } from '../ledger/composition.js';
import type { LoadedRoot } from '../registry/load.js';
import { BREAKERS, BUDGETS, BUDGET_SOFT_SHARE, MEASUREMENT_WINDOW, MIN_OBSERVATIONS, MIN_PASS_RATE } from '../runtime/settings.js';

/** Code whose behaviour decides routing and validation: its digest is part of the composition. */
const POLICY_MODULES = ['../runtime/policy', '../runtime/settings', '../runtime/step', '../runtime/loop', '../runtime/planner', '../agent/planning', '../agent/session-plan', '../agent/retrieval', '../agent/settings', '../agent/extractors', '../agent/failure-lines', '../agent/answer/coverage', '../agent/answer/select', '../agent/answer/named', '../agent/goal/explain'];

function moduleDigest(rel: string): string {
  const base = fileURLToPath(new URL(rel, import.meta.url));
  for (const ext of ['.js', '.ts']) {
    if (existsSync(base + ext)) return digestBytes(readFileSync(base + ext));
  }
  return 'missing';
}

/** Build the composition document for a loaded root. */
export function buildComposition(loaded: LoadedRoot, prompts: Record<string, string>, providerCode: Record<string, string>, playbooks: Record<string, unknown> = {}, lexicon: Record<string, unknown> = {}): Composition {
  const code: Record<string, string> = {};
  for (const m of POLICY_MODULES) code[m.replace('../', '')] = moduleDigest(m);
  const shell: Record<string, string> = {};
  for (const p of Object.values(loaded.documents.providers)) {
    if (p.kind !== 'shell') continue;
    const exe = p.command[0]!;
    const path = isAbsolute(exe) ? exe : join(loaded.root, exe);
    shell[`shell:${p.id}`] = existsSync(path) && exe.includes('/') ? digestBytes(readFileSync(path)) : `command:${exe}`;
    // a script handed to an interpreter (["python3", "providers/x.py"]) is the program too
    p.command.slice(1).forEach((arg, i) => {
      const file = programFile(loaded.root, arg);
      if (file) shell[`shell:${p.id}:${i + 1}`] = digestBytes(readFileSync(file));
    });
  }
  return {
    composition: 'composition@1',
    capabilities: loaded.documents.capabilities,
    schemas: loaded.documents.schemas,
    tools: loaded.documents.tools,
    providers: loaded.documents.providers,
    playbooks,
    // the admin's lexicon reads every goal: a changed word is a changed configuration
    ...(Object.keys(lexicon).length ? { lexicon } : {}),
    prompts,
    policy: {
      settings: { breakers: BREAKERS, budgets: BUDGETS, soft_share: BUDGET_SOFT_SHARE, min_pass_rate: MIN_PASS_RATE, min_observations: MIN_OBSERVATIONS, measurement_window: MEASUREMENT_WINDOW },
      code,
    },
    provider_code: { ...providerCode, ...shell },
  };
}

/** The file an argv element names (it has a `/` and is a regular file, relative to the root), or null. */
export function programFile(root: string, arg: string): string | null {
  if (!arg.includes('/') || arg.includes('{')) return null;
  const path = isAbsolute(arg) ? arg : join(root, arg);
  try {
    return statSync(path).isFile() ? path : null;
  } catch {
    return null;
  }
}

/**
 * The hash and the text of a document at once: what compositionHash and compositionText
 * (ledger/composition.ts) give, byte for byte, for a fifth of the time (each runtime's open pays
 * it: the shipped root's document is 130 kB, and the two walked it twice more). It is copied once with its
 * keys in canonical order, and JSON.stringify writes both spellings of the copy. It is the same
 * text as canonicalJson's only for plain JSON data whose keys are no array indexes (an object
 * puts a key such as "2" before every other): for anything else the hash and the text are taken
 * as compositionHash and compositionText take them.
 */
export function compositionForms(c: Composition): { hash: string; text: string } {
  const copy = plainSorted(c);
  if (copy === NOT_PLAIN) return { hash: compositionHash(c), text: compositionText(c) };
  return { hash: digestBytes(JSON.stringify(copy)), text: JSON.stringify(copy, null, 2) + '\n' };
}

const NOT_PLAIN = Symbol('not plain');
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/** `v` with every object's keys in code-unit order and undefined members left out, or NOT_PLAIN. */
function plainSorted(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : NOT_PLAIN;
  if (typeof v !== 'object') return NOT_PLAIN;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return NOT_PLAIN;
      const item = plainSorted(v[i]);
      if (item === NOT_PLAIN || item === undefined) return NOT_PLAIN;
      out.push(item);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v).sort()) {
    const member = (v as Record<string, unknown>)[key];
    if (member === undefined) continue;
    if (INDEX_KEY.test(key)) return NOT_PLAIN;
    const m = plainSorted(member);
    if (m === NOT_PLAIN) return NOT_PLAIN;
    out[key] = m;
  }
  return out;
}
